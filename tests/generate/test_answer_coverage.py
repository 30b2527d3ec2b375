"""Abbreviations a paper defines, spelled counts, and answers to questions that ask two things.

The generator learns a document's own short forms from the passages it retrieved, so a
sentence that writes "FCR" states the question's "feed conversion ratio" (and back). A question
that asks for two facts gets a second sentence when it states a part of the question the first
one does not. Real MiniLM for the redundancy check; no labels, no model beyond the shipped one.
"""

from __future__ import annotations

import pytest

from lastword.generate import extractive
from lastword.generate.abbreviations import (
    Abbreviations,
    find_abbreviations,
    long_form_for,
    question_initials,
)
from lastword.generate.answering import (
    FEATURES,
    Candidate,
    Coverage,
    QuestionProfile,
    candidate_features,
    specifics,
)
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage


def stem(word: str) -> str:
    return word.lower()[:6]


def test_definitions_are_read_both_ways_and_plurals_are_singular() -> None:
    found = find_abbreviations(
        [
            "Body weight gain and feed conversion ratio (FCR) improved in all groups.",
            "MNTC (maximum non-toxic concentration) was estimated. Toll-like receptors (TLRs) "
            "rose. Zearalenone (ZEA) was measured in maize.",
        ]
    )
    assert found.pairs == {
        "FCR": "feed conversion ratio",
        "MNTC": "maximum non-toxic concentration",
        "TLR": "Toll-like receptors",
        "ZEA": "Zearalenone",
    }


@pytest.mark.parametrize(
    "text",
    [
        "grown at 25 °C (Table 2) for ten days",
        "the pups (n = 12) were weighed",
        "yield rose (P < 0.05) in every plot",
        "as described earlier (ref. 17)",
        "the second phase (BLAST) aligns sequences",  # BLAST is not spelled by its neighbours
    ],
)
def test_parentheses_that_define_nothing_are_not_abbreviations(text: str) -> None:
    assert find_abbreviations([text]).pairs == {}


def test_the_long_form_is_no_longer_than_the_short_form_needs() -> None:
    assert long_form_for("FCR", "the mean body weight gain and feed conversion ratio") == (
        "feed conversion ratio"
    )
    assert long_form_for("XYZ", "nothing spells it here") is None


def test_a_sentence_writing_the_short_form_states_the_long_forms_words() -> None:
    found = find_abbreviations(["the feed conversion ratio (FCR) of each group"])
    assert found.expand("FCR: 1.70 in T6.", stem) == {"feed", "conver", "ratio"}
    assert found.expand("The feed conversion ratio was 1.70.", stem) == {"fcr"}
    assert found.expand("Body weight rose.", stem) == set()


def test_the_abbreviated_row_outscores_what_it_would_without_abbreviations() -> None:
    profile = QuestionProfile.of("What was the feed conversion ratio of the T6 group?")
    row = Candidate(n=2, text="Table 3 — Treatments: T6; FCR: 1.70.", passage_score=0.6)
    unrelated = Candidate(
        n=3, text="Blood samples were taken at the sixth week.", passage_score=0.6
    )
    words = FEATURES.index("words")
    learned = Coverage.of(profile, [row, unrelated])
    assert {"feed", "conver", "ratio"} <= learned.matched[0]
    without = Coverage.of(profile, [row, unrelated], Abbreviations())
    assert (
        candidate_features(profile, [row, unrelated], learned)[0, words]
        > (candidate_features(profile, [row, unrelated], without)[0, words])
    )


def test_a_short_form_spelling_the_questions_initials_stands_for_those_words() -> None:
    question = "What was the maximum non-toxic concentration of the leaf extracts in eggs?"
    found = question_initials(question, ["The MNTC dose (135 mg/0.1 ml) killed no embryo."])
    assert found == {"MNTC": "maximum non-toxic concentration"}
    # two letters, lower case words and codes with digits are not short forms of the question
    assert question_initials(question, ["The LE was high in H9N2 and in the eggs."]) == {}


def test_spelled_counts_answer_a_how_many_question() -> None:
    profile = QuestionProfile.of("How many participants took part in the focus groups?")
    spelled = Candidate(
        n=1, text="Fifteen participants took part in the focus groups.", passage_score=0.6
    )
    none = Candidate(n=1, text="The focus groups took part in a quiet room.", passage_score=0.6)
    missing = FEATURES.index("missing_number")
    rows = candidate_features(profile, [spelled, none])
    assert rows[0, missing] == 0.0 and rows[1, missing] == 1.0
    assert spelled.has_quantity and not none.has_quantity


def passage(n: int, text: str, score: float = 0.62) -> RetrievedPassage:
    return RetrievedPassage(
        n=n,
        passage_id=n,
        doc_id="hf",
        title="Heart failure rehabilitation",
        page=n,
        score=score,
        text=text,
        kind="body",
    )


