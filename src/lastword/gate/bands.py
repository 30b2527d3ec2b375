"""The retrieval gate: the gate score falls in a band; weak refuses before generation.

One second way through (``lets_through``): a question whose score is below weak, but within
``reach`` (log-odds) of it, is borderline when one of its top passages holds what it asks
specifically (``GateSignals.specific`` at or above ``floor``; ``gate/specific.py``). On real
papers most answerable questions the score refused are of this kind: the document is the right
one, the whole of it scores like a neighbour, and one passage holds the question's own terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lastword.result import Band
from lastword.settings import Thresholds


def band_for(score: float, thresholds: Thresholds) -> Band:
    if score >= thresholds.strong:
        return Band.STRONG
    if score >= thresholds.weak:
        return Band.BORDERLINE
    return Band.WEAK


def below_weak(weak: float, reach: float) -> float:
    """The gate score ``reach`` log-odds below ``weak`` (both on the 0-1 scale): the lowest a
    second way through below weak looks at."""
    w = min(max(weak, 1e-6), 1 - 1e-6)
    return 1.0 / (1.0 + math.exp(-(math.log(w / (1 - w)) - reach)))


@dataclass(frozen=True)
class SpecificRule:
    """``[gate] specific_floor`` and ``specific_reach``."""

    floor: float
    reach: float
    #: the top document's passages at least (``[gate] specific_min_passages``): else the
    #: signal is not computed and the rule does not apply
    min_passages: int = 1

    def low(self, weak: float) -> float:
        """The lowest gate score the rule lets through, for a weak threshold on the 0-1 scale."""
        return below_weak(weak, self.reach)

    def lets_through(self, score: float, held: float | None, thresholds: Thresholds) -> bool:
        """A weak-band question the rule lets through (only with a gate model: its 0-1 score;
        ``held`` None: not computed, the top document is too short)."""
        if thresholds.model is None or held is None or score >= thresholds.weak:
            return False
        return held >= self.floor and score >= self.low(thresholds.weak)
