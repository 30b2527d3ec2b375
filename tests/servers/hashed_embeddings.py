"""Deterministic text vectors for the fake embedding APIs: a hashed bag of words.

Every word maps to a fixed pseudo-random direction (stretched from its SHAKE-256 hash), and a
text is the log-weighted sum of its words' directions. Texts sharing words get high cosine
similarity, so tests can assert on ranking, not only on shapes. Stop words are dropped so they
do not dominate.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")
_TOKEN = re.compile(r"\w+|[^\w\s]")
# fmt: off
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "does", "for", "from",
    "has", "have", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to",
    "was", "were", "what", "which", "who", "why", "with",
})
# fmt: on


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def count_tokens(text: str) -> int:
    """A word-piece-like count (words and punctuation), always <= the client's byte estimate."""
    return len(_TOKEN.findall(text))


@lru_cache(maxsize=200_000)
def _direction(word: str, dim: int) -> np.ndarray:
    # SHAKE-256 stretches the word into dim uniform values in [-1, 1): fast, and in high
    # dimensions two such directions are nearly orthogonal, like Gaussian ones.
    raw = np.frombuffer(hashlib.shake_256(word.encode("utf-8")).digest(4 * dim), dtype="<u4")
    vector = raw / 2.0**31 - 1.0
    vector.flags.writeable = False  # cached and shared
    return vector


def hashed_embedding(text: str, dim: int, flavour: str | None = None) -> np.ndarray:
    """A unit vector for ``text``. ``flavour`` (e.g. Voyage's input_type) nudges it slightly."""
    counts = Counter(content_words(text))
    vector = np.zeros(dim)
    for word, count in counts.items():
        vector += (1.0 + math.log(count)) * _direction(word, dim)
    if not counts:
        vector = _direction("\0no-content-words", dim).copy()
    vector /= np.linalg.norm(vector)
    if flavour is not None:
        nudge = _direction(f"\0flavour:{flavour}", dim)
        vector = vector + 0.15 * nudge / np.linalg.norm(nudge)
        vector /= np.linalg.norm(vector)
    return vector