QUESTION = (
    "How many patients took part in the heart failure rehabilitation focus groups, and how "
    "were they split between the two hospitals?"
)
METHODS = (
    "Focus groups were conducted with fifteen patients attending one of two heart failure "
    "rehabilitation programmes. The sessions lasted about ninety minutes."
)
SPLIT = (
    "The patients were split between the two hospitals: seven came from the rural hospital "
    "and eight from the urban one. Each session was recorded and transcribed verbatim."
)
ELSEWHERE = (
    "Diuretics were adjusted by the cardiology team. Blood pressure was measured at every visit."
)


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def test_a_second_sentence_is_quoted_for_the_part_of_the_question_the_first_leaves(
    generator,
) -> None:
    passages = (passage(1, METHODS), passage(2, SPLIT), passage(3, ELSEWHERE))
    draft = generator.generate(GenerationRequest(QUESTION, passages, "corpus"))
    assert "fifteen patients" in draft.text and "[1]" in draft.text
    assert "seven came from the rural hospital" in draft.text and "[2]" in draft.text
    assert "Diuretics" not in draft.text


def test_without_a_first_sentence_over_the_floor_no_follower_answers(generator) -> None:
    passages = (passage(1, SPLIT, score=0.3), passage(2, ELSEWHERE, score=0.3))
    draft = generator.generate(
        GenerationRequest("What dose of furosemide did the patients receive?", passages, "corpus")
    )
    assert draft.text == UNANSWERABLE


def test_specifics_are_the_numbers_or_names_asked_that_the_question_does_not_hold() -> None:
    how_many = QuestionProfile.of("How many of the 20 pens held broilers in 2019?")
    pens = Candidate(
        n=1, text="In 2019, twelve of the 20 pens held 40 broilers each.", passage_score=0.5
    )
    # "40 broilers each" counts broilers, which the question names, not the pens it counts
    assert specifics(pens, how_many) == {"twelve"}
    which = QuestionProfile.of("Which program does VESPA use for the selective pressure analysis?")
    named = Candidate(
        n=1, text="Selective pressure is assessed with codeML from PAML.", passage_score=0.5
    )
    assert specifics(named, which) == {"codeml", "paml"}


def test_a_compound_led_by_a_number_stands_for_its_rest() -> None:
    profile = QuestionProfile.of("How many day-old chicks were used?")
    chicks = Candidate(
        n=1, text="A total of 280-day-old broiler chicks were used.", passage_score=0.5
    )
    assert {"day-ol", "chicks"} <= Coverage.of(profile, [chicks]).matched[0]


@pytest.mark.parametrize(
    ("question", "specific"),
    [
        ("How many day-old chicks were used in the feeding trial?", True),
        ("Which licensed drugs served as drug controls?", True),
        ("Where was the H9N2 isolate obtained?", True),
        ("What was the maximum non-toxic concentration of the leaf extracts?", True),
        ("Do mitochondria play a role in remodelling lace plant leaves?", False),
        ("Did foliar phosphite change the protein content of wheat grain?", False),
        ("Why was the wheat cultivar replaced in the second season?", False),
    ],
)
def test_a_question_asks_a_specific_or_not(question: str, specific: bool) -> None:
    """The answer model was fitted on questions asking a number, a name or a place; a yes/no or
    why question asks none (the weak-band floor lets only the former through)."""
    assert QuestionProfile.of(question).asks_specific is specific


#: the first sentence again, with a number about what it already says ("men, n = 12")
RESTATED = (
    "The fifteen heart failure patients of the rehabilitation focus groups were mostly men "
    "(n = 12). The groups met once."
)
BREAKDOWN = (
    "Seven patients came from the rural hospital and eight from the urban hospital. "
    "Both groups met in the afternoon."
)


@pytest.mark.parametrize("uncovered", [True, False])
def test_a_new_number_about_what_is_answered_is_not_the_missing_part(
    generator, monkeypatch, uncovered: bool
) -> None:
    """Two-part question: a follower's new number counts only in a sentence that states a part
    of the question the answer does not cover yet ("hospitals"), not in one that restates the
    answered part with another figure ("n = 12"). Control: without the rule the restatement
    is quoted too."""
    monkeypatch.setattr(extractive, "UNCOVERED_SPECIFIC", uncovered)
    passages = (passage(1, METHODS), passage(2, RESTATED), passage(3, BREAKDOWN))
    text = generator.generate(GenerationRequest(QUESTION, passages, "corpus")).text
    assert "fifteen patients attending" in text
    assert "Seven patients came from the rural hospital" in text
    assert ("n = 12" in text) is not uncovered
