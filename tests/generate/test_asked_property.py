"""The answer states what was asked: the property of a yes/no question, the place of a "where".

A yes/no question's answer must state the property it asks about (``names_attribute``).

"Did foliar Nutri-phite application change the protein content of winter wheat grain?" was
answered from a sentence about grain yield and quality that never says protein (papers u12).
The generator now declines it, and still answers when a sentence states the property.
"""

from __future__ import annotations

import pytest

from lastword.generate import answering, extractive
from lastword.generate.answering import Candidate, QuestionProfile, places
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.generate.question_kinds import asked_attribute
from lastword.result import RetrievedPassage

QUESTION = "Did foliar Nutri-phite application change the protein content of winter wheat grain?"
YIELD = (
    "In both years, foliar Nutri-phite application on winter wheat resulted in higher grain "
    "yield and better grain quality than the nontreated plots."
)
METHODS = "Plots were sown in October at 90 kg seed per hectare. Weeds were controlled by hand."
PROTEIN = (
    "Grain protein content of winter wheat did not differ between foliar Nutri-phite and the "
    "nontreated plots in either year."
)


def passage(n: int, text: str) -> RetrievedPassage:
    return RetrievedPassage(
        n=n, passage_id=n, doc_id="wheat", title="Phosphite", page=n, score=0.7, text=text
    )


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def ask(generator: ExtractiveGenerator, question: str, *texts: str) -> str:
    passages = tuple(passage(n, text) for n, text in enumerate(texts, start=1))
    return generator.generate(GenerationRequest(question, passages, "corpus")).text


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        (QUESTION, "protein content"),
        (
            "Did post-trial plasma oxytocin differ between grey seal pups paired with familiar "
            "animals and those paired with strangers?",
            "post-trial plasma oxytocin",
        ),
        (
            "Does KOLIN PLUS reduce Campylobacter colonisation in the caeca?",
            "Campylobacter colonisation",
        ),
        ("Is the CSF lactate level increased in bacterial meningitis?", "CSF lactate level"),
        # "alternative" is not "alter"; "changes" after "the" is a noun, not the verb
        ("Is primary angioplasty an acceptable alternative to thrombolysis?", ""),
        ("Is there a role for endothelin-1 in the hemodynamic changes during dialysis?", ""),
        # not a yes/no question
        ("How much did Nutri-phite change grain yield?", ""),
    ],
)
def test_the_property_a_yes_no_question_asks_about(question, attribute) -> None:
    assert asked_attribute(question) == attribute


def test_measure_words_alone_name_no_property_to_check() -> None:
    assert QuestionProfile.of(QUESTION).attribute == {"protei", "conten"}
    # "the quality of ...": nothing but a measure word is left, so no rule applies
    assert QuestionProfile.of("Does a coordinator improve the quality of discharge?").attribute == (
        frozenset()
    )


def test_a_sentence_about_another_property_does_not_answer(generator) -> None:
    # the subject matches (Nutri-phite, winter wheat, grain) but protein is never stated
    assert ask(generator, QUESTION, YIELD, METHODS) == UNANSWERABLE


def test_without_the_rule_the_other_property_would_be_quoted(generator, monkeypatch) -> None:
    """The control: the yield sentence is on the subject and clears the relevance floor."""
    monkeypatch.setattr(extractive, "ASKED_ATTRIBUTE", False)
    assert "grain quality" in ask(generator, QUESTION, YIELD, METHODS)


def test_the_sentence_that_states_the_property_answers(generator) -> None:
    text = ask(generator, QUESTION, YIELD, METHODS, PROTEIN)
    assert text != UNANSWERABLE
    assert "protein content" in text and "[3]" in text


def test_a_question_about_a_subject_property_is_answered_when_stated(generator) -> None:
    text = ask(
        generator,
        "Did post-trial plasma oxytocin differ between pups paired with familiar animals and "
        "those paired with strangers?",
        "Pups paired with familiar animals showed fewer aggressive interactions. Post-trial "
        "plasma oxytocin concentrations did not differ between familiar and stranger trials.",
    )
    assert "oxytocin" in text


# ---- "where" asks for a place, and a place is a name (``answering.places``)

WHERE = "Where was the H9N2 isolate used in the antiviral study obtained?"


@pytest.mark.parametrize(
    ("sentence", "found"),
    [
        (
            "The H9N2 virus was collected from one of the major water bodies of Maharashtra "
            "state, India.",
            {"mahara"},
        ),
        ("Samples came from Iran, China and India.", {"iran"}),
        ("Titres are shown in Figure 3.", set()),
        ("Eggs were incubated in March.", set()),
    ],
)
def test_the_places_a_sentence_names(sentence, found) -> None:
    assert places(Candidate(1, sentence, 0.5), QuestionProfile.of(WHERE)) == found


def test_a_where_question_is_answered_by_the_sentence_that_names_the_place(generator) -> None:
    other = (
        "The H9N2 isolate was propagated in ten-day-old embryonated eggs for the antiviral "
        "study. Allantoic fluid was harvested after 72 hours."
    )
    source = (
        "The H9N2 isolate was obtained from one of the major water bodies of Maharashtra "
        "state during surveillance."
    )
    relevance = {}
    for rule in (False, True):
        answering.PLACE_AS_NAME = rule
        try:
            passages = (passage(1, other), passage(2, source))
            relevance[rule] = generator.best(GenerationRequest(WHERE, passages, "corpus"))
            text = generator.generate(GenerationRequest(WHERE, passages, "corpus")).text
        finally:
            answering.PLACE_AS_NAME = True
    assert "Maharashtra" in text.split(" [")[0]
    # naming the place raises the relevance the gate's evidence check compares
    assert relevance[True] > relevance[False]


# ---- the verifier holds every generator's draft to the same rule (step 7b)


def test_the_verifier_drops_a_draft_that_never_states_the_asked_property(minilm) -> None:
    from lastword.settings import VerifySettings
    from lastword.verify import OFF_QUESTION, verify_draft

    passages = (passage(1, YIELD), passage(2, PROTEIN))
    # a model's draft, quoted verbatim from passage 1: supported, on the subject, but it never
    # says protein
    off = verify_draft(
        "Foliar Nutri-phite application on winter wheat resulted in higher grain yield and "
        "better grain quality than the nontreated plots [1].",
        passages,
        minilm,
        VerifySettings(),
        question=QUESTION,
    )
    assert not off.supported and off.answer == ""
    assert [d.reason for d in off.dropped] == [OFF_QUESTION]
    assert "protei" in off.dropped[0].detail
    # the same draft without the question, and a draft that states the property, are kept
    assert verify_draft(
        "Foliar Nutri-phite application on winter wheat resulted in higher grain yield and "
        "better grain quality than the nontreated plots [1].",
        passages,
        minilm,
        VerifySettings(),
    ).supported
    on = verify_draft(
        "Grain protein content of winter wheat did not differ between foliar Nutri-phite and "
        "the nontreated plots in either year [2].",
        passages,
        minilm,
        VerifySettings(),
        question=QUESTION,
    )
    assert on.supported and "protein" in on.answer
