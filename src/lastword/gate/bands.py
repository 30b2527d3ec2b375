"""The retrieval gate: the gate score falls in a band; weak refuses before generation."""

from __future__ import annotations

from lastword.result import Band
from lastword.settings import Thresholds


def band_for(score: float, thresholds: Thresholds) -> Band:
    if score >= thresholds.strong:
        return Band.STRONG
    if score >= thresholds.weak:
        return Band.BORDERLINE
    return Band.WEAK
