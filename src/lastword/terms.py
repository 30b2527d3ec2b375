"""Words of a text, shared by the store (its lexicon) and the gate (its lexical signal).

A neutral module: the store counts terms for IDF and the gate weighs them, and neither imports
the other. The lexical index's own tokenisation (``store/lexical.py``) builds on ``terms``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

TOKEN = re.compile(r"[a-z0-9][a-z0-9\-']*[a-z0-9]|[a-z0-9]")

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
    return {t for t in TOKEN.findall(text.lower()) if len(t) > 1 and t not in STOPWORDS}


def idf(term_counts: Mapping[str, int], total: int, term: str) -> float:
    """Smoothed inverse document frequency over passages; unseen terms weigh the most."""
    return math.log((total + 1) / (term_counts.get(term, 0) + 1)) + 1.0
