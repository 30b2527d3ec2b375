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
- ``placed``, ``rare``, ``agreement``: signals placed against the corpus and the question
  themselves, so they keep their meaning on a corpus the model was not fitted on (see
  ``gate/transfer.py``). ``placed`` and ``agreement`` read more of the retrieval than its top
  passages (the dense background, the lexical top documents), given only when the model
  weighs them.
- ``specific``: the best passage's share of the question's terms, each weighted by its IDF and
  by how rare it is inside the top document (``gate/specific.py``): not in the logistic score;
  below weak, the gate lets a question through when it clears ``[gate] specific_floor``
  (``gate/bands.py``).

With a ``GateModel`` for the embedder the gate score is a logistic combination of these;
without, it is the top cosine score. Calibration: docs/calibration.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from lastword.gate.lexical import coverage, idf, terms
from lastword.gate.specific import specific
from lastword.gate.transfer import agreement, placed, rare_cut, rare_share
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
    background: Sequence[float] | None = None,
    lexical_docs: Sequence[str] | None = None,
    specific_min_passages: int = 1,
) -> GateSignals:
    """``background``: the dense cosines at ranks 9 to 50; ``lexical_docs``: the lexical top
    documents, best first. Each is None when retrieval did not gather it.
    ``specific_min_passages``: ``specific`` only when the top document has that many passages."""
    scores = [p.score for p in passages[:DEPTH]]
    top = scores[0] if scores else 0.0
    margin = top - scores[-1] if len(scores) > 1 else 0.0
    question_terms = terms(question)
    total, counts = lexicon
    weights = {t: idf(counts, total, t) for t in question_terms}
    blocks = [terms(block) for block in top_document_text.split("\n\n")] if scores else []
    cover = coverage(question_terms, weights, set().union(*blocks)) if scores else 0.0
    held = None
    if scores and len(blocks) >= specific_min_passages:
        held = specific(weights, blocks, [terms(p.text) for p in passages[:DEPTH]])
    top_passage = f"{passages[0].title}\n{passages[0].text}" if scores else ""
    rare = rare_share(weights, rare_cut(total), terms(top_passage)) if scores else 0.0
    place = None if background is None else placed(top, background)
    agree = None
    if lexical_docs is not None:
        agree = agreement(passages[0].doc_id, lexical_docs) if scores else 0.0
    model = thresholds.model
    given = {"maxsim": maxsim, "placed": place, "agreement": agree}
    for name, value in given.items():
        if model and name in model.weighed() and value is None and scores:
            raise ValueError(f"the gate model weighs {name}, but no {name} signal was computed")
    features = {
        "top": top,
        "margin": margin,
        "coverage": cover,
        "rare": rare,
        **{name: value or 0.0 for name, value in given.items()},
    }
    score = combined_score(model, features) if model and scores else top
    return GateSignals(
        top_score=top,
        margin=margin,
        coverage=round(cover, 6),
        maxsim=None if maxsim is None else round(maxsim, 6),
        placed=None if place is None else round(place, 6),
        rare=round(rare, 6),
        agreement=None if agree is None else round(agree, 6),
        specific=None if held is None else round(held, 6),
        score=round(score, 6),
        signal="combined" if model else "cosine",
        ranking=thresholds.ranking,
        strong=thresholds.strong,
        weak=thresholds.weak,
    )
