"""Near-synonyms from static word vectors (optional: the ``wordllama`` package, its bundled
256-d vectors, read offline). ``soft_terms`` finds the question's words that a sentence states
in another word of close meaning; without the package it finds none, and the scorer matches
by stem alone. Measured on the real-papers DEV questions and not on by default
(``answering.SOFT_MATCH``; docs/ingest.md, eighth round)."""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

from lastword.generate.terms import STOP, stem, words

#: the cosine a sentence word needs to stand for a question word
SOFT_COSINE = 0.6


@lru_cache(maxsize=1)
def _model():  # pragma: no cover - depends on the optional package
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        return None
    return WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)


def available() -> bool:
    return _model() is not None


@lru_cache(maxsize=65536)
def _vector(word: str) -> np.ndarray | None:
    model = _model()
    if model is None:
        return None
    return np.asarray(model.embed([word], norm=True)[0], dtype=np.float32)


def soft_terms(question_words: frozenset[str], text: str, exact: set[str]) -> set[str]:
    """The stems of the question's words not in ``exact`` that a content word of ``text`` (of
    another stem) comes within ``SOFT_COSINE`` of."""
    if _model() is None:
        return set()
    missing = [q for q in question_words if stem(q) not in exact]
    if not missing:
        return set()
    own = {w.lower() for w in words(text) if len(w) >= 3 and w.lower() not in STOP}
    if not own:
        return set()
    found = set()
    vectors = [(w, _vector(w)) for w in own]
    for q in missing:
        qv = _vector(q)
        for w, wv in vectors:
            if stem(w) != stem(q) and float(qv @ wv) >= SOFT_COSINE:
                found.add(stem(q))
                break
    return found
