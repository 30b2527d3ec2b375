"""The verifier end to end, with the real MiniLM embedder and eight real-length passages.

The passages ship with the tests (``data/passages.json``, written for them on the topics of
eight PubMedQA abstracts), so these tests run on a fresh clone without ../shared. Numbered as
retrieval would number them:
  1, 2  lace plant programmed cell death
  3     tranexamic acid and desmopressin, with the doses
  4-6   reading after hemispherectomy; the source's own reference numbers [33], [1], [26], [2],
        [3] are in the text
  7     alcohol cues in rats, naltrexone
  8     intubation in a helicopter
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lastword.generate.extractive import ExtractiveGenerator, cite
from lastword.generate.prompt import neutralise_reference_markers
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage
from lastword.sentences import split_sentences
from lastword.settings import VerifySettings
from lastword.verify import (
    PHANTOM_CITATION,
    UNCITED_CLAIM,
    UNSUPPORTED_NUMBER,
    WEAK_SUPPORT,
    Verification,
    verify_draft,
)

PASSAGES_FILE = Path(__file__).parent / "data" / "passages.json"


@pytest.fixture(scope="module")
def passages() -> tuple[RetrievedPassage, ...]:
    data = json.loads(PASSAGES_FILE.read_text(encoding="utf-8"))
    return tuple(
        RetrievedPassage(
            n=n,
            passage_id=n,
            doc_id=p["doc_id"],
            title=p["title"],
            page=None,
            score=0.5,
            text=p["text"],
        )
        for n, p in enumerate(data["passages"], start=1)
    )


@pytest.fixture(scope="module")
def check(passages, minilm):
    def run(draft: str, **settings: float) -> Verification:
        return verify_draft(draft, passages, minilm, VerifySettings(**settings))

    return run


def _reasons(v: Verification) -> list[str]:
    return [d.reason for d in v.dropped]


def test_citing_passage_9_of_8_is_a_phantom(check) -> None:
    v = check("In-flight intubation took about twice as long as on the ground [9].")
    assert _reasons(v) == [PHANTOM_CITATION]
    assert "[9] is not a retrieved passage (passages 1-8)" in v.dropped[0].detail
    assert [(p.marker, p.number, p.reason) for p in v.phantoms] == [("[9]", 9, "out_of_range")]
    assert not v.supported and v.answer == "" and v.sentences == ()


def test_phantom_next_to_a_real_citation_is_removed_from_the_text(check) -> None:
    v = check("In-flight intubation took longer than intubation in the control setting [8][9].")
    assert [s.text for s in v.sentences] == [
        "In-flight intubation took longer than intubation in the control setting [8]."
    ]
    assert v.citations == (8,)
    assert [(p.number, p.reason) for p in v.phantoms] == [(9, "out_of_range")]
    assert "[9]" not in v.answer


def test_bibliography_number_copied_from_a_passage_is_a_phantom_though_in_range(check) -> None:
    # Passage 6 says "... similar to that of strongly left-lateralized phonological skills [3]."
    # where [3] is the source's own reference; our passage 3 is about tranexamic acid.
    v = check(
        "Receptive vocabulary was preserved to a certain degree similar to that of strongly "
        "left-lateralized phonological skills [3]. Phonological abilities are the key "
        "components of reading, i.e., grapheme-phoneme conversion skills [1]."
    )
    assert _reasons(v) == [PHANTOM_CITATION, PHANTOM_CITATION]
    assert [(p.number, p.reason) for p in v.phantoms] == [(3, "bibliography"), (1, "bibliography")]
    assert "copied from a passage's own references" in v.dropped[0].detail
    assert not v.supported


def test_bibliography_copy_beside_the_right_citation_keeps_the_sentence(check) -> None:
    v = check(
        "Receptive vocabulary was preserved to a certain degree similar to that of strongly "
        "left-lateralized phonological skills [3][6]."
    )
    assert v.citations == (6,)
    assert v.sentences[0].text.endswith("phonological skills [6].")
    assert [(p.number, p.reason) for p in v.phantoms] == [(3, "bibliography")]


def test_invented_dose_is_dropped_and_named(check) -> None:
    v = check(
        "Tranexamic acid was given at a loading dose of 20 mg/kg over 30 minutes [3]. "
        "Tranexamic acid was given at a loading dose of 10 mg/kg over 30 minutes [3]."
    )
    assert _reasons(v) == [UNSUPPORTED_NUMBER]
    assert "'20 mg/kg'" in v.dropped[0].detail and "[3]" in v.dropped[0].detail
    assert [s.text for s in v.sentences] == [
        "Tranexamic acid was given at a loading dose of 10 mg/kg over 30 minutes [3]."
    ]


def test_number_from_a_passage_the_sentence_does_not_cite_is_unsupported(check) -> None:
    # 29% is in passage 7, but this sentence cites passage 3
    v = check("Only 29% of patients in group 2 required donor blood [3].")
    assert _reasons(v) == [UNSUPPORTED_NUMBER]


def test_uncited_claim_is_dropped(check) -> None:
    v = check("Naltrexone blocked the effect of alcohol cues in rats.")
    assert _reasons(v) == [UNCITED_CLAIM]
    assert not v.supported and not v.declined


def test_citing_a_passage_about_something_else_is_weak_support(check) -> None:
    v = check(
        "Mitochondria play a critical and early role in developmentally regulated cell death "
        "in the lace plant [8]."
    )
    assert _reasons(v) == [WEAK_SUPPORT]
    assert "[8]" in v.dropped[0].detail and "below the floor" in v.dropped[0].detail
    same = check(
        "Mitochondria play a critical and early role in developmentally regulated cell death "
        "in the lace plant [2]."
    )
    assert same.supported and same.citations == (2,)


def test_citation_of_an_unrelated_passage_is_pruned_beside_a_supporting_one(check) -> None:
    v = check("Tranexamic acid was given at a loading dose of 10 mg/kg over 30 minutes [3][1].")
    assert v.citations == (3,)
    assert v.sentences[0].text.endswith("30 minutes [3].")


def test_mixed_draft_keeps_the_good_and_records_the_bad(check) -> None:
    draft = "\n".join(
        [
            "Based on the passages:",
            "- The lace plant produces perforations in its leaves through programmed cell "
            "death [1].",
            "- Tranexamic acid was given at a loading dose of 40 mg/kg before the incision [3].",
            "- Rats given alcohol-associated cues consumed more alcohol, and naltrexone blocked "
            "the effect [7].",
            "- Flight nurses intubate faster in helicopters.",
            "- About 60% of the group developed word reading in the average range [6][12].",
            "- Desmopressin causes hyperfibrinolysis in plants [1].",
        ]
    )
    v = check(draft)
    assert [(d.reason, d.citations) for d in v.dropped] == [
        (UNSUPPORTED_NUMBER, (3,)),
        (UNCITED_CLAIM, ()),
        (WEAK_SUPPORT, (1,)),
    ]
    assert [s.citations for s in v.sentences] == [(), (1,), (7,), (6,)]
    assert v.citations == (1, 6, 7)
    assert [(p.number, p.reason) for p in v.phantoms] == [(12, "out_of_range")]
    assert v.answer.splitlines() == [
        "Based on the passages:",
        "- The lace plant produces perforations in its leaves through programmed cell death [1].",
        "- Rats given alcohol-associated cues consumed more alcohol, and naltrexone blocked "
        "the effect [7].",
        "- About 60% of the group developed word reading in the average range [6].",
    ]
    assert v.supported and not v.declined
    assert all(s.support is not None and s.support >= 0.35 for s in v.sentences[1:])


def test_verbatim_extractive_sentences_all_pass(check, passages) -> None:
    # Written exactly as the extractive generator writes: the source's own reference numbers
    # neutralised, our [N] before the end mark; every sentence of every passage.
    lines = [
        cite(sentence, p.n)
        for p in passages
        for sentence in split_sentences(neutralise_reference_markers(p.text))
        if len(sentence.split()) >= 5
    ]
    v = check("\n".join(lines))
    assert v.dropped == () and v.phantoms == ()
    assert len(v.sentences) == len(lines)
    assert v.citations == tuple(range(1, 9))
    assert min(s.support for s in v.sentences) > 0.9


def test_real_extractive_generator_output_passes(passages, minilm, check) -> None:
    question = "Can the isolated right hemisphere read after hemispherectomy?"
    draft = ExtractiveGenerator(minilm).generate(GenerationRequest(question, passages))
    v = check(draft.text)
    assert v.supported and v.dropped == () and v.phantoms == ()
    assert len(v.sentences) == len(split_sentences(draft.text))


def test_decline_is_recognised(check) -> None:
    v = check("The passages do not contain information about the dose in children.")
    assert v.declined and not v.supported
    assert v.dropped == () and v.answer == ""


def test_decline_with_a_supported_claim_is_an_answer(check) -> None:
    v = check(
        "The passages do not say how long the effect lasts. Rats given alcohol-associated cues "
        "consumed more alcohol [7]."
    )
    assert v.supported and not v.declined
    assert v.citations == (7,)


def test_uncited_refusal_plus_uncited_claim_is_still_a_decline(check) -> None:
    v = check("I cannot answer this from the passages. Aspirin probably helps.")
    assert v.declined and not v.supported
    assert _reasons(v) == [UNCITED_CLAIM]


def test_empty_draft(check) -> None:
    v = check("")
    assert not v.supported and not v.declined and v.sentences == () and v.dropped == ()


class CountingEmbedder:
    """The real embedder, counting its calls."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls: list[tuple[str, int]] = []

    @property
    def info(self):
        return self.inner.info

    def embed_documents(self, texts) -> np.ndarray:
        self.calls.append(("documents", len(texts)))
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts) -> np.ndarray:
        self.calls.append(("queries", len(texts)))
        return self.inner.embed_queries(texts)


def test_one_embedding_call_for_sentences_and_one_for_passages(passages, minilm) -> None:
    counting = CountingEmbedder(minilm)
    draft = " ".join(
        [
            "The lace plant produces perforations in its leaves [1].",
            "Mitochondrial dynamics were delineated into four categories [2].",
            "Patients were divided into 2 groups [3].",
            "Naltrexone blocked the cue effect [7].",
            "In-flight intubation took longer [8].",
        ]
    )
    v = verify_draft(draft, passages, counting, VerifySettings())
    assert len(v.sentences) == 5
    assert [kind for kind, _ in counting.calls] == ["queries", "documents"]
    assert counting.calls[0][1] == 5


def test_support_floor_comes_from_settings(check) -> None:
    draft = "The lace plant produces perforations in its leaves through programmed cell death [1]."
    assert check(draft, support_floor=0.35).supported
    strict = check(draft, support_floor=0.99)
    assert not strict.supported and _reasons(strict) == [WEAK_SUPPORT]


def test_duplicate_passage_numbers_are_an_input_error(passages, minilm) -> None:
    from lastword.errors import InputError

    with pytest.raises(InputError, match="distinct numbers"):
        verify_draft("x [1].", (*passages, passages[0]), minilm, VerifySettings())
