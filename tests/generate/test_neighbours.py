"""Neighbouring sentences, followers that must add something asked, and the kind of number asked.

The asked specific often sits next to the sentence that says what it is about ("In 2010/11, at
Morrison grain yield increased ..." / "Nutri-phite resulted in 70% more grain yield ..."): the
generator scores such neighbours as one and quotes both, each cited, each verbatim, and the
verifier keeps both. A sentence that only adds context to a one-part question ("The trial
enrolled 412 adults") does not follow. Real MiniLM and the real verifier; passages written like
the papers' own.
"""

from __future__ import annotations

import pytest

from lastword.generate.answering import (
    Candidate,
    Coverage,
    QuestionProfile,
    asked_numbers,
    penalties,
    states_new_number,
)
from lastword.generate.extractive import (
    ExtractiveGenerator,
    candidates_of,
    cite_each,
    neighbour_pairs,
)
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage
from lastword.settings import Settings
from lastword.verify import verify_draft
from lastword.verify.sentences import split_line

YIELD = (
    "Grain yield was significantly affected by treatments among the locations. In 2010/11 at "
    "Perkins, all treatments had significantly higher yield than the nontreated plots. However, "
    "yield was not different among the fertilizer treatments. In 2010/11, at Morrison grain "
    "yield increased due to application of Nutri-phite compared to control treatments. "
    "Nutri-phite resulted in 70% more grain yield than the nontreated. At Perry in 2010/11, "
    "Nutri-phite did not significantly increase grain yield compared to the standard treatment."
)
OTHER = (
    "Soil samples were collected before planting at each site. Soil pH ranged from 5.1 to 6.8 "
    "across the three locations."
)
BONE = (
    "This two-year randomised trial enrolled 412 community-dwelling adults aged 65 to 84 with "
    "serum 25-hydroxyvitamin D below 20 ng/mL. Participants received either 2,000 IU of "
    "vitamin D3 daily or a matching placebo."
)
BONE_RESULT = (
    "After 24 months, lumbar spine bone mineral density rose by 1.8% in the vitamin D group and "
    "fell by 0.4% in the placebo group. Total hip density showed a smaller difference of 0.9 "
    "percentage points. Falls were recorded as a secondary outcome and did not differ."
)


def passage(n: int, text: str, score: float = 0.7) -> RetrievedPassage:
    return RetrievedPassage(
        n=n, passage_id=n, doc_id=f"d{n}", title="A paper", page=1, score=score, text=text
    )


@pytest.fixture(scope="module")
def generator(minilm) -> ExtractiveGenerator:
    return ExtractiveGenerator(minilm)


def test_the_place_asked_is_quoted_from_the_sentence_before_the_number(generator, minilm) -> None:
    question = "At Morrison in 2010/11, how much did Nutri-phite change grain yield?"
    passages = [passage(1, YIELD, 0.8), passage(2, OTHER, 0.4)]
    draft = generator.generate(GenerationRequest(question, passages, "corpus"))
    place = "In 2010/11, at Morrison grain yield increased due to application of Nutri-phite"
    assert place in draft.text
    assert "Nutri-phite resulted in 70% more grain yield than the nontreated [1]." in draft.text
    # the pair is written in the passage's order, each sentence with its own marker
    assert draft.text.index(place) < draft.text.index("70% more")
    assert "Perkins" not in draft.text
    checked = verify_draft(draft.text, passages, minilm, Settings().verify, question=question)
    assert checked.supported and not checked.dropped and not checked.phantoms
    assert "Morrison" in checked.answer and "70%" in checked.answer


def test_a_pair_needs_a_subject_neighbour_and_a_specific_neighbour() -> None:
    question = "At Morrison in 2010/11, how much did Nutri-phite change grain yield?"
    profile = QuestionProfile.of(question)
    candidates = candidates_of(GenerationRequest(question, [passage(1, YIELD)], "corpus"))
    pairs = neighbour_pairs(profile, candidates, Coverage.of(profile, candidates))
    joined = [pair.joined.text for pair in pairs]
    assert any("Morrison" in t and "70% more" in t for t in joined)
    # every pair is two sentences one apart in the same passage, in reading order
    for pair in pairs:
        a, b = (candidates[i] for i in pair.members)
        assert a.n == b.n and b.position == a.position + 1
    # a name question gets no pair from a passage that names nothing new; no specific, no pair
    where = QuestionProfile.of("Why did the yield differ between sites?")
    assert neighbour_pairs(where, candidates, Coverage.of(where, candidates)) == []


def test_a_context_sentence_does_not_follow_a_one_part_answer(generator, minilm) -> None:
    question = "How much did vitamin D change lumbar spine bone density in older adults?"
    passages = [passage(1, BONE, 0.77), passage(2, BONE_RESULT, 0.75)]
    draft = generator.generate(GenerationRequest(question, passages, "corpus"))
    assert "rose by 1.8%" in draft.text
    assert "412" not in draft.text  # adds "adults" and numbers, but no change: context only
    assert "0.9 percentage points" in draft.text  # a further change of the kind asked


