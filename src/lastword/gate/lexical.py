"""A lexical signal for the gate: do the question's rarest terms occur where retrieval points?

An embedding finds passages *about the same thing*; an ablated question (its own paper gone)
still lands on a neighbour in the same field with a high cosine. What the neighbour lacks is
the question's specific terms: the drug, the condition, the cohort. The IDF-weighted share of
the question's terms that a passage contains separates those cases much better than cosine.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

_TOKEN = re.compile(r"[a-z0-9][a-z0-9\-']*[a-z0-9]|[a-z0-9]")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    whether among within without versus vs via per may might must shall also than
    patients patient study studies effect effects associated association use used using""".split()
)


def terms(text: str) -> set[str]:
    """Content terms of ``text``: lowercased words, stopwords and 1-character tokens removed."""
    return {t for t in _TOKEN.findall(text.lower()) if len(t) > 1 and t not in STOPWORDS}


def idf(term_counts: Mapping[str, int], total: int, term: str) -> float:
    """Smoothed inverse document frequency over passages; unseen terms weigh the most."""
    return math.log((total + 1) / (term_counts.get(term, 0) + 1)) + 1.0


def coverage(
    question_terms: set[str], weights: Mapping[str, float], passage_terms: Iterable[str]
) -> float:
    """IDF-weighted share of the question's terms found in a passage, in [0, 1]."""
    total = sum(weights[t] for t in question_terms)
    if total == 0:
        return 0.0
    present = question_terms.intersection(passage_terms)
    return sum(weights[t] for t in present) / total
