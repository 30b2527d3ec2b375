"""The reader's final score: its network's probability beside what retrieval and the words say.

Per candidate, named features (``FEATURES``): the network's logit for it and the best of its
passage, the passage's retrieval cosine and rank, the share of the question's terms (weighted
by their rarity among the candidates read) in the candidate and in its passage, whether it is a
table row, its length. A logistic model over them, fitted with the network on the same FIT
questions (``evaluate/reader_fit.py``) and shipped in the reader's provenance file, gives the
probability the generator ranks by and the gate reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from lastword.result import RetrievedPassage
from lastword.terms import terms

FEATURES = (
    "reader",
    "passage_reader",
    "passage_score",
    "passage_rank",
    "lexical",
    "lexical_passage",
    "table",
    "length",
)


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def features(
    question: str,
    passages: Sequence[RetrievedPassage],
    units: Sequence,
    network: np.ndarray,
) -> np.ndarray:
    """One row of ``FEATURES`` per unit (``network``: the network's probability per unit)."""
    asked = terms(question)
    unit_terms = [terms(u.text) for u in units]
    total = len(units) + 1
    weight = {t: math.log(total / (1 + sum(t in ut for ut in unit_terms))) + 1.0 for t in asked}
    whole = sum(weight.values()) or 1.0
    passage_terms = {i: terms(p.text) for i, p in enumerate(passages)}
    best: dict[int, float] = {}
    for u, p in zip(units, network, strict=True):
        best[u.passage] = max(best.get(u.passage, 0.0), float(p))
    rows = []
    for u, ut, p in zip(units, unit_terms, network, strict=True):
        rows.append(
            (
                _logit(float(p)),
                _logit(best[u.passage]),
                passages[u.passage].score,
                1.0 / (u.passage + 1),
                sum(weight[t] for t in asked & ut) / whole,
                sum(weight[t] for t in asked & passage_terms[u.passage]) / whole,
                1.0 if u.cells else 0.0,
                math.log(1 + len(u.text.split())),
            )
        )
    return np.array(rows, dtype=float).reshape(-1, len(FEATURES))


def combined(rows: np.ndarray, weights: dict[str, float]) -> np.ndarray:
    """The logistic model's probability per row."""
    z = weights["intercept"] + rows @ np.array([weights[name] for name in FEATURES])
    return 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))
