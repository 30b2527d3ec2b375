"""Numbers: extraction, normalisation, units, ranges and rounding (no model needed)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from lastword.verify.numbers import extract_quantities, missing_quantities


def _values(text: str) -> list[tuple[str, str | None]]:
    return [(format(q.value.normalize(), "f"), q.unit) for q in extract_quantities(text)]


@pytest.mark.parametrize(
    ("sentence", "passage"),
    [
        ("1,000 patients", "a cohort of 1000 patients"),
        ("1000 patients", "a cohort of 1,000 patients"),
        ("50 % responded", "50% responded"),
        ("50% responded", "50 per cent responded"),
        ("a dose of 5 mg", "5mg daily"),
        ("10mg/kg", "10 mg/kg over 30 minutes"),
        ("p < .05", "p < 0.05"),
        ("a mean of 2.5", "a mean of 2.50"),
        ("for 12 weeks", "a 12-week trial"),
        ("from 10 to 20 mg", "doses of 10-20 mg"),
        ("5 mg/kg", "0.03, 5 and 10 mg/kg"),
        ("a 33% reduction", "a 33.3% reduction"),
        ("in 2011", "published in 2011"),
        ("12 patients", "12 patients (8 men)"),
        ("623 mL of drainage", "1010 +/- 49.9 mL vs 623 +/- 41.3 mL"),
        ("a mean of 113 mg/dL", "fibrinogen, 113 ± 56.3 mg/dL"),
    ],
)
def test_equivalent_forms_are_found(sentence: str, passage: str) -> None:
    assert missing_quantities(sentence, [passage]) == []


@pytest.mark.parametrize(
    ("sentence", "passage", "missing"),
    [
        ("a dose of 50 mg", "a dose of 5 mg", "50 mg"),
        ("5 mg daily", "5 g daily", "5 mg"),
        ("5 mg daily", "5 patients", "5 mg"),
        ("reduced by 40%", "reduced by 4%", "40%"),
        ("2 mg", "1.8 mg", "2 mg"),  # one significant digit is not a rounding of 1.8
        ("in 1999", "in 1998", "1999"),
    ],
)
def test_numbers_not_in_the_passage_are_reported(sentence: str, passage: str, missing: str) -> None:
    assert [q.text for q in missing_quantities(sentence, [passage])] == [missing]


def test_identifiers_glued_to_letters_are_not_numbers() -> None:
    assert _values("CD4 cells, H1N1 and p53 in β2 receptors") == []


def test_units_are_canonical() -> None:
    assert _values("5 milligrams, 3 hours, 2 hrs, 50 percent, 7 µg") == [
        ("5", "mg"),
        ("3", "h"),
        ("2", "h"),
        ("50", "%"),
        ("7", "ug"),
    ]


def test_a_year_never_takes_a_unit_from_a_following_number() -> None:
    assert _values("In 2011, 5% of patients") == [("2011", None), ("5", "%")]


def test_any_cited_passage_may_hold_the_number() -> None:
    assert missing_quantities("12 mg and 30%", ["12 mg", "rose by 30%"]) == []


def test_values_compare_as_numbers() -> None:
    assert extract_quantities("2.50")[0].value == Decimal("2.5")
