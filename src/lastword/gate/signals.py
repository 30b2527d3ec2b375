"""The numbers the retrieval gate decides on, computed from what retrieval already returned.

- ``top_score``: the best cosine similarity.
- ``margin``: the top score minus the score at rank ``DEPTH`` (8): a question whose own paper
  is in the corpus lands on it and the scores then drop; an ablated one finds a field of
  near-equal neighbours.
- ``coverage``: the IDF-weighted share of the question's terms found anywhere in the top
  document (see ``gate/lexical.py``).
- ``maxsim``: how well each of the question's word pieces is matched, token by token, in the
  top document's retrieved passages (see ``gate/late_interaction.py``). Only for embedders
  that expose token vectors, and only computed when the gate model weighs it.

With a ``GateModel`` for the embedder the gate score is a logistic combination of these;
without, it is the top cosine score. Calibration: docs/calibration.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from lastword.gate.lexical import coverage, idf, terms
from lastword.result import GateSignals, RetrievedPassage
from lastword.settings import GateModel, Thresholds

#: passages the signals look at, whatever k the user asked for
DEPTH = 8


def combined_score(model: GateModel, features: Mapping[str, float]) -> float:
    """The logistic model's score for one question; a signal the model weighs must be present."""
    z = model.intercept + sum(getattr(model, name) * features[name] for name in model.weighed())
    return 1.0 / (1.0 + math.exp(-z)) if z > -500 else 0.0


def gate_signals(
    question: str,
    passages: Sequence[RetrievedPassage],
    thresholds: Thresholds,
    lexicon: tuple[int, Mapping[str, int]],
    top_document_text: str,
    maxsim: float | None = None,
) -> GateSignals:
    scores = [p.score for p in passages[:DEPTH]]
    top = scores[0] if scores else 0.0
    margin = top - scores[-1] if len(scores) > 1 else 0.0
    question_terms = terms(question)
    total, counts = lexicon
    weights = {t: idf(counts, total, t) for t in question_terms}
    cover = coverage(question_terms, weights, terms(top_document_text)) if scores else 0.0
    model = thresholds.model
    if model and "maxsim" in model.weighed() and maxsim is None and scores:
        raise ValueError("the gate model weighs maxsim, but no maxsim signal was computed")
    features = {"top": top, "margin": margin, "coverage": cover, "maxsim": maxsim or 0.0}
    score = combined_score(model, features) if model and scores else top
    return GateSignals(
        top_score=top,
        margin=margin,
        coverage=round(cover, 6),
        maxsim=None if maxsim is None else round(maxsim, 6),
        score=round(score, 6),
        signal="combined" if model else "cosine",
        strong=thresholds.strong,
        weak=thresholds.weak,
    )
