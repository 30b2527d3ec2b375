"""A number answers only when it measures what was asked (``quantities.py``, ``extractive.py``).

Sentences from the real papers (an adenovirus survey, a fanged-frog description, a review of
ACC deaminase, a grey seal study). Each was quoted as an answer before these rules: "10% of all
hospital admissions" for how many children needed intensive care (papers u26, a question the
paper cannot answer), "at least 15 species" for how many specimens (a44), "by 60–90%" for by
what factor (a24), "lose up to 40 % of their body mass" for the minimum body mass (a50).
"""

from __future__ import annotations

import pytest

from lastword.generate import extractive, quantities
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage

ICU = "How many of the adenovirus-positive children needed intensive care admission?"
SHARE = (
    "Though it seldom causes death in developed countries, it puts a heavy burden on the health "
    "care system, as it accounts for 10% of all hospital admissions for children under the age "
    "of 5 years."
)
TYPES = (
    "The present study showed that a small proportion of cases (5%) were attributable to "
    "adenoviruses types 40 and 41, a fact that would be leading in the above-mentioned issues."
)
ADMITTED = (
    "Of the adenovirus-positive children, 9 needed intensive care admission because of severe "
    "dehydration."
)
SPECIMENS = (
    "How many specimens, from how many localities, were examined to describe the new "
    "tadpole-bearing Limnonectes species?"
)
SPECIES = (
    "This is the fourth valid species of Limnonectes described from Sulawesi despite that the "
    "radiation includes at least 15 species and possibly many more."
)
EXAMINED = (
    "We examined 100 specimens of the new Limnonectes species from 23 localities on Sulawesi."
)
FACTOR = (
    "By roughly what factor do ACC deaminase-producing plant growth-promoting bacteria lower "
    "ACC and ethylene levels in plants under waterlogging?"
)
PERCENT = (
    "Using this strategy, symbiotic bacteria lower the levels of ethylene stress (by 60–90%) by "
    "producing ACC deaminase and contribute to the growth and development of plants under "
    "waterlogged conditions."
)
FOLD = (
    "Under waterlogging, ACC deaminase-producing plant growth-promoting bacteria lowered the "
    "ACC and ethylene levels of the plants two- to fourfold."
)
MASS = (
    "What was the minimum body mass for a weaned grey seal pup to be included in the captive "
    "recognition study?"
)
LOSS = (
    "While fasting and nursing a pup, mothers can lose up to 40 % of their body mass at "
    "parturition."
)
WEIGHING = (
    "In accordance with previous studies using captive weaned grey seal pups, pups weighing "
    "less than 30 kg initially were excluded from the study."
)
METHODS = "Stool samples were collected and tested by polymerase chain reaction in each centre."
#: sentences of the same papers on other things, as retrieval returns them beside the answer:
#: the question's words are rare among them, as they are among a real top 8
OTHERS = (
    "DNA was extracted with a commercial kit according to the manufacturer's instructions.",
    "The statistical analysis was performed with SPSS software, version 16.",
    "Tadpoles were photographed alive and then preserved in ethanol for later study.",
    "Trials were filmed from above and the videos were decoded by one investigator.",
    "Plants were grown in pots filled with sterilised soil in a greenhouse.",
)


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def ask(generator: ExtractiveGenerator, question: str, *texts: str) -> str:
    passages = tuple(
        RetrievedPassage(n=n, passage_id=n, doc_id="p", title="Paper", page=n, score=0.7, text=text)
        for n, text in enumerate((*texts, *OTHERS), start=1)
    )
    return generator.generate(GenerationRequest(question, passages, "corpus")).text


def test_what_a_count_question_counts():
    assert quantities.count_heads(ICU) == {"childr"}
    assert quantities.count_heads(SPECIMENS) == {"specim", "locali"}
    assert quantities.count_heads("How many accessions and EST-SSR markers were used?") == {
        "access",
        "marker",
    }
    # a verb or a unit after "how many" names nothing counted
    assert quantities.count_heads("How many carried HAdV-40 and how many HAdV-41?") == set()
    assert quantities.count_heads("How many days did the trial last?") == set()


def test_what_a_sentence_counts():
    counts = dict(quantities.counted(TYPES + " " + SHARE))
    assert counts == {}  # a percentage, labels ("types 40 and 41") and an age are no counts
    chicks = dict(quantities.counted("A total of 280-day-old commercial broiler chicks."))
    assert chicks == {"280": ["commer", "broile", "chicks"]}
    split = dict(quantities.counted("seven from the rural hospital and 13 (4.2%) isolates"))
    assert split == {"seven": [quantities.ELIDED], "13": ["isolat"]}
    assert dict(quantities.counted("participants (men, n = 12) attended")) == {"12": ["partic"]}
    # a count followed by its verb counts what its clause named before it
    assert dict(quantities.counted(ADMITTED)) == {"9": ["adenov", "childr", quantities.ELIDED]}


def test_a_share_of_another_population_does_not_count_the_children(generator):
    assert ask(generator, ICU, SHARE, TYPES, METHODS) == UNANSWERABLE


def test_a_count_of_the_children_answers(generator):
    assert "9 needed intensive care" in ask(generator, ICU, SHARE, TYPES, ADMITTED)


def test_without_the_rule_the_share_is_quoted(generator, monkeypatch):
    monkeypatch.setattr(extractive, "COUNTED", False)
    assert "10% of all hospital admissions" in ask(generator, ICU, SHARE, TYPES, METHODS)


def test_a_count_of_another_thing_the_question_names_is_not_the_count_asked(generator):
    assert ask(generator, SPECIMENS, SPECIES) == UNANSWERABLE
    answer = ask(generator, SPECIMENS, SPECIES, EXAMINED)
    assert "100 specimens" in answer and "15 species" not in answer


def test_without_the_rule_the_species_count_is_quoted(generator, monkeypatch):
    monkeypatch.setattr(extractive, "COUNTED", False)
    assert "15 species" in ask(generator, SPECIMENS, SPECIES)


def test_by_what_factor_asks_a_fold_not_a_percentage(generator):
    assert ask(generator, FACTOR, PERCENT) == UNANSWERABLE
    answer = ask(generator, FACTOR, PERCENT, FOLD)
    assert "fourfold" in answer and "60–90%" not in answer


def test_without_the_factor_kind_the_percentage_is_quoted(generator, monkeypatch):
    monkeypatch.setattr(extractive, "TYPED", extractive.TYPED - {"factor"})
    assert "60–90%" in ask(generator, FACTOR, PERCENT)


@pytest.fixture(scope="module")
def low_floor(minilm) -> ExtractiveGenerator:
    """The mother's loss scores 0.10 among these few sentences, under the 0.12 floor: a lower
    floor lets the rule, not the floor, decide."""
    return ExtractiveGenerator(minilm, relevance_floor=0.05)


def test_a_body_mass_asked_is_a_mass_not_a_share_of_it(low_floor):
    answer = ask(low_floor, MASS, LOSS, WEIGHING)
    assert answer.startswith("In accordance") and "30 kg" in answer
    assert "40 %" not in answer
    assert ask(low_floor, MASS, LOSS) == UNANSWERABLE


def test_without_the_mass_kind_the_loss_is_quoted(low_floor, monkeypatch):
    monkeypatch.setattr(extractive, "TYPED", extractive.TYPED - {"mass"})
    assert "40 %" in ask(low_floor, MASS, LOSS)
