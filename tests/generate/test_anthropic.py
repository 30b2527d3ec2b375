"""AnthropicGenerator through the official SDK against a local Messages API server."""

from __future__ import annotations

import sys
import time

import pytest

from lastword.errors import (
    MissingExtraError,
    ProviderAuthError,
    ProviderRateLimited,
    ProviderRefused,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.generate.anthropic import AnthropicGenerator
from lastword.generate.protocol import GenerationRequest, Generator
from lastword.generate.registry import make_generator
from lastword.settings import GenerateSettings
from tests.generate.conftest import ANTHROPIC_TEST_KEY
from tests.servers import anthropic_api as wire
from tests.servers.anthropic_api import AnthropicAPI
from tests.servers.scripted_model import ModelCall


def generator_for(api: AnthropicAPI, **overrides: object) -> AnthropicGenerator:
    values: dict[str, object] = {
        "generator": "anthropic",
        "anthropic_model": "claude-sonnet-4-6",
        "anthropic_url": api.base_url,
        "max_retries": 0,
        "timeout_s": 5.0,
    }
    values.update(overrides)
    return AnthropicGenerator.from_settings(GenerateSettings(**values))


def test_registry_builds_it_and_it_is_a_generator(anthropic_api: AnthropicAPI) -> None:
    settings = GenerateSettings(
        generator="anthropic",
        anthropic_model="claude-sonnet-4-6",
        anthropic_url=anthropic_api.base_url,
    )
    generator = make_generator(settings, embedder=None)  # type: ignore[arg-type]
    assert isinstance(generator, AnthropicGenerator)
    assert isinstance(generator, Generator)
    assert generator.name == "anthropic"


def test_prompt_reaches_the_api_numbered_and_neutralised(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    draft = generator_for(anthropic_api, max_tokens=321).generate(aspirin_request)

    [request] = anthropic_api.requests
    assert request.header("anthropic-version")
    body = request.json()
    assert body["model"] == "claude-sonnet-4-6"
    assert body["max_tokens"] == 321
    assert "temperature" not in body  # API 2026-10-21 rejects sampling parameters
    assert "make no claim the passages do not support" in body["system"].lower()
    [message] = body["messages"]
    assert message["role"] == "user"
    call = anthropic_api.calls[0]
    assert sorted(call.passages) == [1, 2, 3]
    assert call.passage_attributes[1] == {
        "title": "Low-dose aspirin and cardiovascular prevention",
        "page": "3",
    }
    assert "(ref. 12)" in call.passages[1] and "[12]" not in message["content"]
    assert "(ref. 3, 4)" in call.passages[1]
    assert call.question == aspirin_request.question

    # the default scripted model quotes the first sentence of passages 1 and 2
    assert draft.text.startswith("In the Physicians' Health Study, aspirin 325 mg")
    assert draft.text.endswith("[2].")
    assert draft.declared is None


def test_usage_is_filled_with_an_estimated_cost(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    anthropic_api.model = lambda call: "The passages do not answer this question."
    draft = generator_for(anthropic_api).generate(aspirin_request)
    assert draft.text == "The passages do not answer this question."
    assert draft.usage is not None
    assert draft.usage.model == "claude-sonnet-4-6"
    assert draft.usage.input_tokens > 200  # three passages and the rules
    assert draft.usage.output_tokens == 11
    expected = (draft.usage.input_tokens * 3.0 + draft.usage.output_tokens * 15.0) / 1e6
    assert draft.usage.cost_usd == pytest.approx(expected)


def test_scripted_model_sees_what_a_model_would(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    def phantom(call: ModelCall) -> str:
        return f"Aspirin cut heart attacks by 44% [1][{len(call.passages) + 6}]."

    anthropic_api.model = phantom
    draft = generator_for(anthropic_api).generate(aspirin_request)
    assert draft.text == "Aspirin cut heart attacks by 44% [1][9]."  # untouched: no verifying here


def test_web_answers_declare_what_they_used(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    web = GenerationRequest(
        question=aspirin_request.question, passages=aspirin_request.passages, source_kind="web"
    )
    draft = generator_for(anthropic_api).generate(web)
    assert draft.declared == (1, 2)
    assert "USED" not in draft.text
    assert "USED: 1, 3" in anthropic_api.calls[0].system


def test_refusal_stop_reason_raises_provider_refused(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    anthropic_api.queue(wire.message_reply("", stop_reason="refusal"))
    with pytest.raises(ProviderRefused) as caught:
        generator_for(anthropic_api).generate(aspirin_request)
    assert caught.value.kind == "refused"


def test_429_without_retries_carries_retry_after(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    anthropic_api.queue(wire.rate_limited(retry_after="7"))
    with pytest.raises(ProviderRateLimited) as caught:
        generator_for(anthropic_api, max_retries=0).generate(aspirin_request)
    assert caught.value.retry_after == 7.0
    assert "rate limit" in str(caught.value)
    assert len(anthropic_api.requests) == 1


def test_429_with_retries_recovers(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    anthropic_api.queue(wire.rate_limited(retry_after="0.05"), wire.overloaded())
    anthropic_api.queue(wire.rate_limited(retry_after="0.05"))
    started = time.perf_counter()
    draft = generator_for(anthropic_api, max_retries=3).generate(aspirin_request)
    assert draft.text.endswith("[2].")
    assert len(anthropic_api.requests) == 4  # 429, 529, 429, then the answer
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(("reply", "status"), [(wire.overloaded, 529), (wire.api_error, 500)])
def test_overloaded_and_server_errors_are_unavailable(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest, reply, status: int
) -> None:
    anthropic_api.queue(reply())
    with pytest.raises(ProviderUnavailable) as caught:
        generator_for(anthropic_api, max_retries=0).generate(aspirin_request)
    assert f"HTTP {status}" in str(caught.value)


def test_rejected_key_is_an_auth_error_without_the_key(
    anthropic_api: AnthropicAPI,
    aspirin_request: GenerationRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wrong_key = "sk-ant-wrong-9876543210zyxwvutsrqponm"
    monkeypatch.setenv("ANTHROPIC_API_KEY", wrong_key)
    with pytest.raises(ProviderAuthError) as caught:
        generator_for(anthropic_api).generate(aspirin_request)
    assert anthropic_api.requests[0].header("authorization") == f"Bearer {wrong_key}"
    message = str(caught.value)
    assert "ANTHROPIC_API_KEY" in message and "401" in message
    assert wrong_key not in message and ANTHROPIC_TEST_KEY not in message


def test_missing_key_names_the_variable(
    anthropic_api: AnthropicAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ProviderAuthError, match="ANTHROPIC_API_KEY"):
        generator_for(anthropic_api)
    assert anthropic_api.requests == []  # refused before any call


def test_slow_server_is_a_timeout(
    anthropic_api: AnthropicAPI, aspirin_request: GenerationRequest
) -> None:
    generator = generator_for(anthropic_api, timeout_s=0.3)
    anthropic_api.queue(wire.message_reply("late [1].", delay_s=2.0))
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout, match=r"0\.3 s"):
        generator.generate(aspirin_request)
    assert time.perf_counter() - started < 1.9  # gave up before the server answered


def test_unreachable_server_is_unavailable(
    aspirin_request: GenerationRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_TEST_KEY)
    with AnthropicAPI() as gone:
        url = gone.base_url
    settings = GenerateSettings(
        anthropic_model="claude-sonnet-4-6", anthropic_url=url, max_retries=0, timeout_s=2.0
    )
    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        AnthropicGenerator.from_settings(settings).generate(aspirin_request)


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes "import anthropic" fail
    with pytest.raises(MissingExtraError, match=r"pip install 'lastword\[anthropic\]'"):
        AnthropicGenerator("claude-sonnet-4-6", api_key=ANTHROPIC_TEST_KEY)
