"""Sentence splitting shared by the extractive generator and the verifier.

Scientific prose is full of periods that do not end sentences ("et al.", "e.g.", "Fig. 2",
"p < 0.05", "vs."), so a split needs an end mark, space, then a capital/digit/bracket, and the
word before the mark must not be a known abbreviation.
"""

from __future__ import annotations

import re

#: words whose period is an abbreviation's, not a sentence's end (lower-cased, no period):
#: the one list the generator, the verifier and ingest read (``is_abbreviation``)
ABBREVIATIONS = frozenset(
    """
    al e.g i.e etc vs v viz cf ca approx incl resp est fig figs tab eq eqs ref refs no nos vol
    p pp ed eds dr mr mrs ms prof st jr sr dept univ inc ltd co sp spp subsp var cv syn
    jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)


def is_abbreviation(word: str, *, initials: bool = True) -> bool:
    """True when a period after ``word`` (lower-cased, without its period) does not end a
    sentence: a known abbreviation ("et al.", "Fig. 2", "sp."), or with ``initials`` a single
    letter ("J. Smith")."""
    return word in ABBREVIATIONS or (initials and len(word) == 1 and word.isalpha())


_BOUNDARY = re.compile(r"([.!?])([\"')\]]*)(\s+)(?=[\"'(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, whitespace-trimmed, in order; markers like [3] stay attached.

    A blank line always ends a sentence: a heading never runs into the paragraph after it.
    """
    return [s for paragraph in _PARAGRAPH_BREAK.split(text) for s in _split_paragraph(paragraph)]


def _split_paragraph(text: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.start(3)
        before = _WORD_BEFORE.search(text, start, match.start(1))
        if match.group(1) == "." and before:
            word = before.group(1).lower().rstrip(".")
            if is_abbreviation(word):
                continue  # "et al." / "Fig." / an initial: not the end of a sentence
        sentence = text[start:end].strip()
        if sentence:
            sentences.append(sentence)
        start = match.end(3)
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences
