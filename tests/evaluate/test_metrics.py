"""Metrics on small hand-made score lists whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from lastword.evaluate import metrics


class TestRocAuc:
    def test_perfect_separation_is_one(self) -> None:
        assert metrics.roc_auc([0.7, 0.8, 0.9], [0.1, 0.2, 0.3]) == 1.0

    def test_reversed_separation_is_zero(self) -> None:
        assert metrics.roc_auc([0.1, 0.2], [0.8, 0.9]) == 0.0

    def test_textbook_example(self) -> None:
        # y = [0, 0, 1, 1], scores = [0.1, 0.4, 0.35, 0.8]: the classic 0.75.
        assert metrics.roc_auc([0.35, 0.8], [0.1, 0.4]) == pytest.approx(0.75)

    def test_ties_count_half(self) -> None:
        assert metrics.roc_auc([0.5], [0.5]) == 0.5
        # 0.5 vs {0.5, 0.2}: one tie (0.5) and one win (1) -> 0.75
        assert metrics.roc_auc([0.5], [0.5, 0.2]) == pytest.approx(0.75)

    def test_matches_pairwise_count(self) -> None:
        rng = np.random.default_rng(3)
        pos, neg = rng.normal(1, 1, 40).round(1), rng.normal(0, 1, 30).round(1)
        pairs = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
        assert metrics.roc_auc(pos, neg) == pytest.approx(pairs / (40 * 30))

    def test_needs_both_labels(self) -> None:
        with pytest.raises(ValueError, match="at least one positive and one negative"):
            metrics.roc_auc([0.5], [])

    def test_rejects_missing_scores(self) -> None:
        with pytest.raises(ValueError, match="non-finite"):
            metrics.roc_auc([0.5, float("nan")], [0.1])


class TestBootstrap:
    def test_perfect_separation_has_a_degenerate_interval(self) -> None:
        interval = metrics.bootstrap_auc([0.8, 0.9], [0.1, 0.2], resamples=200)
        assert (interval.estimate, interval.low, interval.high) == (1.0, 1.0, 1.0)

    def test_interval_brackets_estimate_and_is_reproducible(self) -> None:
        pos, neg = [0.35, 0.8, 0.6, 0.55, 0.7], [0.1, 0.4, 0.5, 0.2]
        first = metrics.bootstrap_auc(pos, neg, resamples=500, seed=7)
        again = metrics.bootstrap_auc(pos, neg, resamples=500, seed=7)
        assert first == again
        assert first.low <= first.estimate <= first.high
        assert first.high - first.low > 0.05  # nine points cannot pin an AUC down


class TestWilson:
    @pytest.mark.parametrize(
        ("k", "n", "low", "high"),
        [
            (0, 10, 0.0, 0.2775),
            (10, 10, 0.7225, 1.0),
            (5, 10, 0.2366, 0.7634),
            (1, 20, 0.0089, 0.2361),
        ],
    )
    def test_known_values(self, k: int, n: int, low: float, high: float) -> None:
        interval = metrics.wilson_interval(k, n)
        assert interval.estimate == k / n
        assert interval.low == pytest.approx(low, abs=1e-4)
        assert interval.high == pytest.approx(high, abs=1e-4)

    def test_bad_counts(self) -> None:
        with pytest.raises(ValueError, match="at least one trial"):
            metrics.wilson_interval(0, 0)
        with pytest.raises(ValueError, match=r"within 0\.\.3"):
            metrics.wilson_interval(4, 3)


class TestRates:
    def test_accept_is_at_or_above(self) -> None:
        negatives = [0.1, 0.2, 0.3, 0.4]
        assert metrics.false_accept_rate(negatives, 0.25) == 0.5
        assert metrics.false_accept_rate(negatives, 0.4) == 0.25
        assert metrics.false_accept_rate(negatives, 0.41) == 0.0
        assert metrics.kept_share([0.5, 0.6], 0.55) == 0.5


class TestThresholds:
    def test_zero_false_accept_sits_in_the_gap(self) -> None:
        pos, neg = [0.5, 0.7, 0.9], [0.2, 0.55]
        t = metrics.zero_false_accept_threshold(pos, neg)
        assert 0.55 < t <= 0.7
        assert t == 0.56  # the roundest number in the gap
        assert metrics.false_accept_rate(neg, t) == 0.0
        assert metrics.kept_share(pos, t) == pytest.approx(2 / 3)

    def test_zero_false_accept_when_a_negative_outscores_all(self) -> None:
        t = metrics.zero_false_accept_threshold([0.3, 0.4], [0.9])
        assert t > 0.9
        assert metrics.kept_share([0.3, 0.4], t) == 0.0

    def test_zero_false_accept_tight_gap(self) -> None:
        t = metrics.zero_false_accept_threshold([0.5001], [0.5])
        assert 0.5 < t <= 0.5001

    def test_target_rate_allows_floor_of_target_times_n(self) -> None:
        neg = [round(0.01 * i, 2) for i in range(1, 21)]  # 0.01 .. 0.20
        pos = [0.15, 0.25, 0.3]
        t = metrics.threshold_for_false_accept_rate(pos, neg, 0.05)  # one false accept allowed
        assert 0.19 < t <= 0.20
        assert metrics.false_accept_rate(neg, t) == 0.05
        assert metrics.kept_share(pos, t) == pytest.approx(2 / 3)

    def test_target_zero_equals_zero_false_accept_point(self) -> None:
        pos, neg = [0.5, 0.7, 0.9], [0.2, 0.55]
        assert metrics.threshold_for_false_accept_rate(pos, neg, 0.0) == (
            metrics.zero_false_accept_threshold(pos, neg)
        )

    def test_target_below_one_negative_allows_none(self) -> None:
        # 5% of 10 negatives is half a question: no false accept is allowed.
        neg = [0.1 * i for i in range(10)]
        t = metrics.threshold_for_false_accept_rate([0.95], neg, 0.05)
        assert metrics.false_accept_rate(neg, t) == 0.0

    def test_ties_never_exceed_the_target(self) -> None:
        neg = [0.5, 0.5, 0.1, 0.1]
        t = metrics.threshold_for_false_accept_rate([0.6], neg, 0.25)
        assert metrics.false_accept_rate(neg, t) == 0.0  # both 0.5s go together

    def test_target_one_accepts_everything(self) -> None:
        t = metrics.threshold_for_false_accept_rate([0.3], [0.1, 0.9], 1.0)
        assert t == 0.1

    def test_bad_target(self) -> None:
        with pytest.raises(ValueError, match=r"within 0\.\.1"):
            metrics.threshold_for_false_accept_rate([0.3], [0.1], 1.5)


class TestCurves:
    def test_roc_curve_runs_from_origin_to_one_one_and_integrates_to_auc(self) -> None:
        pos, neg = [0.35, 0.8, 0.6], [0.1, 0.4, 0.7]
        curve = metrics.roc_curve(pos, neg)
        assert (curve.x[0], curve.y[0]) == (0.0, 0.0)
        assert (curve.x[-1], curve.y[-1]) == (1.0, 1.0)
        area = sum(
            (x1 - x0) * y1 for x0, x1, y1 in zip(curve.x, curve.x[1:], curve.y[1:], strict=False)
        )
        assert area == pytest.approx(metrics.roc_auc(pos, neg))

    def test_risk_coverage(self) -> None:
        curve = metrics.risk_coverage([0.9, 0.6], [0.7, 0.1])
        # thresholds 0.9, 0.7, 0.6, 0.1 -> accepted 1, 2, 3, 4 of 4 with 0, 1, 1, 2 traps
        assert curve.x == (0.25, 0.5, 0.75, 1.0)
        assert curve.y == pytest.approx((0.0, 0.5, 1 / 3, 0.5))
        assert curve.thresholds == (0.9, 0.7, 0.6, 0.1)