def test_the_demo_answer_quotes_the_changes_only(generator) -> None:
    from importlib import resources

    folder = resources.files("lastword.data").joinpath("demo")
    files = sorted(f for f in folder.iterdir() if f.name.endswith(".md"))
    files.sort(key=lambda f: f.name != "vitamin-d-bone-density.md")  # the demo's top passage
    bodies = [f.read_text("utf-8").split("\n", 1)[1].replace("\n\n", " ").strip() for f in files]
    passages = [passage(n, body, 0.77 if n == 1 else 0.3) for n, body in enumerate(bodies, 1)]
    question = "How much did vitamin D change lumbar spine bone density in older adults?"
    draft = generator.generate(GenerationRequest(question, passages, "corpus"))
    assert draft.text.startswith("After 24 months, lumbar spine bone mineral density rose by 1.8%")
    # the design ("The primary outcome was ..."), the enrolment and the conclusion add no change
    for context in ("primary outcome", "412", "The authors conclude"):
        assert context not in draft.text


def test_the_kind_of_number_asked() -> None:
    def numbers(question: str, sentence: str) -> set[str]:
        return asked_numbers(Candidate(1, sentence, 0.5), QuestionProfile.of(question))

    enrolled = "The trial enrolled 412 adults aged 65 to 84 for 24 months."
    changed = "Bone density rose by 1.8% and hip density differed by 0.9 percentage points."
    assert numbers("How many adults were enrolled?", enrolled) == {"412", "65", "84"}
    assert numbers("How long did the trial last?", enrolled) == {"24"}
    assert numbers("How much did bone density change?", enrolled) == set()
    assert numbers("How much did bone density change?", changed) == {"1.8", "0.9"}
    assert numbers("What percentage of pups survived?", changed) == {"1.8", "0.9"}
    assert numbers("What was the dose?", enrolled) == {"412", "65", "84", "24"}


def test_a_number_the_question_writes_itself_does_not_state_the_answer() -> None:
    profile = QuestionProfile.of("At Morrison in 2010/11, how much did grain yield change?")
    assert not states_new_number(
        Candidate(1, "In 2010/11 at Perkins yield was higher.", 0.5), profile
    )
    assert states_new_number(Candidate(1, "Yield was 70% higher in 2010/11.", 0.5), profile)
    assert QuestionProfile.of("Which group gained most, and what was its FCR?").several
    assert not QuestionProfile.of("Which group gained most weight?").several


def test_every_piece_the_verifier_reads_is_cited() -> None:
    text = "Volatiles were analyzed by SPME-GC/MS. The assays ran on days 0, 1 and 2."
    cited = cite_each(text, 3)
    assert all(piece.endswith("[3].") for piece in split_line(cited))
    # a source's own neutralised markers inside a word do not end a sentence for the verifier
    plots = "The score plots (t(ref. 1)/ t(ref. 2)) separated samples from Day 2 [4]."
    assert split_line(plots) == [plots]


TABLE = (
    "Table-3: Performance of broilers under different dietary treatments over 6 weeks.\n"
    "Treatments | Feed intake (g/bird) | Body weight gain (g/bird) | FCR\n"
    "T1 | 3771.75±4.23 | 1801.75a±1.79 | 2.09c ±0.01\n"
    "T5 | 3634.25±17.80 | 1863.25b±8.41 | 1.95b±0.01\n"
    "T6 | 3627.50±6.64 | 2129.25c ±22.83 | 1.70a±0.01\n"
    "T7 | 3640.25±4.23 | 2094.75c ±32.93 | 1.73a±0.04"
)


def test_which_is_highest_is_read_from_the_asked_column_of_a_table() -> None:
    from lastword.generate.answer_model import FEATURES
    from lastword.generate.answering import candidate_features

    table = RetrievedPassage(
        n=1,
        passage_id=1,
        doc_id="b",
        title="Broilers",
        page=3,
        score=0.6,
        text=TABLE,
        kind="table",
    )
    column = FEATURES.index("superlative")
    for question, row in (
        ("Which dietary group had the highest body weight gain?", "T6"),
        ("Which dietary group had the lowest body weight gain?", "T1"),
        ("Which group had the lowest feed intake?", "T6"),
        ("Which group ate the most feed?", "T1"),
    ):
        profile = QuestionProfile.of(question)
        candidates = candidates_of(GenerationRequest(question, [table], "corpus"))
        marked = [
            c.text
            for c, f in zip(candidates, candidate_features(profile, candidates), strict=True)
            if f[column]
        ]
        assert len(marked) == 1 and f"Treatments: {row};" in marked[0], question
    # a named quantity is not a comparison; nor is a question with no superlative
    assert QuestionProfile.of("What was the maximum non-toxic concentration?").superlative == 0
    assert QuestionProfile.of("What was the weight gain of T6?").superlative == 0
    assert QuestionProfile.of("What was the lowest dose that killed embryos?").superlative == -1


def test_numbers_that_point_to_a_figure_or_table_are_not_stated_numbers() -> None:
    profile = QuestionProfile.of("How much ZEA did the untreated control contain?")
    pointer = Candidate(1, "ZEA levels decreased with the oil dose (Figure 5A, Table 2).", 0.5)
    stated = Candidate(1, "The untreated control contained 6.07 μg/g of ZEA (Figure 5A).", 0.5)
    assert not states_new_number(pointer, profile) and not pointer.has_quantity
    assert states_new_number(stated, profile)


def test_a_question_asking_two_kinds_of_number_takes_both() -> None:
    profile = QuestionProfile.of(
        "How long did the shift to mature milk take, and how many animals gave samples?"
    )
    assert profile.number_kinds == {"time", "count"} and profile.several
    sentence = Candidate(1, "Six animals were sampled over about 30 days.", 0.5)
    assert asked_numbers(sentence, profile) == {"six", "30"}


def test_a_binomial_names_its_species_in_lower_case() -> None:
    from lastword.generate.answering import specifics

    profile = QuestionProfile.of("What is the scientific name of the Sulawesi fanged frog?")
    named = Candidate(1, "We describe a new fanged frog (Limnonectes larvaepartus) here.", 0.5)
    assert "larvae" in specifics(named, profile)
    plain = Candidate(1, "We describe a new fanged frog from the island here.", 0.5)
    assert specifics(plain, profile) == set()


def test_a_follower_may_add_a_large_unstated_part_of_a_one_part_question(generator) -> None:
    question = "Did post-trial plasma oxytocin differ between seal pups paired with familiar pups?"
    passages = [
        passage(
            1,
            "Weaned grey seal pups showed fewer checks when paired with a familiar pup than with "
            "a stranger, indicating recognition between the two.",
            0.7,
        ),
        passage(
            2,
            "Oxytocin concentrations in post-trial plasma samples were analysed; however, no "
            "significant differences were detected between familiar or stranger trials.",
            0.6,
        ),
    ]
    draft = generator.generate(GenerationRequest(question, passages, "corpus"))
    assert "no significant differences" in draft.text


def test_a_sentence_states_a_superlative_only_of_what_is_asked() -> None:
    from lastword.generate.superlative import states_superlative

    def asked(word: str) -> bool:
        return word.lower()[:6] in {"weight", "gain", "body"}

    said = "The highest mean body weight gain was observed in T6 and T7."
    assert states_superlative(said, 1, asked)
    assert not states_superlative(said, -1, asked)
    assert not states_superlative("It is one of the most widely grown trees.", 1, asked)
    assert not states_superlative("The highest rainfall fell in June of that year.", 1, asked)


def test_a_later_sentence_that_refers_back_is_a_comment_not_the_setting() -> None:
    """ "These results were in agreement with the maize grains" names the question's subject
    after the number, but it comments on the finding before it: that is no pair. The same
    subject written before the number still pairs."""
    question = "In the maize grain experiment, how much zearalenone did the untreated control hold?"
    profile = QuestionProfile.of(question)
    comment = (
        "The expression of PKS4 fell by 62% in the treated culture flasks. These results were "
        "in agreement with the artificially contaminated maize grain experiment as well."
    )
    setting = (
        "In the artificially contaminated maize grain experiment, the toxin fell as the dose rose. "
        "The untreated control held 6.07 μg/g of zearalenone."
    )
    after = candidates_of(GenerationRequest(question, [passage(1, comment)], "corpus"))
    assert neighbour_pairs(profile, after, Coverage.of(profile, after)) == []
    before = candidates_of(GenerationRequest(question, [passage(1, setting)], "corpus"))
    pairs = neighbour_pairs(profile, before, Coverage.of(profile, before))
    assert [p.members for p in pairs] == [(0, 1)]


def test_how_long_a_product_is_asks_a_length_not_a_duration() -> None:
    def numbers(question: str, sentence: str) -> set[str]:
        return asked_numbers(Candidate(1, sentence, 0.5), QuestionProfile.of(question))

    amplified = "A 261 bp fragment was amplified in 0.2 mM dNTP over 35 cycles of 30 min (ref. 13)."
    product = "Which gene region did the PCR amplify, and how long was the product?"
    assert QuestionProfile.of(product).number_kinds == {"length"}
    assert numbers(product, amplified) == {"261"}
    assert numbers("How long did the PCR take?", amplified) == {"30"}
    assert numbers("How long were the roots?", "Roots were 12.5 cm long after 14 d.") == {"12.5"}


