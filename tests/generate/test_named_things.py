"""An answer is about the thing the question names, not another member of its kind.

"What is the MIC of Ocimum micranthum leaf essential oil against Salmonella Typhimurium?" was
answered (papers u08, a false accept) from a sentence giving the MIC against *C. albicans*.
``generate/named.py`` reads the question's specific names (binomials, codes, languages, places);
the extractive generator does not quote a sentence that names another member of the kind in
their place, and the verifier drops such a claim from any generator's draft (step 7c).
"""

from __future__ import annotations

import pytest

from lastword.generate import extractive
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.named import named_things, substituted
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage
from lastword.settings import VerifySettings
from lastword.verify import OFF_QUESTION, verify_draft

MIC_QUESTION = (
    "What is the MIC of Ocimum micranthum leaf essential oil against Salmonella Typhimurium?"
)
ALBICANS = (
    "The MIC of the Ocimum micranthum leaf essential oil against C. albicans 3719 was 1250 μg/mL."
)
TYPHIMURIUM = (
    "The leaf essential oil of O. micranthum inhibited S. typhimurium ATCC 14028 at a minimal "
    "inhibitory concentration of 2500 μg/mL."
)
METHODS = "Plates were incubated at 37 °C for 24 h before the inhibition zones were read."


def passage(n: int, text: str) -> RetrievedPassage:
    return RetrievedPassage(
        n=n, passage_id=n, doc_id="ocimum", title="Ocimum micranthum", page=n, score=0.7, text=text
    )


def passages(*texts: str) -> tuple[RetrievedPassage, ...]:
    return tuple(passage(n, text) for n, text in enumerate(texts, start=1))


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def keys(question: str) -> list[tuple[str, str]]:
    return [(t.shape, t.key) for t in named_things(question)]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (MIC_QUESTION, [("binomial", "micranthum"), ("binomial", "typhimurium")]),
        ("How many kernels did Fusarium poae infect by day 7?", [("binomial", "poae")]),
        (
            "How much did the O. sanctum extract reduce H9N2 shedding?",
            [("binomial", "sanctum"), ("code", "h9n2")],
        ),
        ("What was the accuracy on the German test set?", [("language", "german")]),
        (
            "What is the prevalence of Salmonella on broiler farms in Haryana, India?",
            [("place", "haryan")],
        ),
        # "log10" is a unit, "Across sites" no binomial, a unit with a number no code
        ("Across sites, how many log10 CFU per 10mg did it remove?", []),
        # the question asks for a new member of the kind: its answer names one by design
        ("Which test organism was most susceptible to the Ocimum micranthum extracts?", []),
        ("Which language gave the best accuracy after German?", []),
    ],
)
def test_the_specific_things_a_question_names(question, expected) -> None:
    assert keys(question) == expected


def test_a_sentence_naming_another_member_in_place_of_the_asked_one_substitutes_it() -> None:
    things = named_things(MIC_QUESTION)
    assert [t.key for t in substituted(ALBICANS, things)] == ["typhimurium"]
    # the abbreviated genus and the lower-case serovar still name the asked organisms
    assert substituted(TYPHIMURIUM, things) == []
    # a sentence that names no organism at all is not judged
    assert substituted(METHODS, things) == []
    codes = named_things("How much did the vaccine reduce H9N2 shedding?")
    assert [t.key for t in substituted("Shedding of H5N1 fell by 2 log10 units.", codes)] == [
        "h9n2"
    ]
    # a code of another pattern is not a member of the same kind
    assert substituted("Shedding fell in the 33RE group by 2 log10 units.", codes) == []
    german = named_things("What was the accuracy on the German test set?")
    assert substituted("On the English test set the accuracy was 91.2%.", german)
    assert not substituted("On the German and English test sets it was 84.0% and 91.2%.", german)


def test_the_generator_does_not_answer_from_another_organism(generator) -> None:
    request = GenerationRequest(MIC_QUESTION, passages(ALBICANS, METHODS), "corpus")
    assert generator.generate(request).text == UNANSWERABLE
    extractive.NAMED_THINGS = False
    try:
        assert "C. albicans" in generator.generate(request).text  # what it said before the rule
    finally:
        extractive.NAMED_THINGS = True


def test_the_generator_picks_the_sentence_about_the_asked_organism(generator) -> None:
    request = GenerationRequest(MIC_QUESTION, passages(ALBICANS, TYPHIMURIUM, METHODS), "corpus")
    text = generator.generate(request).text
    assert "2500 μg/mL [2]" in text and "albicans" not in text


def test_the_verifier_drops_a_claim_about_another_organism(minilm) -> None:
    draft = (
        "Ocimum micranthum oil inhibited C. albicans 3719 at 1250 μg/mL [1]. "
        "Against S. typhimurium its MIC was 2500 μg/mL [2]."
    )
    v = verify_draft(
        draft, passages(ALBICANS, TYPHIMURIUM), minilm, VerifySettings(), question=MIC_QUESTION
    )
    assert [d.reason for d in v.dropped] == [OFF_QUESTION]
    assert "in place of the question's Salmonella Typhimurium" in v.dropped[0].detail
    assert v.supported and "2500" in v.answer and "albicans" not in v.answer
    alone = verify_draft(
        "Ocimum micranthum oil inhibited C. albicans 3719 at 1250 μg/mL [1].",
        passages(ALBICANS),
        minilm,
        VerifySettings(),
        question=MIC_QUESTION,
    )
    assert not alone.supported and [d.reason for d in alone.dropped] == [OFF_QUESTION]
