"""Sentence splitting, claim detection and refusal language (no model needed)."""

from __future__ import annotations

import pytest

from lastword.verify.declines import has_refusal_language, is_decline_statement
from lastword.verify.sentences import DraftSentence, is_claim, split_draft, split_line


def test_markers_after_the_full_stop_stay_with_their_sentence() -> None:
    assert split_line("Aspirin cut strokes. [2] Statins cut deaths [3]. Both were safe.") == [
        "Aspirin cut strokes. [2]",
        "Statins cut deaths [3].",
        "Both were safe.",
    ]


def test_abbreviations_and_decimals_do_not_split() -> None:
    text = (
        "Smith et al. found a 0.5 mg dose works, e.g. in adults (ref. 3). Vs. placebo it won [1]."
    )
    assert split_line(text) == [
        "Smith et al. found a 0.5 mg dose works, e.g. in adults (ref. 3).",
        "Vs. placebo it won [1].",
    ]
    # a synonym given in brackets (papers: ocimum_antimicrobial's O. africanum)
    synonym = "It was O. africanum (syn. O. citriodorum) in Africa [2]. Both grew."
    assert split_line(synonym) == [
        "It was O. africanum (syn. O. citriodorum) in Africa [2].",
        "Both grew.",
    ]


def test_list_items_and_headings_are_split_by_line() -> None:
    draft = (
        "## Findings\n- Aspirin cut strokes [2].\n- Statins cut deaths [3].\n1. Both were safe [2]."
    )
    sentences = split_draft(draft)
    assert [s.text for s in sentences] == [
        "Findings",
        "Aspirin cut strokes [2].",
        "Statins cut deaths [3].",
        "Both were safe [2].",
    ]
    assert sentences[0].heading and sentences[1].prefix == "- " and sentences[3].prefix == "1. "


def test_markers_alone_on_a_line_join_the_sentence_before() -> None:
    assert [s.text for s in split_draft("Aspirin cut strokes.\n[2]")] == [
        "Aspirin cut strokes. [2]"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Based on the passages:",
        "Here is what the passages say:",
        "Summary",
        "**Answer**",
        "The passages do not mention the dose.",
        "I cannot answer this from the provided passages.",
        "-",
    ],
)
def test_non_claims(text: str) -> None:
    assert not is_claim(DraftSentence(text, 0))


@pytest.mark.parametrize(
    "text",
    [
        "Aspirin reduces strokes.",
        "It works.",
        "Mortality was 12%:",  # a number makes it a claim whatever its shape
        "The passages do not say so, but aspirin cures cancer.",
        "There is insufficient evidence that vitamin C prevents colds.",
        "No evidence of liver toxicity was found.",
        "Yes, in adults over 65.",
    ],
)
def test_claims(text: str) -> None:
    assert is_claim(DraftSentence(text, 0))


@pytest.mark.parametrize(
    "text",
    [
        "The passages do not contain information about dosing.",
        "The provided passages don't address this question.",
        "I cannot answer this question.",
        "There is not enough information to answer.",
        "The context provides no information about children.",
        "The passages do not answer this question.",  # the extractive generator's words
    ],
)
def test_refusal_language(text: str) -> None:
    assert has_refusal_language(text)
    assert is_decline_statement(text)


def test_ordinary_negative_findings_are_not_refusals() -> None:
    for text in ("No evidence of liver toxicity was found.", "Aspirin did not reduce mortality."):
        assert not has_refusal_language(text)
