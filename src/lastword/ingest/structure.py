"""What each part of a paper is: blocks of lines with a kind, the reference list, the title.

Kinds: ``body``, ``abstract``, ``caption``, ``table``, ``figure`` (text inside a figure, see
``ingest.figures``), ``front`` (title, authors, affiliations, dates, licence lines),
``references``, ``heading``. Furniture never gets here. Reading goes in
order with a small state machine: front matter on the first page until the abstract or the
first section heading; the abstract until the next heading; the body; from a references heading
(also letter-spaced "Ref erences") to the end, or to a recognisable end of the list (licence,
supplementary material, a publisher's advert), the references.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from lastword.ingest.layout import Line

HEADING_WORDS = 14
_LETTERS = re.compile(r"[^a-z]")
_REFERENCE_HEADINGS = {
    "references",
    "reference",
    "referencesandnotes",
    "referencescited",
    "literaturecited",
    "literature",
    "bibliography",
    "citedliterature",
    "workscited",
}
_NUMBERED_HEADING = re.compile(r"^(\d{1,2}(\.\d{1,2})*\.?|[IVX]{1,4}\.)\s+[A-Z][^.]*$")
CAPTION = re.compile(
    r"^(fig\.?|figure|table|scheme|plate|supplementary (table|figure))\s*[-–.]?\s*(S?\d+|[IVX]+)\b",
    re.IGNORECASE,
)
_FRONT = re.compile(
    r"(@|\buniversity\b|\bdepartment\b|\binstitute\b|\bcollege\b|laborator|\bfaculty\b|"
    r"school of|\bcent(er|re)\b|\bhospital\b|\bministry\b|correspondence|corresponding author|"
    r"\breceived\b|\baccepted\b|\bpublished\b|academic editor|edited by|reviewed by|"
    r"citation:|keywords|key words|specialty section|\bissn\b|article id|\bdoi\b|"
    r"e-mail|email|orcid|how to cite)",
    re.IGNORECASE,
)
_LICENCE = re.compile(
    r"(creative commons|open[- ]access article|©|\bcopyright\b|is distributed under|"
    r"licensee|unrestricted use, distribution)",
    re.IGNORECASE,
)
#: a block that is nothing but a DOI or a web address ("https://doi.org/10.1186/s12906-018-2238-1",
#: a PLOS figure's "doi:10.1371/journal.pone.0115884.g001"): front matter, never evidence
_IDENTIFIER = re.compile(
    r"(?:doi\s*:?\s*|https?://(?:dx\.)?doi\.org/)10\.\d{4,9}/\S+|(?:https?://|www\.)\S+",
    re.IGNORECASE,
)
_LIST_END = re.compile(
    r"^(supplementary|additional files?|appendix|submit your|publish with|"
    r"submit your next manuscript|ready to submit)",
    re.IGNORECASE,
)
_INTRO = re.compile(
    r"^((\d\.?|[IVX]+\.)\s*)?(introduction|background|methods|materials and methods|results)\b",
    re.IGNORECASE,
)
#: a line that is nothing but a section's name is its heading, whatever its size or weight
_SECTION_NAME = re.compile(
    r"((\d\.?|[IVX]+\.)\s*)?(introduction|background|methods|materials and methods|results|"
    r"discussion|results and discussion|conclusions?)\s*[.:]?",
    re.IGNORECASE,
)
_HYPHENS = ("-", "\ufffe", "\u00ad", "\u2010")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass
class Region:
    kind: str
    page: int | None
    lines: list[Line] = field(default_factory=list)
    role: str = "text"  # text | heading | caption | table | title | figure | sidebar
    text: str = ""


@dataclass(frozen=True)
class ReferenceEntry:
    number: int
    text: str


def letters(text: str) -> str:
    return _LETTERS.sub("", text.lower())


def is_reference_heading(text: str) -> bool:
    return len(text) <= 40 and letters(text) in _REFERENCE_HEADINGS


@lru_cache(maxsize=1)
def word_list() -> frozenset[str]:
    text = resources.files("lastword.data").joinpath("words/english.txt").read_text("utf-8")
    return frozenset(text.split())


def attested(word: str, document_words: Collection) -> bool:
    """The word (or its stem, for a plural or an inflection) occurs in the document or the list."""
    word = word.lower()
    known = word_list()
    if word in document_words or word in known:
        return True
    for suffix in ("s", "es", "ed", "ing", "ly", "al"):
        stem = word.removesuffix(suffix)
        if stem != word and len(stem) >= 3 and (stem in known or stem in document_words):
            return True
    return False


Collection = set[str] | frozenset[str]


def join_lines(lines: Iterable[str], document_words: Collection) -> str:
    """Lines of one block as one string; a line-end hyphen goes only when the joined word is
    attested, else it stays ("self-assessment"); PDFium's U+FFFE is such a hyphen."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        if out.endswith(_HYPHENS) and line[:1].isalpha():
            head = _WORD.findall(out[:-1][-40:])
            tail = _WORD.match(line)
            joined = (head[-1] if head else "") + (tail.group(0) if tail else "")
            word = tail.group(0) if tail else ""
            # Joined when the whole word is attested, or when the tail is no word on its own
            # ("mac-rophages"); kept in a compound of two words ("self-assessment").
            one_word = attested(joined, document_words) or not attested(word, document_words)
            glued = out[:-1] if line[0].islower() and one_word else out[:-1] + "-"
            out = glued + line
        else:
            out += " " + line
    out = out.replace("\ufffe", "-").replace("\u00ad", "")
    return _SPLIT_CAPITAL.sub(lambda m: _rejoin_capital(m, document_words), out)


