"""Split a document into passages of roughly 100-300 words that never cross a page.

Paragraphs (blank-line separated) are the units. In a JSONL ``text`` each paragraph is a
natural passage boundary and stands alone; elsewhere (PDF pages, plain text) short paragraphs
are packed together up to the target length. A unit longer than ``max_words`` is cut at sentence
ends (``ingest.sentences``: never after an abbreviation or an initial), and a single sentence
longer than that at word boundaries. Character offsets point into the page's text (or the
document's, for sources without pages). PDF blocks of one paragraph cut by a column break or a
figure are joined by the reader before this (``ingest.sentences.join_continued``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lastword.ingest.document import PageText
from lastword.ingest.sentences import sentence_ends
from lastword.store.protocol import NewPassage

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*\n\s*")
_WORD = re.compile(r"\S+")
_SPACE = re.compile(r"\s+")
#: a run that is one table read as rows (``ingest.tables``): its lines are kept as they are
_ROWS = "table rows"


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    words: int


def _paragraphs(text: str) -> list[_Span]:
    spans, start = [], 0
    for match in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        words = len(_WORD.findall(text, start, end))
        if words:
            # trim to the first and last non-space character
            segment = text[start:end]
            lead = len(segment) - len(segment.lstrip())
            trail = len(segment.rstrip())
            spans.append(_Span(start + lead, start + trail, words))
        if match:
            start = match.end()
    return spans


def _split_long(text: str, span: _Span, max_words: int, target_words: int) -> list[_Span]:
    """Cut an over-long paragraph at sentence ends, then at words if a sentence is too long."""
    if span.words <= max_words:
        return [span]
    sentences: list[_Span] = []
    start = span.start
    for match in sentence_ends(text, span.start, span.end):
        sentences.append(_Span(start, match.start() + len(match.group(0).rstrip()), 0))
        start = match.end()
    sentences.append(_Span(start, span.end, 0))
    pieces: list[_Span] = []
    for sentence in sentences:
        words = list(_WORD.finditer(text, sentence.start, sentence.end))
        for i in range(0, len(words), max_words):
            chunk = words[i : i + max_words]
            pieces.append(_Span(chunk[0].start(), chunk[-1].end(), len(chunk)))
    return _pack(pieces, target_words, target_words, max_words)


def _pack(
    units: list[_Span],
    min_words: int,
    target_words: int,
    max_words: int,
    heads: frozenset[int] = frozenset(),
) -> list[_Span]:
    """Greedily join consecutive units up to the target (or up to max while below the minimum);
    a unit starting at one of ``heads`` (a subheading) opens a passage once the one before has
    its minimum."""
    packed: list[_Span] = []
    current: _Span | None = None
    for unit in units:
        if current is None:
            current = unit
            continue
        joined = current.words + unit.words
        if unit.start in heads and current.words >= min_words:
            packed.append(current)
            current = unit
        elif joined <= target_words or (current.words < min_words and joined <= max_words):
            current = _Span(current.start, unit.end, joined)
        else:
            packed.append(current)
            current = unit
    if current is not None:
        if packed and current.words < min_words and packed[-1].words + current.words <= max_words:
            last = packed.pop()
            current = _Span(last.start, current.end, last.words + current.words)
        packed.append(current)
    return packed


def _passage_text(text: str, span: _Span) -> str:
    paragraphs = _PARAGRAPH_BREAK.split(text[span.start : span.end])
    return "\n\n".join(_SPACE.sub(" ", p).strip() for p in paragraphs if p.strip())


def _runs(page: PageText) -> list[tuple[str, int, int]]:
    """(kind, start, end) of consecutive blocks of one kind; headings end a run and are left
    out (context, never a quoted sentence)."""
    if not page.blocks:
        return [("body", 0, len(page.text))]
    runs: list[tuple[str, int, int]] = []
    previous_heading = True
    subheading: int | None = None  # where a subheading kept in the text starts
    for block in page.blocks:
        if block.kind == "heading":
            previous_heading, subheading = True, None
            continue
        if block.kind == SUBHEADING:
            subheading = block.start if subheading is None else subheading
            continue
        prose = block.kind in ("body", "abstract")
        if block.kind == "table" and "\n" in page.text[block.start : block.end]:
            runs.append((_ROWS, block.start, block.end))  # a table read as rows: alone
        elif runs and runs[-1][0] == block.kind and not previous_heading:
            runs[-1] = (block.kind, runs[-1][1], block.end)
        else:
            start = subheading if prose and subheading is not None else block.start
            runs.append((block.kind, start, block.end))
        previous_heading, subheading = False, None
    return runs


#: a subheading kept as a paragraph of the prose it heads (``[ingest] subheading_paragraphs``):
#: it opens a passage, never ends one
SUBHEADING = "subheading"


def split_passages(
    pages: tuple[PageText, ...],
    *,
    min_words: int = 100,
    target_words: int = 200,
    max_words: int = 300,
    paragraphs_are_passages: bool = False,
) -> list[NewPassage]:
    """Passages of at most ``max_words``; one never crosses a page or mixes kinds."""
    passages: list[NewPassage] = []
    for page in pages:
        for kind, start, end in _runs(page):
            if kind == _ROWS:
                # a table read as rows (``ingest.tables``): one passage, each row one line
                passages.append(
                    NewPassage(
                        page=page.page,
                        position=len(passages),
                        char_start=start,
                        char_end=end,
                        text=page.text[start:end],
                        kind="table",
                    )
                )
                continue
            units: list[_Span] = []
            for paragraph in _paragraphs(page.text[:end]):
                if paragraph.end <= start:
                    continue
                units += _split_long(page.text, paragraph, max_words, target_words)
            if not paragraphs_are_passages:
                heads = frozenset(b.start for b in page.blocks if b.kind == SUBHEADING)
                units = _pack(units, min_words, target_words, max_words, heads)
            for span in units:
                passages.append(
                    NewPassage(
                        page=page.page,
                        position=len(passages),
                        char_start=span.start,
                        char_end=span.end,
                        text=_passage_text(page.text, span),
                        kind=kind,
                    )
                )
    return passages
