"""The gate's thresholds on the reader's answerability: the strictest corpus decides, and the
leave-one-corpus-out figures read each corpus with a threshold it had no part in."""

from __future__ import annotations

import pytest

from lastword.evaluate.reader_gate_fit import fit_gate, joint_weak, leave_one_out, rates, weak_for


def _corpus(positives: list[float], negatives: list[float]) -> list[tuple[float, bool]]:
    return [(p, True) for p in positives] + [(n, False) for n in negatives]


def test_the_weak_threshold_lets_through_at_most_the_target_share_of_unanswerable():
    scored = _corpus([0.9, 0.8, 0.7], [0.1 * i for i in range(20)])  # 0.0 .. 1.9 step 0.1
    weak = weak_for(scored, 0.05)
    let_through = sum(s >= weak for s, a in scored if not a)
    assert let_through <= 1  # 5% of 20
    assert weak_for(scored, 0.0) > max(s for s, a in scored if not a)


def test_the_strictest_corpus_decides():
    easy = _corpus([0.9] * 10, [0.1] * 20)
    hard = _corpus([0.9] * 10, [0.6] * 20)
    assert joint_weak({"easy": easy, "hard": hard}, 0.05) == pytest.approx(weak_for(hard, 0.05))


def test_leave_one_out_reads_each_corpus_with_the_others_threshold():
    fit = {
        "a": _corpus([0.9] * 10, [0.2] * 20),
        "b": _corpus([0.9] * 10, [0.5] * 20),
        "c": _corpus([0.9] * 10, [0.3] * 20),
    }
    held = {h.corpus: h for h in leave_one_out(fit, fit, 0.05)}
    assert held["b"].weak == pytest.approx(weak_for(fit["c"], 0.05))
    assert held["b"].false_accepts == 1.0  # b's negatives (0.5) pass c's threshold (0.3+)
    assert held["a"].false_accepts == 0.0 and held["a"].answered == 1.0
    gate = fit_gate({"fit": fit, "report": fit})
    assert gate["weak"] == pytest.approx(weak_for(fit["b"], 0.05), abs=1e-6)
    assert gate["strong"] >= gate["weak"]
    assert rates(fit["a"], gate["weak"]) == (1.0, 0.0)
