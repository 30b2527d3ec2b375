"""An age, a length or a percentage asked is stated by a number of that kind, not by a count.

"What was the mean age of the patients in the heart failure focus groups?" (papers u17, a
question the paper cannot answer) was answered with "Focus groups were conducted with fifteen
participants (men, n = 12) ...": a sentence that states a number, but a count, not an age.
"""

from __future__ import annotations

import pytest

from lastword.generate import extractive
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage

QUESTION = "What was the mean age of the patients in the heart failure focus groups?"
COUNT = (
    "Focus groups were conducted with fifteen patients (men, n = 12) attending one of two heart "
    "failure rehabilitation programmes."
)
AGE = "The mean age of the patients in the focus groups was 71 years."
METHODS = "Each focus group lasted about an hour and was recorded and transcribed verbatim."


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def ask(generator: ExtractiveGenerator, question: str, *texts: str) -> str:
    passages = tuple(
        RetrievedPassage(
            n=n, passage_id=n, doc_id="hf", title="Heart failure", page=n, score=0.7, text=text
        )
        for n, text in enumerate(texts, start=1)
    )
    return generator.generate(GenerationRequest(question, passages, "corpus")).text


def test_a_count_does_not_state_an_age(generator):
    assert ask(generator, QUESTION, COUNT, METHODS) == UNANSWERABLE


def test_an_age_is_quoted_when_a_sentence_states_one(generator):
    answer = ask(generator, QUESTION, COUNT, AGE, METHODS)
    assert "71 years" in answer


def test_without_the_rule_the_count_is_quoted(generator, monkeypatch):
    monkeypatch.setattr(extractive, "TYPED_KINDS", False)
    assert "fifteen patients" in ask(generator, QUESTION, COUNT, METHODS)


def test_how_many_is_still_answered_by_a_count(generator):
    answer = ask(generator, "How many patients took part in the heart failure focus groups?", COUNT)
    assert "fifteen patients" in answer


LADDER = (
    "PCR products were loaded on 1% agarose gel along with 100 bp molecular size DNA ladder "
    "(Fermentas, Lithuania)."
)
FRAGMENT = "A 261 bp fragment of the hexon gene was amplified by PCR with specific primers."


def test_a_size_standard_is_not_a_length_stated(monkeypatch) -> None:
    """ "100 bp ... DNA ladder" names the marker run beside the samples, not the product's
    length (papers a31, DEV: it outranked "A 261 bp fragment ..." for "how long was the
    product?"). Control: without the rule the ladder's 100 counts."""
    from lastword.generate import quantities

    length = frozenset({"length"})
    assert quantities.numbers_of_kinds(LADDER, length) == set()
    assert quantities.numbers_of_kinds(FRAGMENT, length) == {"261"}
    assert quantities.numbers_of_kinds("The 1 kb marker and a 750 bp band.", length) == {"750"}
    monkeypatch.setattr(quantities, "SIZE_STANDARDS", False)
    assert quantities.numbers_of_kinds(LADDER, length) == {"100"}


@pytest.mark.parametrize("rule", [True, False])
def test_how_long_was_the_product_is_answered_by_the_fragment_not_the_ladder(
    generator, monkeypatch, rule: bool
) -> None:
    """Control: without the rule the ladder follows as a second length."""
    from lastword.generate import quantities

    monkeypatch.setattr(quantities, "SIZE_STANDARDS", rule)
    text = ask(
        generator, "How long was the hexon gene product amplified by the PCR?", LADDER, FRAGMENT
    )
    assert text.startswith("A 261 bp fragment")
    assert ("ladder" in text) is not rule


TWO_PLANTS = (
    "Two herbal plants, Ocimum sanctum and Acacia arabica, were taken up to study their "
    "non-toxic antiviral activity in chicken eggs."
)
DOSE = "The non-toxic concentration of the extracts in chicken eggs was 135 mg per egg."


@pytest.mark.parametrize("rule", [True, False])
def test_a_concentration_asked_is_not_stated_by_a_spelled_count(
    generator, monkeypatch, rule: bool
) -> None:
    """ "What was the maximum non-toxic concentration ...?" (papers a07, DEV) opened with "two
    herbal plants": a concentration, a dose, an MIC is written in figures. Control: without the
    rule the count opens the answer."""
    monkeypatch.setattr(extractive, "TYPED", extractive.TYPED if rule else frozenset())
    question = (
        "What was the maximum non-toxic concentration of the Ocimum sanctum and Acacia arabica "
        "extracts in chicken eggs?"
    )
    text = ask(generator, question, TWO_PLANTS, DOSE)
    assert text.startswith("The non-toxic concentration") is rule