def test_a_taxonomic_abbreviation_stands_for_the_word_the_question_spells_out() -> None:
    question = "To which variety did the C. neoformans isolates from Eucalyptus trees belong?"
    profile = QuestionProfile.of(question)
    grubii = Candidate(1, "All isolates were identified as C. neoformans var. grubii.", 0.5)
    other = Candidate(1, "Thirteen isolates of C. neoformans were recovered from the trees.", 0.5)
    coverage = Coverage.of(profile, [grubii, other])
    assert "variet" in coverage.matched[0] and "variet" not in coverage.matched[1]


PCA = (
    "The score plots showed a clear separation between contaminated samples and controls "
    "starting from Day 2 (Figure 1). The explained variance of the dataset related to the two "
    "first components was 81.2%, namely 59.7% for the first and 21.6% for the second. "
    "A second model of the later samples was then built on the same compounds. The explained "
    "variance of the first two components of that model was 92.7%, namely 77.8% and 14.9%."
)


def test_a_two_part_question_pairs_two_sentences_that_each_state_a_number(generator) -> None:
    two_parts = (
        "From which day did the PCA score plot separate contaminated wheat from controls, and "
        "how much variance did the first two components explain?"
    )
    one_part = "How much variance did the first two components explain?"
    request = GenerationRequest(two_parts, [passage(1, PCA)], "corpus")
    candidates = candidates_of(request)
    for question, pairs_day_and_variance in ((two_parts, True), (one_part, False)):
        profile = QuestionProfile.of(question)
        pairs = neighbour_pairs(profile, candidates, Coverage.of(profile, candidates))
        joined = [pair.joined.text for pair in pairs]
        assert any("Day 2" in t and "81.2%" in t for t in joined) is pairs_day_and_variance
    answer = generator.generate(request).text
    assert "Day 2" in answer and "81.2%" in answer


def test_a_bracket_glued_to_a_word_is_a_label_not_a_citation() -> None:
    profile = QuestionProfile.of("How much variance did the first two components explain?")
    label = Candidate(1, "The variance was 81.2%, namely 59.7% for t(ref. 1) and 21.6%.", 0.5)
    cited = Candidate(1, "The variance was 81.2% in maize grains (ref. 9).", 0.5)
    assert "other study" not in penalties(label, profile)
    assert "other study" in penalties(cited, profile)


#: the broiler paper's (papers a01) result sentences, as the passage on its page 4 sets them
GROWTH = (
    "Data pertaining to the growth performance as depicted in Table-3 revealed that "
    "significantly (p<0.05) highest mean body weight gain was observed in the treatment groups "
    "T6 and T7, where birds were supplemented a combination of GP and HBLP at 0.5 g and 1.0 g/kg "
    "of the diet, respectively. It was then followed by treatment groups T3 and T5 in which hens "
    "were fed ration supplemented with GP and HBLP at higher levels of inclusion of 1.0 g/kg of "
    "feed, respectively. The current research work on the FCR as shown in Table-3 unveiled that "
    "FCR was found to be significantly (p<0.05) improved in T6 and T7 as compared to control "
    "group T1 due to dietary supplementation of GP and HBLP in combination at 0.5% and 1.0% of "
    "the feed, respectively."
)
HIGHEST_AND_ITS_VALUES = (
    "In the broiler trial with garlic and holy basil leaf powders, which dietary group had the "
    "highest 6-week body weight gain, and what were its weight gain and feed conversion ratio?"
)


def test_which_is_highest_and_its_values_quotes_the_row_of_the_one_named(
    generator, minilm, monkeypatch
) -> None:
    from lastword.generate import extractive

    table = RetrievedPassage(
        n=2, passage_id=2, doc_id="b", title="Broilers", page=3, score=0.6, text=TABLE, kind="table"
    )
    passages = [passage(1, GROWTH, 0.7), table]
    request = GenerationRequest(HIGHEST_AND_ITS_VALUES, passages, "corpus")
    draft = generator.generate(request).text
    # the opening names T6 and T7; the row of T6, the column's highest, states its values
    assert "highest mean body weight gain" in draft
    assert "Treatments: T6; Feed intake (g/bird): 3627.50±6.64; Body weight gain" in draft
    assert "Treatments: T7" not in draft
    checked = verify_draft(
        draft, passages, minilm, Settings().verify, question=HIGHEST_AND_ITS_VALUES
    )
    assert checked.supported and not checked.dropped and "2129.25" in checked.answer
    # without the rule the third sentence is the FCR one, which states no value of T6
    monkeypatch.setattr(extractive, "EXTREME_ROW", False)
    assert "Treatments: T6" not in generator.generate(request).text
