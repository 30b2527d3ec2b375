"""The corpus-relative gate signals (gate/transfer.py), by hand."""

from __future__ import annotations

import math

import pytest

from lastword.gate.transfer import agreement, placed, rare_cut, rare_share
from lastword.terms import idf


def test_placed_is_the_top_in_standard_deviations_above_the_background():
    assert placed(0.9, [0.4, 0.6]) == pytest.approx(4.0, rel=1e-4)  # mean 0.5, spread 0.1
    assert placed(0.5, [0.4, 0.6]) == pytest.approx(0.0, abs=1e-6)
    assert placed(0.9, [0.5]) == 0.0  # no background to place it against
    assert placed(0.9, []) == 0.0


def test_rare_share_weighs_only_the_rare_terms_unless_there_are_none():
    counts = {"statin": 1, "cholesterol": 500, "trial": 900}
    total = 1000
    weights = {t: idf(counts, total, t) for t in counts}
    cut = rare_cut(total)
    assert weights["statin"] >= cut > weights["cholesterol"]
    # The rare term present: all of the rare weight, whatever the common ones do.
    assert rare_share(weights, cut, {"statin"}) == 1.0
    assert rare_share(weights, cut, {"cholesterol", "trial"}) == 0.0
    # No rare term in the question: plain IDF-weighted coverage of all of them.
    common = {t: w for t, w in weights.items() if t != "statin"}
    share = rare_share(common, cut, {"cholesterol"})
    assert share == pytest.approx(common["cholesterol"] / sum(common.values()))
    assert rare_share({}, cut, {"x"}) == 0.0
    assert math.isfinite(cut)


def test_agreement_is_the_reciprocal_rank_among_the_lexical_documents():
    assert agreement("b", ["b", "a"]) == 1.0
    assert agreement("b", ["a", "c", "b"]) == pytest.approx(1 / 3)
    assert agreement("z", ["a", "b"]) == 0.0
    assert agreement("z", []) == 0.0
