"""Citation markers: parsing ``[3]``, ``[1, 3]``, ``[2-4]``, ``[1][2]``; telling ours from copies.

A marker is a bracket holding only whole numbers joined by commas, semicolons or dashes, so the
statistics abstracts put in brackets (``[95% CI 1.2-3.4]``, ``[1.14-1.37]``, ``[25(OH)D]``) are
never read as citations.

Bibliography copies: a passage's raw text can carry the source's own reference markers
("as shown before [3]"). When an answer writes ``[3]`` right after the words that precede a
``[3]`` inside some passage, the number came from that bibliography, not from our numbering,
unless passage 3 itself holds those words (then the citation points at the text it copied and is
right, which is always the case for the extractive generator's verbatim sentences).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

#: whole numbers joined by , ; - – — inside square brackets
MARKER_RE = re.compile(r"\[\s*(\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*)\s*\]")
#: how the generators neutralise a source's own reference markers before a model sees them
NEUTRALISED_REF_RE = re.compile(r"\(\s*refs?\.?\s*\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*\s*\)", re.I)
_WORD_RE = re.compile(r"\w+")
#: a range wider than this is not expanded (its ends are still checked)
_MAX_RANGE = 100

#: words of the answer before a marker that are compared
CONTEXT_WORDS = 8
#: words of a passage before (and after) one of its own markers that are compared against
WINDOW_BEFORE = 12
WINDOW_AFTER = 4
#: share of the context's word pairs found in the window that makes a copy
BIGRAM_SHARE = 0.6
MIN_SHARED_BIGRAMS = 3
MIN_SUFFIX_WORDS = 3


@dataclass(frozen=True)
class Marker:
    """One bracketed marker as written, with the numbers it names."""

    text: str
    start: int
    end: int
    numbers: tuple[int, ...]


def parse_marker_numbers(body: str) -> tuple[int, ...]:
    """``"1, 3"`` -> (1, 3); ``"2-4"``, ``"2–4"`` -> (2, 3, 4). In order, without repeats."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", body):
        part = part.strip()
        if not part:
            continue
        ends = [int(x) for x in re.split(r"\s*[\-–—]\s*", part) if x.strip()]
        if len(ends) == 1:
            numbers.append(ends[0])
            continue
        low, high = min(ends), max(ends)
        if high - low > _MAX_RANGE:
            numbers.extend([low, high])
        else:
            numbers.extend(range(low, high + 1))
    return tuple(dict.fromkeys(numbers))


def find_markers(text: str) -> list[Marker]:
    return [
        Marker(m.group(0), m.start(), m.end(), parse_marker_numbers(m.group(1)))
        for m in MARKER_RE.finditer(text)
    ]


def strip_markers(text: str) -> str:
    """The text with every marker removed and the spacing tidied."""
    return tidy(MARKER_RE.sub(" ", text))


def tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text)
    return text.strip()


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def _bigrams(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(tokens))


def _common_suffix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def context_matches(context: Sequence[str], window: Sequence[str]) -> bool:
    """Do the answer's words before a marker reproduce a passage's words around its own marker?

    Either the last few words agree exactly (the copy kept its marker in place) or most of the
    context's word pairs occur in the window (the copy moved the marker a little or changed a
    word).
    """
    if len(context) < 2:
        return False
    if _common_suffix(context, window) >= min(MIN_SUFFIX_WORDS, len(context)):
        return True
    pairs = _bigrams(context)
    shared = len(pairs & _bigrams(window))
    return shared >= min(MIN_SHARED_BIGRAMS, len(pairs)) and shared >= BIGRAM_SHARE * len(pairs)


def holds_context(context: Sequence[str], passage_words: Sequence[str]) -> bool:
    """Does the passage itself contain the context (contiguously, or nearly so)?"""
    if len(context) < 2:
        return True
    pairs = _bigrams(context)
    return len(pairs & _bigrams(passage_words)) >= BIGRAM_SHARE * len(pairs)


@dataclass(frozen=True)
class SourceMarker:
    """A bracketed reference number inside a passage's own text, with the words around it."""

    passage: int
    numbers: frozenset[int]
    window: tuple[str, ...]


class BibliographyIndex:
    """The passages' own reference markers, ready to compare answer markers against."""

    def __init__(
        self,
        passage_texts: dict[int, str],
        references: Sequence[tuple[int, str]] = (),
    ) -> None:
        """``references``: (number, text) entries of the retrieved documents' reference lists
        (stored at ingest): a marker that points at one of them, next to words of that entry,
        is a citation of the cited paper, not of a passage."""
        self._references: dict[int, list[list[str]]] = {}
        for number, text in references:
            self._references.setdefault(number, []).append(words(text))
        self._by_number: dict[int, list[SourceMarker]] = {}
        self._passage_words: dict[int, list[str]] = {}
        for n, text in passage_texts.items():
            clean = words(MARKER_RE.sub(" ", text))
            self._passage_words[n] = clean
            for marker in find_markers(text):
                before = words(MARKER_RE.sub(" ", text[: marker.start]))[-WINDOW_BEFORE:]
                after = words(MARKER_RE.sub(" ", text[marker.end :]))[:WINDOW_AFTER]
                source = SourceMarker(n, frozenset(marker.numbers), tuple(before + after))
                for number in marker.numbers:
                    self._by_number.setdefault(number, []).append(source)

    def __bool__(self) -> bool:
        return bool(self._by_number) or bool(self._references)

    def names_reference(self, number: int, context: Sequence[str]) -> bool:
        """True when ``[number]`` follows words of the reference-list entry numbered
        ``number`` (e.g. a cited paper's title), or when the context quotes any entry.

        Never when passage ``number`` itself holds the context: the marker then points at the
        words it repeats (a verbatim quote of a methods sentence that names a guideline which
        is also in the reference list is a citation of the passage).
        """
        if len(context) < 3:
            return False
        if holds_context(context, self._passage_words.get(number, ())):
            return False
        pairs = _bigrams(context)
        for entry in self._references.get(number, ()):
            if len(pairs & _bigrams(entry)) >= BIGRAM_SHARE * len(pairs):
                return True
        return any(
            len(pairs & _bigrams(entry)) >= max(4, 0.8 * len(pairs))
            for entries in self._references.values()
            for entry in entries
        )

    def copied_from(self, number: int, context: Sequence[str]) -> int | None:
        """The passage whose own ``[number]`` this context reproduces, or None.

        Not a copy when passage ``number`` itself holds the context: the citation then points at
        the words it repeats.
        """
        for source in self._by_number.get(number, ()):
            if context_matches(context, source.window):
                if holds_context(context, self._passage_words.get(number, ())):
                    return None
                return source.passage
        return None


def marker_context(sentence: str, marker_start: int) -> list[str]:
    """The answer's last words before a marker, ignoring other markers and neutralised refs."""
    before = NEUTRALISED_REF_RE.sub(" ", MARKER_RE.sub(" ", sentence[:marker_start]))
    return words(before)[-CONTEXT_WORDS:]
