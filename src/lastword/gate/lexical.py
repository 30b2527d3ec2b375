"""A lexical signal for the gate: do the question's rarest terms occur where retrieval points?

An embedding finds passages *about the same thing*; an ablated question (its own paper gone)
still lands on a neighbour in the same field with a high cosine. What the neighbour lacks is
the question's specific terms: the drug, the condition, the cohort. The IDF-weighted share of
the question's terms that a passage contains separates those cases much better than cosine.
Tokenisation lives in ``lastword.terms``, shared with the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lastword.terms import STOPWORDS, idf, terms

__all__ = ["STOPWORDS", "coverage", "idf", "terms"]


def coverage(
    question_terms: set[str], weights: Mapping[str, float], passage_terms: Iterable[str]
) -> float:
    """IDF-weighted share of the question's terms found in a passage, in [0, 1]."""
    total = sum(weights[t] for t in question_terms)
    if total == 0:
        return 0.0
    present = question_terms.intersection(passage_terms)
    return sum(weights[t] for t in present) / total
