"""OpenAIGenerator through the official SDK against a local Chat Completions server."""

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
from lastword.generate.openai import OpenAIGenerator
from lastword.generate.protocol import GenerationRequest, Generator
from lastword.generate.registry import make_generator
from lastword.provider_edge import PLACEHOLDER_KEY
from lastword.settings import GenerateSettings
from tests.generate.conftest import OPENAI_TEST_KEY
from tests.servers import openai_chat_api as wire
from tests.servers.openai_chat_api import OpenAIChatAPI


def generator_for(api: OpenAIChatAPI, **overrides: object) -> OpenAIGenerator:
    values: dict[str, object] = {
        "generator": "openai",
        "openai_url": api.base_url,
        "max_retries": 0,
        "timeout_s": 5.0,
    }
    values.update(overrides)
    return OpenAIGenerator.from_settings(GenerateSettings(**values))


def test_registry_builds_it_and_it_is_a_generator(openai_api: OpenAIChatAPI) -> None:
    settings = GenerateSettings(generator="openai", openai_url=openai_api.base_url)
    generator = make_generator(settings, embedder=None)  # type: ignore[arg-type]
    assert isinstance(generator, OpenAIGenerator)
    assert isinstance(generator, Generator)
    assert generator.name == "openai"


def test_prompt_reaches_the_api_numbered_and_neutralised(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    draft = generator_for(openai_api, max_tokens=222, temperature=0.2).generate(aspirin_request)

    [request] = openai_api.requests
    assert request.header("authorization") == f"Bearer {OPENAI_TEST_KEY}"
    body = request.json()
    assert body["model"] == "gpt-4o-mini"
    assert body["max_tokens"] == 222  # a custom base URL gets the name every server knows
    assert body["temperature"] == 0.2
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert "never answer from memory" in system["content"].lower()
    call = openai_api.calls[0]
    assert sorted(call.passages) == [1, 2, 3]
    assert "(ref. 5-7)" in call.passages[2] and "[5-7]" not in user["content"]
    assert call.question == aspirin_request.question

    assert draft.text.startswith("In the Physicians' Health Study")
    assert draft.text.endswith("[2].")


def test_usage_comes_from_the_response(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    openai_api.model = lambda call: "Aspirin 325 mg cut first heart attacks by 44% [1]."
    draft = generator_for(openai_api).generate(aspirin_request)
    assert draft.text == "Aspirin 325 mg cut first heart attacks by 44% [1]."
    usage = draft.usage
    assert usage is not None
    assert usage.model == "gpt-4o-mini"
    assert usage.input_tokens > 200 and usage.output_tokens == 13
    expected = (usage.input_tokens * 0.15 + usage.output_tokens * 0.60) / 1e6
    assert usage.cost_usd == pytest.approx(expected)


def test_unknown_model_and_missing_usage_give_no_cost(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    openai_api.queue(wire.completion_reply("Fine [1].", model="llama3.2:1b"))
    draft = generator_for(openai_api, openai_model="llama3.2:1b").generate(aspirin_request)
    assert draft.usage is not None and draft.usage.cost_usd is None
    openai_api.queue(wire.completion_reply("Fine [1].", with_usage=False))
    assert generator_for(openai_api).generate(aspirin_request).usage is None


def test_web_answers_declare_what_they_used(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    openai_api.model = lambda call: "Aspirin lowers risk [3].\nUSED: 3"
    web = GenerationRequest(
        question=aspirin_request.question, passages=aspirin_request.passages, source_kind="web"
    )
    draft = generator_for(openai_api).generate(web)
    assert (draft.text, draft.declared) == ("Aspirin lowers risk [3].", (3,))


@pytest.mark.parametrize(
    "reply",
    [
        wire.completion_reply(None, refusal="I'm sorry, I can't help with that."),
        wire.completion_reply("Partial answer", finish_reason="content_filter"),
    ],
    ids=["refusal-field", "content-filter"],
)
def test_refusals_raise_provider_refused(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest, reply: wire.Reply
) -> None:
    openai_api.queue(reply)
    with pytest.raises(ProviderRefused):
        generator_for(openai_api).generate(aspirin_request)


def test_429_without_retries_carries_retry_after(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    openai_api.queue(wire.rate_limited(retry_after="7"))
    with pytest.raises(ProviderRateLimited) as caught:
        generator_for(openai_api, max_retries=0).generate(aspirin_request)
    assert caught.value.retry_after == 7.0
    assert "Rate limit reached" in str(caught.value)
    assert len(openai_api.requests) == 1


def test_429_with_retries_recovers(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    openai_api.queue(wire.rate_limited(retry_after="0.05"), wire.rate_limited(retry_after="0.05"))
    draft = generator_for(openai_api, max_retries=2).generate(aspirin_request)
    assert draft.text.endswith("[2].")
    assert len(openai_api.requests) == 3


@pytest.mark.parametrize(("reply", "status"), [(wire.server_error, 500), (wire.overloaded, 503)])
def test_server_errors_are_unavailable(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest, reply, status: int
) -> None:
    openai_api.queue(reply())
    with pytest.raises(ProviderUnavailable, match=f"HTTP {status}"):
        generator_for(openai_api, max_retries=0).generate(aspirin_request)


def test_rejected_key_is_an_auth_error_without_the_key(
    openai_api: OpenAIChatAPI,
    aspirin_request: GenerationRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wrong_key = "sk-proj-wrongwrongwrong0123456789WXYZ"
    monkeypatch.setenv("OPENAI_API_KEY", wrong_key)
    with pytest.raises(ProviderAuthError) as caught:
        generator_for(openai_api).generate(aspirin_request)
    # the server's own message quotes the key masked, as OpenAI does; ours quotes nothing
    assert "WXYZ" in str(caught.value.__cause__)
    message = str(caught.value)
    assert "OPENAI_API_KEY" in message and "401" in message
    assert wrong_key not in message and "WXYZ" not in message and "sk-" not in message


def test_missing_key_for_openai_itself_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderAuthError, match="OPENAI_API_KEY"):
        OpenAIGenerator.from_settings(GenerateSettings(openai_url=None))


def test_local_server_without_key_gets_a_placeholder(
    openai_api: OpenAIChatAPI,
    aspirin_request: GenerationRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    openai_api.api_key = None  # like Ollama / vLLM / llama.cpp's server: any key will do
    draft = generator_for(openai_api).generate(aspirin_request)
    assert draft.text.endswith("[2].")
    assert openai_api.requests[0].header("authorization") == f"Bearer {PLACEHOLDER_KEY}"


def test_slow_server_is_a_timeout(
    openai_api: OpenAIChatAPI, aspirin_request: GenerationRequest
) -> None:
    generator = generator_for(openai_api, timeout_s=0.3)
    openai_api.queue(wire.completion_reply("late [1].", delay_s=2.0))
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout, match=r"0\.3 s"):
        generator.generate(aspirin_request)
    assert time.perf_counter() - started < 1.9


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # makes "import openai" fail
    with pytest.raises(MissingExtraError, match=r"pip install 'lastword\[openai\]'"):
        OpenAIGenerator("gpt-4o-mini", api_key=OPENAI_TEST_KEY)