#: a capital set apart from the rest of its word, as PDFium reads some initials and "Th"
#: ligatures: "T he", "T hirteen isolates"; "A" and "I" are words of their own
_SPLIT_CAPITAL = re.compile(r"(?<![\w.])([B-HJ-Z]) ([a-z]{2,})\b")


def _rejoin_capital(match: re.Match[str], document_words: Collection) -> str:
    joined = match.group(1) + match.group(2)
    return joined if attested(joined, document_words) else match.group(0)


def document_words(lines: Iterable[Line]) -> set[str]:
    """Words of the document, leaving out each line's first and last (a hyphenated half)."""
    words: set[str] = set()
    for line in lines:
        found = _WORD.findall(line.text)
        words.update(w.lower() for w in found[1:-1])
    return words


def named_heading(text: str) -> bool:
    """A section's or the reference list's name, or "Abstract": a heading that moves the
    classifier whatever set it apart."""
    return bool(
        _SECTION_NAME.fullmatch(text.strip())
        or is_reference_heading(text)
        or letters(text).startswith("abstract")
    )


def face_subheading(block: Region) -> bool:
    """Every line of the block is a subheading set apart only by its face
    (``ingest.subheadings``), and it names no section: context, never a change of part."""
    return all("subheading" in x.flags for x in block.lines) and not named_heading(block.text)


def line_role(line: Line, size: float, rotated_page: bool, bold_body: bool = False) -> str:
    """``bold_body``: the document's body text is itself bold, so bold marks no heading."""
    text = line.text
    if line.rotated:
        return "table" if rotated_page else "text"
    if CAPTION.match(text):
        return "caption"
    if line.cells >= 2 and (line.words <= 12 or line.cells >= 4):
        return "table"
    if "subheading" in line.flags:  # set apart by its face (``ingest.subheadings``)
        return "heading"
    if is_reference_heading(text) or _SECTION_NAME.fullmatch(text.strip()):
        return "heading"
    if line.words > HEADING_WORDS or not any(c.isalpha() for c in text):
        return "text"
    ends = text.rstrip()[-1:]
    numbered = bool(_NUMBERED_HEADING.match(text)) and line.words <= 10
    bigger = size > 0 and line.size >= 1.12 * size
    caps = (
        text.isupper()
        and sum(c.isalpha() for c in text) >= 4
        and any(w in word_list() for w in _WORD.findall(text.lower()))
    )
    if ends in ",;" or (ends == "." and not numbered and not bigger):
        return "text"
    if bigger or numbered or caps or (line.bold and not bold_body and line.words <= 10):
        return "heading"
    return "text"


