"""Reading a passage on the Ask page and in the Inspector: which of its sentences an answer
cites, which address a reader or a model (flags), whether it was cited at all, its printed page
label, and a link to its PDF page.

Nothing here decides anything: the verifier has already judged the answer. The highlight marks,
for each answer sentence citing passage [n], the sentence of [n] that shares the most words with
it (an extractive answer quotes it verbatim), so a reader sees where in the passage to look.

A document's file is addressed by a key derived from its id (``file_key``), never by its path:
no absolute server path leaves the server.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path, PurePath

from lastword.injection import is_instruction
from lastword.result import AnswerSentence, Result, RetrievedPassage
from lastword.sentences import split_sentences

_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)?")
_MARKER = re.compile(r"\[\d{1,3}\]")
#: share of an answer sentence's words a passage sentence must hold to be highlighted
HIGHLIGHT_FLOOR = 0.5
#: files served by the document route, and how
SERVED_TYPES = {".pdf": "application/pdf", ".txt": "text/plain", ".md": "text/plain"}


@dataclass(frozen=True)
class Segment:
    text: str
    #: numbers (1-based) of the answer sentences that cite this passage and match this sentence
    cited_by: tuple[int, ...] = ()
    #: the sentence addresses a reader or a model ("Ignore previous instructions ...")
    flagged: bool = False
    sentence: bool = True  # False: the whitespace between two sentences


@dataclass(frozen=True)
class PassageView:
    passage: RetrievedPassage
    segments: tuple[Segment, ...]
    cited: bool
    flags: tuple[str, ...]
    page_label: str | None  # the printed page label, only when it differs from the PDF page
    file_url: str | None  # the document's file at the passage's page (PDF: #page=N)
    file_name: str  # what the reader sees of the document's file: never a server path


def file_key(doc_id: str) -> str:
    """The URL segment for a document's file: a digest of its id, not its path."""
    return hashlib.sha256(doc_id.encode("utf-8")).hexdigest()[:24]


def display_name(doc_id: str, source: str | None, metadata: dict | None = None) -> str:
    """The document's file as a reader sees it: the path relative to the ingest root when
    ingest recorded one, else the file name. Never an absolute path."""
    for key in ("relative_path", "path", "display_path"):
        value = (metadata or {}).get(key)
        if isinstance(value, str) and value and not value.startswith("/"):
            return value
    for candidate in (source, doc_id):
        if candidate and ("/" in candidate or "\\" in candidate):
            return PurePath(candidate.replace("\\", "/")).name
    return source or doc_id


def _words(text: str) -> set[str]:
    return set(_WORD.findall(_MARKER.sub(" ", text.lower())))


def _overlap(answer: set[str], sentence: str) -> float:
    if not answer:
        return 0.0
    return len(answer & _words(sentence)) / len(answer)


def _split(text: str) -> list[tuple[str, bool]]:
    """``text`` as (piece, is_sentence) in order, with the gaps kept, so joined it is ``text``."""
    pieces: list[tuple[str, bool]] = []
    position = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, position)
        if start < 0:  # the splitter normalised something: show the passage whole
            return [(text, True)]
        if start > position:
            pieces.append((text[position:start], False))
        pieces.append((sentence, True))
        position = start + len(sentence)
    if position < len(text):
        pieces.append((text[position:], False))
    return pieces or [(text, True)]


def stored_flags(passage: RetrievedPassage) -> tuple[str, ...] | None:
    """Flags ingest stored with the passage (``flags``, or in its metadata); None when it
    stored none (an index built before flags were kept: the same detector runs live)."""
    value = getattr(passage, "flags", None) or passage.metadata.get("flags")
    if not value:
        return None
    return tuple(str(v) for v in value)


def segments(
    passage: RetrievedPassage, sentences: tuple[AnswerSentence, ...] = ()
) -> tuple[tuple[Segment, ...], tuple[str, ...]]:
    """The passage cut into sentences, each marked as cited (by which answer sentences) and
    flagged; and the flagged sentences."""
    pieces = _split(passage.text)
    flagged_set = stored_flags(passage)
    citing = [
        (number, _words(s.text))
        for number, s in enumerate(sentences, start=1)
        if passage.n in s.citations
    ]
    best: dict[int, int] = {}  # answer sentence number -> index of its piece
    for number, words in citing:
        scored = [
            (_overlap(words, piece), index)
            for index, (piece, is_sentence) in enumerate(pieces)
            if is_sentence
        ]
        if scored:
            score, index = max(scored)
            if score >= HIGHLIGHT_FLOOR:
                best[number] = index
    out: list[Segment] = []
    flags: list[str] = []
    for index, (piece, is_sentence) in enumerate(pieces):
        if not is_sentence:
            out.append(Segment(piece, sentence=False))
            continue
        if flagged_set is not None:
            flagged = piece.strip() in flagged_set or any(f in piece for f in flagged_set if f)
        else:
            flagged = is_instruction(piece)
        if flagged:
            flags.append(piece.strip())
        cited_by = tuple(number for number, at in best.items() if at == index)
        out.append(Segment(piece, cited_by, flagged))
    if flagged_set is not None:
        flags = list(flagged_set)
    return tuple(out), tuple(flags)


def page_label(passage: RetrievedPassage) -> str | None:
    """The page number printed on the page, when ingest recorded one (``page_label`` on the
    passage, or the document's ``page_labels`` by PDF page) and it is not the PDF's."""
    if passage.page is None:
        return None
    labels = passage.metadata.get("page_labels")  # the document's: {"6": "iv", ...}
    label = getattr(passage, "page_label", None) or passage.metadata.get("page_label")
    if label is None and isinstance(labels, dict):
        label = labels.get(str(passage.page))
    if label is None:
        return None
    label = str(label).strip()
    return label if label and label != str(passage.page) else None


def passage_views(
    result: Result, sources: dict[str, str], metadata: dict[str, dict] | None = None
) -> list[PassageView]:
    """What the page shows for each retrieved passage. ``sources``: doc id -> source file as
    the store holds it (used only to know whether a file can be served, and its suffix)."""
    cited = set(result.citations)
    views = []
    for passage in result.passages:
        parts, flags = segments(passage, result.sentences)
        source = sources.get(passage.doc_id)
        url = None
        if source is not None and Path(source).suffix.lower() in SERVED_TYPES:
            url = f"/documents/{file_key(passage.doc_id)}"
            if Path(source).suffix.lower() == ".pdf" and passage.page:
                url += f"#page={passage.page}"
        views.append(
            PassageView(
                passage=passage,
                segments=parts,
                cited=passage.n in cited,
                flags=flags,
                page_label=page_label(passage),
                file_url=url,
                file_name=display_name(
                    passage.doc_id, source, (metadata or {}).get(passage.doc_id)
                ),
            )
        )
    return views
