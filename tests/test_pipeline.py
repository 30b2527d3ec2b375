"""The pipeline's order and its decisions, with the real model over the demo corpus.

Scripted generators here implement the Generator protocol directly to pin down what the
pipeline does with each kind of draft; the SDK-backed generators have their own wire tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.errors import ConfigError, InputError, ProviderRefused, ProviderTimeout
from lastword.gate import band_for
from lastword.gate.signals import combined_score
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.pipeline import Pipeline
from lastword.result import Band, Mechanism, Status
from lastword.settings import GateModel, ScopeSettings, Thresholds, load_settings
from lastword.store.local import LocalStore

ANSWERABLE = "How much did vitamin D change lumbar spine bone density in older adults?"
OFF_DOMAIN = "Who won the 1998 Eurovision Song Contest?"


class Counting:
    """Wraps a generator and counts calls: a refusal before generation must show 0."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.requests: list[GenerationRequest] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, request: GenerationRequest) -> Draft:
        self.requests.append(request)
        return self.inner.generate(request)


class Scripted:
    def __init__(self, text: str = "", error: Exception | None = None) -> None:
        self.text, self.error = text, error

    name = "scripted"

    def generate(self, request: GenerationRequest) -> Draft:
        if self.error is not None:
            raise self.error
        return Draft(text=self.text)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    base = load_settings()
    return base.model_copy(update={"scope": ScopeSettings(out_of_scope=["cryptocurrency"])})


def open_with(settings, index: Path, generator) -> Pipeline:
    return Pipeline.open(settings, index, generator=generator)


def test_answer_is_grounded_and_cited(settings, demo_index, minilm):
    generator = Counting(ExtractiveGenerator(minilm))
    with open_with(settings, demo_index, generator) as pipeline:
        result = pipeline.ask(ANSWERABLE)
    assert result.status is Status.ANSWERED and result.decided_by is None
    assert result.band is Band.STRONG and result.top_score == result.passages[0].score
    assert "1.8%" in result.answer and "[1]" in result.answer
    assert result.citations and set(result.citations) <= {p.n for p in result.passages}
    assert result.phantoms == () and result.refusal is None
    assert all(s.citations for s in result.sentences)
    assert {"scope", "embed", "retrieve", "generate", "verify", "total"} <= set(result.timings_ms)
    assert len(generator.requests) == 1 and generator.requests[0].passages == result.passages


def test_scope_guard_refuses_before_embedding(settings, demo_index, minilm):
    generator = Counting(ExtractiveGenerator(minilm))
    with open_with(settings, demo_index, generator) as pipeline:
        result = pipeline.ask("Which CRYPTOCURRENCY should the lab buy?")
    assert (result.status, result.decided_by) == (Status.REFUSED, Mechanism.SCOPE_GUARD)
    assert result.top_score == 0.0 and result.passages == () and "embed" not in result.timings_ms
    assert generator.requests == [] and "cryptocurrency" in result.refusal.message.lower()


def test_weak_retrieval_refuses_without_calling_the_generator(settings, demo_index, minilm):
    generator = Counting(ExtractiveGenerator(minilm))
    with open_with(settings, demo_index, generator) as pipeline:
        result = pipeline.ask(OFF_DOMAIN)
    assert (result.status, result.decided_by) == (Status.REFUSED, Mechanism.RETRIEVAL_GATE)
    assert result.band is Band.WEAK and result.gate.score < pipeline.thresholds.weak
    assert generator.requests == []
    assert result.citations == () and "[" not in result.refusal.message
    assert "retrieval gate found no passage close enough" in result.refusal.message
    assert "licensed professional" not in result.refusal.message


def test_excluding_the_evidence_turns_an_answer_into_a_refusal(settings, demo_index, minilm):
    with open_with(settings, demo_index, ExtractiveGenerator(minilm)) as pipeline:
        own = pipeline.inspect(ANSWERABLE).passages[0].doc_id
        result = pipeline.ask(ANSWERABLE, exclude_doc_ids={own})
    assert result.decided_by is Mechanism.RETRIEVAL_GATE
    assert own not in {p.doc_id for p in result.passages}