def group_blocks(
    lines: Sequence[Line], size: float, rotated_page: bool, bold_body: bool = False
) -> list[Region]:
    """Consecutive lines of one column, role and size, without a paragraph-sized gap."""
    blocks: list[Region] = []
    previous: Line | None = None
    for line in lines:
        role = line_role(line, size, rotated_page, bold_body)
        block = blocks[-1] if blocks else None
        new = block is None or previous is None
        if not new:
            assert block is not None and previous is not None
            gap = previous.bottom - line.top
            height = max(previous.size, line.size, 1.0)
            continues_caption = block.role == "caption" and role == "text"
            same_role = role == block.role or continues_caption
            new = (
                not same_role
                or (role == "caption")
                or (line.column and previous.column and line.column != previous.column)
                or gap > 0.9 * height
                or gap < -3 * height  # the next line is above: another column or band
                or (abs(line.size - previous.size) > 1.0 and role != "table")
                or (role == "heading" and line.words > 6 and block.role == "heading")
            )
        if new:
            blocks.append(Region(kind="body", page=line.page, role=role))
        blocks[-1].lines.append(line)
        previous = line
    return blocks


_LABELS = {
    "researcharticle",
    "casereport",
    "reviewarticle",
    "review",
    "originalarticle",
    "originalresearch",
    "openaccess",
    "article",
    "research",
    "editorial",
    "shortcommunication",
    "clinicalstudy",
    "minireview",
    "perspective",
    "letter",
}


def _is_label(text: str) -> bool:
    return letters(text) in _LABELS or letters(text).removesuffix("openaccess") in _LABELS


def mark_title(first_page: Sequence[Line], height: float, size: float) -> list[Line]:
    """The title: the largest text in the upper part of the first page (three or more words),
    with the lines just under it that are nearly as large ("Research Article" labels aside)."""
    candidates = sorted(
        (
            line
            for line in first_page
            if not line.furniture
            and not line.rotated
            and line.top >= 0.35 * height
            and not _is_label(line.text)
            and not _FRONT.search(line.text)
        ),
        key=lambda c: -c.top,
    )
    sized = [c for c in candidates if len(re.findall(r"[A-Za-z]{3,}", c.text)) >= 2]
    if not sized:
        return []
    biggest = max(c.size for c in sized)
    if size and biggest < 1.15 * size:
        return []
    start = next(c for c in sized if c.size >= 0.95 * biggest)
    run = [start]
    for line in candidates[candidates.index(start) + 1 :]:
        if line.x1 < start.x0 or line.x0 > start.x1:
            continue  # beside the title (a margin label), not under it
        if line.size < 0.7 * biggest or run[-1].bottom - line.top > 0.8 * biggest:
            break
        run.append(line)
    return run


_SIDEBAR_SIZE = 0.9  # a side column's text is smaller than this share of the body size
_SIDEBAR_INDENT = 0.2  # ... and the main text starts this share of the page width in
_SIDEBAR_LINES = 4


def sidebar(lines: Sequence[Line], width: float, size: float) -> list[Line]:
    """The first page's side column (Frontiers, PLOS: editor, reviewers, correspondence, dates,
    citation, funding), set in small type in a strip left of the main text, which is indented
    to leave room for it. Its lines, right-aligned or ragged, share no baseline with the main
    text but their word gaps read as table cells; they are front matter, not a table.

    The main text is the body-sized lines of five words or more; it must start at least
    ``_SIDEBAR_INDENT`` of the page width from the left, and the side column is every smaller
    line entirely in that margin: four or more of them. Only a left column is looked for: a
    main text that ends early on the right is as often a narrow table or a ragged short page,
    whose small cells on the right are no side column."""
    main = [x for x in lines if not x.rotated and x.size >= _SIDEBAR_SIZE * size and x.words >= 5]
    if not main or size <= 0:
        return []
    left = min(x.x0 for x in main)
    if left < _SIDEBAR_INDENT * width:
        return []
    side = [x for x in lines if not x.rotated and not x.furniture and x.x1 <= left - 0.5 * size]
    if len(side) >= _SIDEBAR_LINES and all(x.size < _SIDEBAR_SIZE * size for x in side):
        return side
    return []


