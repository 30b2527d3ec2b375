"""The retrieval gate: the top cosine score falls in a band; weak refuses before generation."""

from __future__ import annotations

from collections.abc import Sequence

from lastword.result import Band, GateSignals, RetrievedPassage
from lastword.settings import Thresholds


def band_for(top_score: float, thresholds: Thresholds) -> Band:
    if top_score >= thresholds.strong:
        return Band.STRONG
    if top_score >= thresholds.weak:
        return Band.BORDERLINE
    return Band.WEAK


def gate_signals(passages: Sequence[RetrievedPassage], thresholds: Thresholds) -> GateSignals:
    """The numbers the gate decides on, recorded in the result for calibration."""
    scores = [p.score for p in passages]
    top = scores[0] if scores else 0.0
    return GateSignals(
        top_score=top,
        margin=(top - scores[-1]) if len(scores) > 1 else None,
        strong=thresholds.strong,
        weak=thresholds.weak,
    )
