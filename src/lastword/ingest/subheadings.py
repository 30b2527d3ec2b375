"""Subheadings set in the body's size: told apart by their face, not their size or weight alone.

Two shapes, both read from PDFium's per-character fonts (``Line.fonts``):

- a *run-in* heading: the first words of a paragraph's first line in another face (bold,
  italic, another family or size) than the body text that follows on the same line
  ("**Microbial strains.** Antimicrobial activity of the essential oil ..."). The line is cut
  in two: a heading line and the body line after it;
- a *standalone* subheading: a short line wholly in a face that is not the body's, at a
  paragraph's start (the line before ends a sentence, or is not body text), followed by a body
  line starting with a capital ("Preparation of essential oil and aqueous extract" in a
  sans-serif face over a serif body, a little smaller than it).

Either is marked ``"subheading"`` in ``Line.flags``: ``structure.line_role`` reads it as a
heading, so it is kept as context and never becomes passage text, and the paragraph's first
sentence starts clean. Guards against what is not a heading: at most ``MAX_WORDS`` words; the
text after a run-in must start a sentence (a capital: "*Ocimum micranthum* was used" and
"**Garlic** (Allium sativum) was" are sentences whose subject is set apart, not headings); a
lead set only in italics must end in "." or ":" (an italic species name opening a sentence,
"*Ocimum micranthum* Willd is ...", is not a heading); the line before must end a sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from lastword.ingest.layout import Line, bold_face
from lastword.ingest.structure import CAPTION as _CAPTION

MAX_WORDS = 10
_ITALIC = re.compile(r"italic|oblique|[.,-]i$|-it$|ital", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?:)\]\d]$")
_PUNCT = re.compile(r"^[\s.:;,\u2013\u2014-]+")
_PUNCT_ONLY = re.compile(r"^[\W\d_]*$")
_OPENERS = re.compile(r"^(abstract|keywords|key words)\b", re.IGNORECASE)
_CITATION = re.compile(r"\b(1[89]|20)\d\d[a-z]?\b|\d+\(\d+\)")


def body_face(lines: Iterable[Line], size: float) -> str:
    """The face most characters of body-size lines are set in."""
    faces: Counter[str] = Counter()
    for line in lines:
        if line.furniture or line.rotated or (size and abs(line.size - size) > 0.5):
            continue
        for face, text in line.fonts:
            faces[face] += len(text)
    return faces.most_common(1)[0][0] if faces else ""


def _italic_only(face: str) -> bool:
    return bool(_ITALIC.search(face)) and not bold_face(face)


def _faces(line: Line) -> set[str]:
    """The faces of a line's letters (punctuation and digits set in any face are ignored)."""
    return {face for face, text in line.fonts if not _PUNCT_ONLY.match(text)}


def _starts_sentence(text: str) -> bool:
    text = text.lstrip()
    return bool(text) and text[0].isupper()


def _ends_paragraph(previous: Line | None, line: Line, body: str) -> bool:
    if previous is None or "subheading" in previous.flags:
        return True
    if previous.column and line.column and previous.column != line.column:
        return True
    if previous.bottom - line.top > 0.9 * max(line.size, 1.0) or previous.top < line.bottom:
        return True  # white space before the line, or the line is above: a new paragraph
    return bool(_SENTENCE_END.search(previous.text.rstrip())) or body not in _faces(previous)


def _run_in(line: Line, body: str) -> tuple[str, str] | None:
    """(heading, rest) when the line opens with a short run in another face than the body's
    face that follows it."""
    if len(line.fonts) < 2 or line.fonts[0][0] == body:
        return None
    lead_face = line.fonts[0][0]
    lead_parts: list[str] = []
    rest_at = 0
    for i, (face, text) in enumerate(line.fonts):
        if face == body and not _PUNCT_ONLY.match(text):
            rest_at = i
            break
        if face != lead_face and not _PUNCT_ONLY.match(text):
            return None  # a third face before the body's: not a simple run-in
        lead_parts.append(text)
    else:
        return None
    lead = " ".join(lead_parts).strip()
    rest_text = " ".join(text for _face, text in line.fonts[rest_at:])
    # punctuation set in the body face right after the lead (". ", ": ") belongs to the lead
    punct = _PUNCT.match(rest_text)
    if punct:
        lead += punct.group(0).strip()
        rest_text = rest_text[punct.end() :]
    words = lead.split()
    if not words or len(words) > MAX_WORDS or not lead[0].isupper():
        return None
    if not any(c.isalpha() for c in lead) or not _starts_sentence(rest_text):
        return None
    if _italic_only(lead_face) and not lead.endswith((".", ":")):
        return None
    if _OPENERS.match(lead):
        return None  # "Abstract", "Keywords" run in: the classifier reads them with their text
    if lead.endswith(",") or _CITATION.search(lead) or lead.count(",") >= 2:
        return None  # a reference entry's authors and year, a journal's volume
    if not line.text.startswith(lead.rstrip(".:")):
        return None  # the runs do not line up with the line's text (superscripts, spacing)
    rest = line.text[len(lead) :].lstrip() if line.text.startswith(lead) else None
    if rest is None:
        rest = _PUNCT.sub("", line.text[len(lead.rstrip(".:")) :])
    return (lead, rest) if rest and _starts_sentence(rest) else None


def _standalone(line: Line, following: Line | None, body: str, size: float) -> bool:
    faces = _faces(line)
    if not faces or body in faces or following is None or len(faces) > 1:
        return False
    (face,) = faces
    text = line.text.strip()
    if line.words > MAX_WORDS or not text[0].isupper() or text.endswith((",", ";", ".")):
        return False
    if _italic_only(face):
        return False  # a wholly italic line: a species name, a title cited in the text
    if size and line.size > 1.12 * size:
        return False  # larger: already a heading by its size
    if body not in _faces(following) or not _starts_sentence(following.text):
        return False
    return following.top <= line.bottom + 1.5 * max(line.size, 1.0)


def mark_subheadings(lines: list[Line], body: str, size: float) -> list[Line]:
    """The page's lines (reading order) with run-in headings cut off into lines of their own
    and every subheading flagged ``"subheading"``."""
    if not body:
        return lines
    out: list[Line] = []
    previous: Line | None = None
    for i, line in enumerate(lines):
        if (
            line.rotated
            or line.furniture
            or line.cells > 1
            or not line.fonts
            or _CAPTION.match(line.text)
        ):
            out.append(line)
            previous = line
            continue
        following = lines[i + 1] if i + 1 < len(lines) else None
        if _ends_paragraph(previous, line, body):
            split = _run_in(line, body)
            if split:
                lead, rest = split
                share = len(lead) / max(len(line.text), 1)
                cut = line.x0 + share * (line.x1 - line.x0)
                heading = replace(line, text=lead, x1=cut, flags={"subheading"}, spans=[])
                heading.fonts = line.fonts[:1]
                body_line = replace(line, text=rest, x0=cut, flags=set(line.flags), spans=[])
                body_line.fonts = [(body, rest)]
                # the cut line's weight was its first character's, the heading's
                body_line.bold = bold_face(body)
                out.extend((heading, body_line))
                previous = body_line
                continue
            if _standalone(line, following, body, size):
                line.flags.add("subheading")
        out.append(line)
        previous = line
    return out


def subheadings(lines: Iterable[Line]) -> list[str]:
    """The texts of the lines marked as subheadings (for ``bench/subheadings.py``)."""
    return [line.text for line in lines if "subheading" in line.flags]
