"""Direction and polarity: does a sentence say the opposite of the passage sentence it rests on?

A sentence that reuses a passage's words but flips what they say ("reduced" for "did not
reduce", "increased" for "decreased", "higher" for "lower") scores high on support: the words
match. ``contradiction`` compares the sentence with its best supporting passage sentence and
names the flip. It only speaks when both talk about the same things (most of the sentence's
content words, direction and negation words set aside, are in the passage sentence), so
"improved survival" against "reduced mortality" is not read as a flip.

What it cannot see: a flip carried by a number ("rose from 5% to 3%"), by an antonym outside the
lists below, by a comparison turned around ("A exceeded B" for "B exceeded A"), or a hedge
dropped ("may reduce" -> "reduces"). See docs/verifier.md.
"""

from __future__ import annotations

import re

from lastword.verify.citations import strip_markers
from lastword.verify.sentences import split_line
from lastword.verify.support import content_words

_UP = (
    "increas rais rise rises rising rose risen higher greater more improv enhanc elevat "
    "gain boost upregul up-regul positiv better larger exceed acceler stimul promot"
).split()
_DOWN = (
    "decreas reduc lower less fewer declin drop fell fall diminish worse worsen impair "
    "suppress inhibit downregul down-regul negativ smaller attenu slow"
).split()
_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|neither|nor|none|cannot|without|fail(?:ed|s)?\s+to|lack(?:ed)?)\b|n't\b",
    re.I,
)
_WORD_RE = re.compile(r"[a-z][a-z\-]*")
#: share of the sentence's other content words the passage sentence must hold
SAME_TOPIC = 0.6


def _direction_words(text: str) -> tuple[set[str], set[str]]:
    up: set[str] = set()
    down: set[str] = set()
    for word in _WORD_RE.findall(text.lower()):
        if any(word.startswith(stem) for stem in _UP):
            up.add(word)
        elif any(word.startswith(stem) for stem in _DOWN):
            down.add(word)
    return up, down


def _direction(text: str) -> int:
    """+1 when the text only goes up, -1 when only down, 0 when neither or both."""
    up, down = _direction_words(text)
    return (1 if up else 0) - (1 if down else 0)


def _negated(text: str) -> bool:
    return len(_NEGATION_RE.findall(text)) % 2 == 1


def _topic_words(text: str) -> set[str]:
    up, down = _direction_words(text)
    skip = {w[:5] for w in up | down}
    return {w for w in content_words(_NEGATION_RE.sub(" ", text)) if w not in skip}


def _squeeze(text: str) -> str:
    return " ".join(text.lower().split())


def contradiction(sentence: str, source: str) -> str | None:
    """Why ``sentence`` says the opposite of ``source`` (its best supporting sentence), or None."""
    said = strip_markers(sentence)
    if not said or not source:
        return None
    # The passage's sentence splitter may leave two sentences joined where the draft's splits
    # them ("... and 5.8% K. The compound ... have not been tested"): compare with the piece,
    # split as the draft is, that holds the sentence, not with the negation of its neighbour.
    wanted = _squeeze(said)
    for piece in split_line(source):
        if wanted in _squeeze(piece):
            source = piece
            break
    if wanted == _squeeze(source):
        return None
    topic = _topic_words(said)
    if not topic or len(topic & _topic_words(source)) / len(topic) < SAME_TOPIC:
        return None
    said_direction, source_direction = _direction(said), _direction(source)
    said_negated, source_negated = _negated(said), _negated(source)
    if said_direction and source_direction and said_direction != source_direction:
        if said_negated == source_negated:
            going = {1: "up", -1: "down"}
            return f"says {going[said_direction]} where its source says {going[source_direction]}"
        return None  # "did not increase" against "decreased": a double flip, let it be
    if said_negated != source_negated:
        return "negates its source" if said_negated else "drops the negation of its source"
    return None
