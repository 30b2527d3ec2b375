"""Score-separation metrics for a gate: ROC AUC, rates with intervals, thresholds, risk-coverage.

Everything takes plain score lists, so any score column works (top score, margin, a combined
signal). Convention throughout: a question is *accepted* when its score is at or above the
threshold (``score >= t``), which is how the retrieval gate reads its ``weak`` threshold.
Positives are answerable questions, negatives are questions that should be refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: below this many labelled negatives, reports say plainly that the intervals are wide
FEW_NEGATIVES = 30


def _array(scores: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    values = np.asarray(scores, dtype=np.float64).ravel()
    if values.size and not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains a missing or non-finite score")
    return values


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Probability that a random positive outscores a random negative (ties count one half).

    This is the Mann-Whitney form of the area under the ROC curve; it is exact, not a
    trapezoid approximation.
    """
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    if pos.size == 0 or neg.size == 0:
        raise ValueError("ROC AUC needs at least one positive and one negative score")
    combined = np.concatenate([pos, neg])
    ranks = _average_ranks(combined)
    rank_sum = ranks[: pos.size].sum()
    u = rank_sum - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(values.size, dtype=np.float64)
    start = 0
    while start < values.size:
        end = start
        while end + 1 < values.size and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    def describe(self, percent: bool = False) -> str:
        if percent:
            return f"{self.estimate:.1%} [{self.low:.1%}, {self.high:.1%}]"
        return f"{self.estimate:.3f} [{self.low:.3f}, {self.high:.3f}]"


def bootstrap_auc(
    positives: Sequence[float],
    negatives: Sequence[float],
    *,
    resamples: int = 2000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Interval:
    """ROC AUC with a percentile bootstrap interval, resampling positives and negatives apart."""
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    estimate = roc_auc(pos, neg)
    rng = np.random.default_rng(seed)
    samples = np.empty(resamples, dtype=np.float64)
    for i in range(resamples):
        samples[i] = roc_auc(
            pos[rng.integers(0, pos.size, pos.size)], neg[rng.integers(0, neg.size, neg.size)]
        )
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(samples, [tail, 1.0 - tail])
    return Interval(estimate, float(low), float(high))


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a proportion; sound at 0 and at n (unlike the normal one)."""
    if trials <= 0:
        raise ValueError("a rate needs at least one trial")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within 0..{trials}, got {successes}")
    z = _normal_quantile(0.5 + confidence / 2.0)
    p = successes / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def _normal_quantile(q: float) -> float:
    # Inverse of the standard normal CDF by bisection on erf: exact enough, no scipy needed.
    low, high = -10.0, 10.0
    for _ in range(100):
        mid = (low + high) / 2.0
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def accepted_count(scores: Sequence[float], threshold: float) -> int:
    return int(np.count_nonzero(_array(scores, "scores") >= threshold))


def false_accept_rate(negatives: Sequence[float], threshold: float) -> float:
    """Share of negatives the gate would let through at ``threshold``."""
    neg = _array(negatives, "negatives")
    if neg.size == 0:
        raise ValueError("a false-accept rate needs at least one negative")
    return accepted_count(neg, threshold) / neg.size


def kept_share(positives: Sequence[float], threshold: float) -> float:
    """Share of positives (answerable questions) the gate would answer at ``threshold``."""
    pos = _array(positives, "positives")
    if pos.size == 0:
        raise ValueError("a kept share needs at least one positive")
    return accepted_count(pos, threshold) / pos.size


def _threshold_above(level: float, scores: np.ndarray) -> float:
    """A readable threshold strictly above ``level`` and at or below the next score above it."""
    above = scores[scores > level]
    ceiling = float(above.min()) if above.size else level + 1e-3
    for digits in (2, 3, 4, 6):
        candidate = math.ceil((level + 1e-12) * 10**digits) / 10**digits
        if level < candidate <= ceiling:
            return candidate
    return (level + ceiling) / 2.0


def zero_false_accept_threshold(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The loosest threshold that accepts no negative: just above the highest negative score.

    Any threshold between the highest negative and the next positive score above it gives the
    same counts; this picks the roundest number in that gap.
    """
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    if neg.size == 0:
        raise ValueError("a zero-false-accept threshold needs at least one negative")
    return _threshold_above(float(neg.max()), np.concatenate([pos, neg]))


def threshold_for_false_accept_rate(
    positives: Sequence[float], negatives: Sequence[float], target: float
) -> float:
    """The loosest threshold whose false-accept rate is at most ``target``.

    With ``n`` negatives, at most ``floor(target * n)`` may score at or above the threshold,
    so the threshold sits just above the next negative in descending order. Ties can make the
    achieved rate lower than the target, never higher.
    """
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"target false-accept rate must be within 0..1, got {target}")
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    if neg.size == 0:
        raise ValueError("a threshold for a false-accept rate needs at least one negative")
    allowed = math.floor(target * neg.size + 1e-9)
    descending = np.sort(neg)[::-1]
    everything = np.concatenate([pos, neg])
    if allowed >= neg.size:
        return float(everything.min())
    return _threshold_above(float(descending[allowed]), everything)


@dataclass(frozen=True)
class Curve:
    x: tuple[float, ...]
    y: tuple[float, ...]
    thresholds: tuple[float, ...]


def roc_curve(positives: Sequence[float], negatives: Sequence[float]) -> Curve:
    """False-accept rate (x) against kept share (y), one point per distinct score, from (0, 0)."""
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    if pos.size == 0 or neg.size == 0:
        raise ValueError("a ROC curve needs at least one positive and one negative score")
    cuts = np.unique(np.concatenate([pos, neg]))[::-1]
    xs, ys, ts = [0.0], [0.0], [math.inf]
    for t in cuts:
        xs.append(float(np.count_nonzero(neg >= t) / neg.size))
        ys.append(float(np.count_nonzero(pos >= t) / pos.size))
        ts.append(float(t))
    return Curve(tuple(xs), tuple(ys), tuple(ts))


def risk_coverage(positives: Sequence[float], negatives: Sequence[float]) -> Curve:
    """Coverage (share of all questions accepted, x) against risk (share of accepted that are
    negatives, y), one point per distinct score, highest threshold first."""
    pos, neg = _array(positives, "positives"), _array(negatives, "negatives")
    total = pos.size + neg.size
    if total == 0:
        raise ValueError("a risk-coverage curve needs at least one score")
    cuts = np.unique(np.concatenate([pos, neg]))[::-1]
    xs, ys, ts = [], [], []
    for t in cuts:
        accepted_neg = np.count_nonzero(neg >= t)
        accepted = np.count_nonzero(pos >= t) + accepted_neg
        xs.append(float(accepted / total))
        ys.append(float(accepted_neg / accepted))
        ts.append(float(t))
    return Curve(tuple(xs), tuple(ys), tuple(ts))
