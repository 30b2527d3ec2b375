"""Gate signals that mean the same thing on any corpus (issue 12, item 3).

A cosine of 0.70 is a strong match in one corpus and a neighbour's in another: short claims
score lower than PubMedQA's long questions, a corpus of one field scores higher than a mixed
one. Each signal here is placed against something the same corpus and the same question
provide, so its scale does not move with the corpus:

- ``placed``: the top cosine as standard deviations above the question's own background, the
  cosines of the dense ranks just below what the gate reads (``retrieve.BACKGROUND``: ranks 9
  to 50, kept by ``retrieve(..., context=True)``).
  Excluding a question's paper drops the top score; it barely moves that background.
- ``rare_share``: the IDF-weighted share of the question's *rare* terms (found in under
  ``RARE_DF`` of the passages) that the top passage (with its title) contains. A neighbour in
  the same field shares the field's words; it lacks the drug, the gene, the cohort.
- ``agreement``: where the dense top document stands among the lexical (BM25) top documents,
  as 1 / rank (0 when absent). When two unrelated retrievers land on the same paper, it is
  rarely by accident.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

#: a term found in fewer than this share of the passages is rare
RARE_DF = 0.01
#: lexical documents the agreement signal looks through
AGREEMENT_DEPTH = 50


def placed(top: float, background: Sequence[float]) -> float:
    """``top`` in standard deviations above the mean of ``background``; 0 when it has < 2."""
    if len(background) < 2:
        return 0.0
    mean = sum(background) / len(background)
    spread = math.sqrt(sum((s - mean) ** 2 for s in background) / len(background))
    return (top - mean) / (spread + 1e-6)


def rare_cut(total: int) -> float:
    """The IDF (as ``lastword.terms.idf`` computes it) at or above which a term is rare."""
    return math.log((total + 1) / (RARE_DF * total + 1)) + 1.0


def rare_share(weights: Mapping[str, float], cut: float, passage_terms: Iterable[str]) -> float:
    """IDF-weighted share of the question's rare terms in a passage, in [0, 1].

    ``weights``: each question term's IDF. A question with no rare term falls back to all of
    its terms (plain coverage), so the signal always says something.
    """
    rare = {t: w for t, w in weights.items() if w >= cut} or dict(weights)
    total = sum(rare.values())
    if total == 0:
        return 0.0
    present = set(passage_terms)
    return sum(w for t, w in rare.items() if t in present) / total


def agreement(top_doc: str, lexical_docs: Sequence[str]) -> float:
    """1 / rank of ``top_doc`` among the lexical top documents (best first); 0 when absent."""
    for rank, doc in enumerate(lexical_docs[:AGREEMENT_DEPTH], start=1):
        if doc == top_doc:
            return 1.0 / rank
    return 0.0
