"""One contract every Generator keeps, run against each implementation.

extractive runs for real with MiniLM; anthropic and openai run through their official SDKs
against the local wire-format servers (a well-behaved scripted model: it quotes passages).
The in-process llama.cpp generator has its own slow test.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from lastword.generate import Draft, GenerationRequest, Generator, make_generator
from lastword.generate.prompt import UNANSWERABLE
from lastword.settings import GenerateSettings

MARKER = re.compile(r"\[(\d+)\]")


@pytest.fixture(params=["extractive", "anthropic", "openai"])
def generator(request: pytest.FixtureRequest, minilm) -> Generator:
    name = request.param
    if name == "extractive":
        return make_generator(GenerateSettings(), minilm, "extractive")
    api = request.getfixturevalue(f"{name}_api")
    url_key = f"{name}_url"
    settings = GenerateSettings(generator=name, max_retries=0, **{url_key: api.base_url})
    return make_generator(settings, minilm, name)


def test_it_is_a_generator_with_a_name(generator: Generator) -> None:
    assert isinstance(generator, Generator)
    assert generator.name in ("extractive", "anthropic", "openai")


def test_a_draft_cites_only_the_numbered_passages(
    generator: Generator, aspirin_request: GenerationRequest
) -> None:
    draft = generator.generate(aspirin_request)
    assert isinstance(draft, Draft) and draft.text.strip()
    cited = {int(n) for n in MARKER.findall(draft.text)}
    assert cited and cited <= {p.n for p in aspirin_request.passages}
    assert draft.declared is None  # corpus answers declare nothing; the verifier checks them


def test_web_answers_declare_what_they_used(
    generator: Generator, aspirin_request: GenerationRequest
) -> None:
    web = replace(aspirin_request, source_kind="web")
    draft = generator.generate(web)
    assert draft.declared is not None
    assert set(draft.declared) <= {p.n for p in web.passages}
    assert "USED:" not in draft.text  # the declaration line is parsed out, never shown


def test_no_passages_means_no_claim(generator: Generator, aspirin_request: GenerationRequest):
    draft = generator.generate(replace(aspirin_request, passages=()))
    assert not MARKER.findall(draft.text)
    if generator.name == "extractive":
        assert draft.text == UNANSWERABLE
