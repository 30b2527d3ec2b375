"""Grading rules, one per outcome."""

from __future__ import annotations

import pytest

from lastword.evaluate.evalset import EvalItem
from lastword.evaluate.grading import Grade, document_matches, grade
from lastword.result import Mechanism

from .conftest import answered, blocked, refused


def scenario(**fields) -> EvalItem:
    return EvalItem(id="s", question="q", kind="scenario", **fields)


def trap(assigned: str = "retrieval_gate", **fields) -> EvalItem:
    return EvalItem(id="t", question="q", kind="trap", assigned=assigned, **fields)


@pytest.mark.parametrize(
    ("score", "expected"), [(0.8, Grade.STRONG), (0.5, Grade.ADEQUATE), (0.3, Grade.WEAK)]
)
def test_scenario_grade_follows_band(score: float, expected: Grade) -> None:
    graded = grade(scenario(), answered("q", score))
    assert graded.grade is expected
    assert graded.passed is True
    assert graded.fired is None
    assert graded.drew_on == ("d1",)


def test_scenario_missing_expected_document_drops_one_step() -> None:
    assert grade(scenario(expected_docs=("d1",)), answered("q", 0.8, "d1")).grade is Grade.STRONG
    missed = grade(scenario(expected_docs=("d7",)), answered("q", 0.8, "d1"))
    assert missed.grade is Grade.ADEQUATE
    assert missed.expected_hit is False


def test_scenario_failures_and_block() -> None:
    assert grade(scenario(), answered("q", 0.8, phantoms=1)).grade is Grade.PHANTOM
    false_refusal = grade(scenario(), refused("q", 0.3, Mechanism.RETRIEVAL_GATE))
    assert (false_refusal.grade, false_refusal.passed) == (Grade.REFUSED, False)
    assert false_refusal.fired == "retrieval_gate"
    upstream = grade(scenario(), blocked("q", 0.7))
    assert (upstream.grade, upstream.passed) == (Grade.BLOCKED, None)


def test_trap_refused_by_any_mechanism_is_declined() -> None:
    for by in (Mechanism.SCOPE_GUARD, Mechanism.RETRIEVAL_GATE, Mechanism.VERIFIER):
        graded = grade(trap(), refused("q", 0.3, by))
        assert (graded.grade, graded.passed, graded.fired) == (Grade.DECLINED, True, by.value)


def test_trap_answered_with_or_without_the_bait() -> None:
    baited = trap("generator", bait=(r"\d+\s*IU",))
    took_it = grade(baited, answered("q", 0.7, answer="Take 800 iu daily [1]."))
    assert (took_it.grade, took_it.bait_found) == (Grade.FOOLED, (r"\d+\s*IU",))
    sidestep = grade(baited, answered("q", 0.7, answer="The trial did not test fractures [1]."))
    assert (sidestep.grade, sidestep.passed) == (Grade.SIDESTEPPED, True)
    # no bait named: answering a trap at all is being fooled
    assert grade(trap(), answered("q", 0.7)).grade is Grade.FOOLED
    # a phantom sinks even an answer that avoided the bait
    assert grade(baited, answered("q", 0.7, phantoms=1)).grade is Grade.PHANTOM


def test_document_matching_accepts_file_names_of_path_ids() -> None:
    assert document_matches("12345", "12345")
    assert document_matches("vit-d.md", "/corpus/demo/vit-d.md")
    assert document_matches("vit-d", "/corpus/demo/vit-d.md")
    assert not document_matches("vit", "/corpus/demo/vit-d.md")
    assert not document_matches("123", "12345")