def test_a_decline_is_a_refusal_by_the_generator(settings, demo_index):
    draft = "The passages do not answer this question."
    with open_with(settings, demo_index, Scripted(draft)) as pipeline:
        result = pipeline.ask(ANSWERABLE)
    assert (result.status, result.decided_by) == (Status.REFUSED, Mechanism.GENERATOR)
    assert result.draft == draft and result.answer is None


def test_nothing_verifiable_is_a_refusal_by_the_verifier(settings, demo_index):
    draft = "Vitamin D cures every cancer [9]. It also doubles lifespan."
    with open_with(settings, demo_index, Scripted(draft)) as pipeline:
        result = pipeline.ask(ANSWERABLE)
    assert (result.status, result.decided_by) == (Status.REFUSED, Mechanism.VERIFIER)
    assert [p.number for p in result.phantoms] == [9]
    assert len(result.dropped) == 2 and result.citations == () and result.answer is None


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (ProviderTimeout("no answer in 60 s", "anthropic"), Status.FAILED),
        (ProviderRefused("the model declined this content", "anthropic"), Status.BLOCKED),
    ],
)
def test_provider_outcomes_are_recorded_with_passages(settings, demo_index, error, status):
    with open_with(settings, demo_index, Scripted(error=error)) as pipeline:
        result = pipeline.ask(ANSWERABLE)
    assert (result.status, result.decided_by) == (status, Mechanism.UPSTREAM)
    assert result.passages and result.answer is None and error.kind in result.error


def test_bad_questions(settings, demo_index):
    with open_with(settings, demo_index, Scripted("x")) as pipeline:
        with pytest.raises(InputError, match="empty"):
            pipeline.ask(" \n ")
        with pytest.raises(InputError, match="limit"):
            pipeline.ask("why " * 1000)


def with_minilm_gate(settings, model: GateModel):
    thresholds = {
        **settings.gate.thresholds,
        "minilm": Thresholds(strong=0.9, weak=0.5, model=model),
    }
    return settings.model_copy(
        update={"gate": settings.gate.model_copy(update={"thresholds": thresholds})}
    )


def test_the_gate_score_is_the_model_over_the_recorded_signals(settings, demo_index):
    model = GateModel(intercept=-6.0, top=-1.0, margin=19.0, coverage=5.0, maxsim=8.0)
    with open_with(with_minilm_gate(settings, model), demo_index, Scripted("x")) as pipeline:
        result = pipeline.inspect(ANSWERABLE)
        off_domain = pipeline.inspect(OFF_DOMAIN)
    gate = result.gate
    assert 0.5 < gate.maxsim <= 1.0 and gate.maxsim > off_domain.gate.maxsim
    features = {"top": gate.top_score, "margin": gate.margin, "coverage": gate.coverage}
    expected = combined_score(model, {**features, "maxsim": gate.maxsim})
    assert gate.score == pytest.approx(expected, abs=1e-5) and gate.signal == "combined"
    assert result.band is band_for(gate.score, pipeline.thresholds)


class SentenceVectorsOnly:
    """An embedder with no token vectors, as every API embedder is."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.info = inner.info

    def embed_documents(self, texts):
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)


def test_a_gate_model_needing_token_vectors_is_refused_at_start_for_other_embedders(
    settings, demo_index, minilm
):
    with_tokens = with_minilm_gate(settings, GateModel(intercept=0.0, top=1.0, maxsim=1.0))
    with LocalStore.open(demo_index) as store:
        with pytest.raises(ConfigError, match="no token vectors"):
            Pipeline(with_tokens, store, SentenceVectorsOnly(minilm))
        without = with_minilm_gate(settings, GateModel(intercept=0.0, top=1.0, margin=1.0))
        result = Pipeline(without, store, SentenceVectorsOnly(minilm)).inspect(ANSWERABLE)
        assert result.gate.maxsim is None and result.gate.signal == "combined"