class Classifier:
    """Walks a document's blocks in reading order and gives each its kind."""

    def __init__(self) -> None:
        self.state = "front"
        self.references: list[Region] = []

    def kind(self, block: Region) -> str:
        text = block.text
        first_page = block.page in (None, 1)
        if block.role in ("title", "sidebar"):
            return "front"
        if block.role == "figure":  # text inside a figure: labels, ticks (``ingest.figures``)
            if self.state == "abstract":
                self.state = "body"  # an abstract is one run of text: a figure ends it
            return "figure"
        if block.role == "heading":
            if face_subheading(block):
                # set apart only by its face ("Aim:", "Background." in a structured abstract,
                # "Microbial strains"): context, never a change of part
                return "front" if self.state == "front" else "heading"
            if is_reference_heading(text):
                self.state = "references"
            elif self.state == "references":
                if _LIST_END.match(text):
                    self.state = "body"
            elif letters(text).startswith("abstract") and len(text) <= 20:
                self.state = "abstract"
            elif self.state == "front" and not (_INTRO.match(text) or not first_page):
                return "front"
            elif self.state in ("front", "abstract"):
                self.state = "body"
            return "heading"
        if self.state == "references":
            if _LIST_END.match(text) or (_LICENCE.search(text[:300]) and block.role == "text"):
                self.state = "body"
                return "front" if _LICENCE.search(text) else "body"
            self.references.append(block)
            return "references"
        if block.role in ("caption", "table"):
            return block.role
        if _IDENTIFIER.fullmatch(text.strip()):
            return "front"  # a DOI or web address alone: the article's, or a figure's
        if _LICENCE.search(text) and len(text.split()) <= 150:
            return "front"
        if self.state == "front":
            if not first_page:
                self.state = "body"
            elif re.match(r"^abstract\b", text, re.IGNORECASE):
                self.state = "abstract"
                return "abstract"
            elif _FRONT.search(text) or len(text.split()) < 60 or _author_list(text):
                return "front"
            else:
                self.state = "abstract"  # an abstract without a heading
                return "abstract"
        if self.state == "abstract":
            if re.match(r"^(keywords|key words)\b", text, re.IGNORECASE):
                return "front"
            if block.page is not None and block.page > 2:
                self.state = "body"
            else:
                return "abstract"
        return "body"


def _author_list(text: str) -> bool:
    words = text.split()
    capital = sum(1 for w in words if w[:1].isupper())
    return len(words) <= 80 and text.count(",") >= 2 and capital >= 0.6 * len(words)


_NUMBERED_ENTRY = re.compile(r"^\[?(\d{1,3})[\].)]?\s+\S")
_AUTHOR_START = re.compile(
    r"^[A-Z][A-Za-z'’\-]+(?: [a-z]{1,3})?,? (?:[A-Z]\.|[A-Z]{1,3}\b|[A-Z][a-z]+,)"
)


def reference_entries(lines: Sequence[str], words: Collection) -> list[ReferenceEntry]:
    """Split a reference list (its lines, in order) into entries: by consecutive numbers when
    the list is numbered, else at lines that start with an author name after an ended entry."""
    starts: list[tuple[int, int]] = []  # (line index, number)
    expected = 1
    for i, line in enumerate(lines):
        match = _NUMBERED_ENTRY.match(line.strip())
        if match and int(match.group(1)) == expected:
            starts.append((i, expected))
            expected += 1
    if len(starts) < 3:
        starts = []
        for i, line in enumerate(lines):
            previous = lines[i - 1].rstrip() if i else ""
            if i == 0 or (_AUTHOR_START.match(line.strip()) and previous[-1:] in ".)0123456789"):
                starts.append((i, len(starts) + 1))
    entries = []
    for index, (start, number) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        text = join_lines(lines[start:end], words).strip()
        if text:
            entries.append(ReferenceEntry(number=number, text=text))
    return entries
