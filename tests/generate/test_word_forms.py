"""A question's words in the other forms a paper writes them: a compound's parts ("seropositive"
as "positive serologically"), a compound of two question words ("waterlogging" for "water
logging"), a hyphen dropped ("nontoxic" for "non-toxic"), and "took part" for "participated".
Real MiniLM for the generator's redundancy check; the shipped answer model."""

from __future__ import annotations

import pytest

from lastword.generate import answering, terms
from lastword.generate.answering import (
    FEATURES,
    Candidate,
    Coverage,
    QuestionProfile,
    candidate_features,
)
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.protocol import GenerationRequest
from lastword.generate.terms import compound_terms
from lastword.result import RetrievedPassage


@pytest.mark.parametrize(
    ("question_words", "sentence", "found"),
    [
        ({"seropositive", "coyotes"}, "Both coyotes were positive serologically.", {"seropo"}),
        ({"non-toxic", "dose"}, "The nontoxic dose was 135 mg.", {"non-to"}),
        ({"water", "logging"}, "Waterlogging tolerance of wheat.", {"water", "loggin"}),
        ({"children"}, "Viruses cause diarrhea in chil dren.", {"childr"}),
    ],
)
def test_a_compound_is_matched_by_its_parts_and_its_parts_by_the_compound(
    question_words, sentence, found
) -> None:
    assert compound_terms(frozenset(question_words), sentence) == found


@pytest.mark.parametrize(
    ("question_words", "sentence"),
    [
        # the head must be attested too: "positive" alone is not "seropositive"
        ({"seropositive"}, "They were positive for plague."),
        # parts shorter than four letters ("pre") are not read
        ({"pretreatment"}, "The previous treatment failed."),
        # a stop word is no part ("within" is not "with" + "in" ... nor "wheat" + "her")
        ({"wherein"}, "Where the plots were, in rows."),
        ({"seropositive"}, ""),
    ],
)
def test_parts_that_are_not_both_there_match_nothing(question_words, sentence) -> None:
    assert compound_terms(frozenset(question_words), sentence) == set()


def test_the_split_compound_raises_the_sentences_share_of_the_question(monkeypatch) -> None:
    profile = QuestionProfile.of("What were the trapped coyotes seropositive for?")
    split = Candidate(
        n=1,
        text="When tested serologically, both coyotes were positive for Bartonella spp.",
        passage_score=0.6,
    )
    other = Candidate(n=2, text="The coyotes were trapped near the park.", passage_score=0.6)
    words = FEATURES.index("words")
    with_parts = Coverage.of(profile, [split, other])
    assert "seropo" in with_parts.matched[0] and "seropo" not in with_parts.matched[1]
    monkeypatch.setattr(answering, "COMPOUNDS", False)
    without = Coverage.of(profile, [split, other])
    assert "seropo" not in without.matched[0]
    assert (
        candidate_features(profile, [split, other], with_parts)[0, words]
        > candidate_features(profile, [split, other], without)[0, words]
    )


def test_took_part_stands_for_participated() -> None:
    assert "partic" in terms.terms("How many patients took part in the focus groups?")
    assert "partic" in terms.terms("Fifteen participants attended.")
    assert "partic" not in terms.terms("The second part took longer.")


def passage(n: int, text: str) -> RetrievedPassage:
    return RetrievedPassage(
        n=n,
        passage_id=n,
        doc_id="hf",
        title="Heart failure",
        page=n,
        score=0.62,
        text=text,
        kind="body",
    )


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def test_the_sentence_that_says_took_part_follows_with_the_split(generator, monkeypatch) -> None:
    # DEV a45's shape: the split is stated where the paper says "participants took part", and
    # "split" and "patients" appear nowhere near it
    question = (
        "How many patients took part in the heart failure rehabilitation focus groups, and "
        "how were they split between the two hospitals?"
    )
    passages = (
        passage(
            1,
            "Focus groups were conducted with fifteen participants (men, n = 12) attending "
            "one of two heart failure rehabilitation programmes. The sessions lasted about "
            "ninety minutes.",
        ),
        passage(
            2,
            "Fifteen participants took part, seven from the rural hospital and eight from the "
            "urban hospital. The interviews were recorded and transcribed verbatim.",
        ),
        passage(
            3,
            "Diuretics were adjusted by the cardiology team at every visit. Blood pressure was "
            "measured twice in the sitting position. Exercise capacity improved after twelve "
            "weeks of training. Adherence to medication was assessed with a questionnaire. "
            "Anxiety and depression scores were recorded at baseline. Themes were coded by two "
            "researchers independently.",
        ),
    )
    request = GenerationRequest(question, passages, "corpus")
    draft = generator.generate(request)
    assert "fifteen participants" in draft.text
    assert "seven from the rural hospital and eight from the urban hospital" in draft.text
    monkeypatch.setattr(terms, "PHRASAL", False)
    assert "seven from the rural hospital" not in generator.generate(request).text


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [("MICs", "mic"), ("SNPs", "snp"), ("ESTs", "est"), ("MIC", "mic"), ("pups", "pups")],
)
def test_the_plural_of_a_short_form_is_the_short_form(word: str, stemmed: str) -> None:
    assert terms.stem(word) == stemmed


def test_what_mics_is_stated_by_the_mic(monkeypatch) -> None:
    """ "what MICs did the extracts give?" is stated by "(MIC value of 5 μL/mL ...)": the
    question's rarest word; without the rule the sentence does not state it."""
    profile_words = QuestionProfile.of("What MICs did the ethanolic and aqueous extracts give?")
    sentence = Candidate(
        n=1,
        text="Candida albicans was susceptible to both extracts (MIC value of 5 μL/mL).",
        passage_score=0.6,
    )
    assert "mic" in Coverage.of(profile_words, [sentence]).matched[0]
    monkeypatch.setattr(terms, "PLURALS", False)
    profile_words = QuestionProfile.of("What MICs did the ethanolic and aqueous extracts give?")
    sentence = Candidate(n=1, text=sentence.text, passage_score=0.6)
    assert not {"mic", "mics"} & Coverage.of(profile_words, [sentence]).matched[0]
