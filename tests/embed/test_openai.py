"""OpenAIEmbedder through the real ``openai`` client against the local embeddings API."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np
import pytest

from lastword.embed import make_embedder
from lastword.embed.openai import OpenAIEmbedder
from lastword.errors import (
    InputError,
    MissingExtraError,
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.provider_edge import PLACEHOLDER_KEY
from lastword.settings import EmbedSettings
from tests.embed.conftest import OPENAI_KEY
from tests.servers.base import LocalServer, Reply
from tests.servers.openai_embeddings_api import (
    OpenAIEmbeddingsAPI,
    masked,
    rate_limited,
    server_error,
)

MakeOpenAI = Callable[..., OpenAIEmbedder]


@pytest.fixture
def make_openai(openai_server: LocalServer) -> MakeOpenAI:
    def make(**kwargs: object) -> OpenAIEmbedder:
        kwargs.setdefault("base_url", f"{openai_server.url}/v1")
        kwargs.setdefault("api_key", OPENAI_KEY)
        return OpenAIEmbedder(**kwargs)  # type: ignore[arg-type]

    return make


def _batch_sizes(server: LocalServer) -> list[int]:
    return [len(request.json()["input"]) for request in server.requests]


def test_request_shape(make_openai: MakeOpenAI, openai_server: LocalServer) -> None:
    matrix = make_openai().embed_documents(["Vitamin C prevents scurvy.", "Insulin and glucose."])
    body = openai_server.requests[0].json()
    assert body["model"] == "text-embedding-3-small"
    assert body["input"] == ["Vitamin C prevents scurvy.", "Insulin and glucose."]
    assert body["encoding_format"] == "base64"  # the SDK's default; it decodes the answer itself
    assert "dimensions" not in body
    assert openai_server.requests[0].header("authorization") == f"Bearer {OPENAI_KEY}"
    assert matrix.shape == (2, 1536) and matrix.dtype == np.float32


def test_queries_and_documents_are_embedded_alike(make_openai: MakeOpenAI) -> None:
    embedder = make_openai()
    text = ["Statins reduce LDL cholesterol."]
    np.testing.assert_allclose(embedder.embed_queries(text), embedder.embed_documents(text))


def test_requested_dimensions_are_sent_and_known_without_a_request(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    embedder = make_openai(dimensions=256)
    assert embedder.info.dim == 256
    assert openai_server.requests == []
    assert embedder.embed_documents(["shortened"]).shape == (1, 256)
    assert openai_server.requests[0].json()["dimensions"] == 256


def test_dimension_is_probed_once_when_info_comes_first(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    embedder = make_openai(model="text-embedding-3-large")
    info = embedder.info
    assert (info.name, info.model, info.dim) == ("openai", "text-embedding-3-large", 3072)
    assert embedder.info.dim == 3072
    assert len(openai_server.requests) == 1
    embedder.embed_documents(["after the probe"])
    assert len(openai_server.requests) == 2


def test_dimension_is_learned_from_the_first_response(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    embedder = make_openai(model="nomic-embed-text")
    assert embedder.embed_documents(["first"]).shape == (1, 768)
    assert embedder.info.dim == 768
    assert len(openai_server.requests) == 1


def test_batches_at_most_2048_inputs(make_openai: MakeOpenAI, openai_server: LocalServer):
    texts = [f"note {i} about case {i % 11}" for i in range(4100)]
    matrix = make_openai(dimensions=8).embed_documents(texts)
    assert _batch_sizes(openai_server) == [2048, 2048, 4]
    assert matrix.shape == (4100, 8)
    sent = [text for request in openai_server.requests for text in request.json()["input"]]
    assert sent == texts


def test_batch_size_from_settings(
    openai_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    settings = EmbedSettings(
        embedder="openai",
        openai_url=f"{openai_server.url}/v1",
        openai_model="text-embedding-3-small",
        openai_dimensions=32,
        batch_size=100,
    )
    embedder = make_embedder(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.embed_documents([f"item {i}" for i in range(250)]).shape == (250, 32)
    assert _batch_sizes(openai_server) == [100, 100, 50]


def test_batches_stay_inside_the_token_budget(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    # 30,000 bytes each: the byte estimate (30,002 tokens) allows 9 inputs per 300K request.
    texts = [(f"report{i} " + "adverse event follow up " * 1300)[:30000] for i in range(20)]
    assert make_openai(dimensions=8).embed_documents(texts).shape == (20, 8)
    assert _batch_sizes(openai_server) == [9, 9, 2]


def test_429_is_retried_after_retry_after(make_openai: MakeOpenAI, openai_server: LocalServer):
    openai_server.queue(rate_limited(retry_after="1"))
    started = time.monotonic()
    matrix = make_openai(max_retries=2).embed_documents(["Retry after a rate limit."])
    assert time.monotonic() - started >= 1.0
    assert matrix.shape == (1, 1536)
    assert len(openai_server.requests) == 2


def test_429_after_the_last_retry_is_rate_limited(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    openai_server.queue(rate_limited(retry_after="1"), rate_limited(retry_after="1"))
    with pytest.raises(ProviderRateLimited, match="Rate limit reached") as caught:
        make_openai(max_retries=1).embed_documents(["Always limited."])
    assert caught.value.retry_after == 1.0
    assert len(openai_server.requests) == 2


def test_500_is_retried(make_openai: MakeOpenAI, openai_server: LocalServer) -> None:
    openai_server.queue(server_error())
    assert make_openai(max_retries=2).embed_documents(["Retry a 500."]).shape == (1, 1536)
    assert len(openai_server.requests) == 2


def test_500_without_retries_is_unavailable(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    openai_server.queue(server_error())
    with pytest.raises(ProviderUnavailable, match="HTTP 500"):
        make_openai(max_retries=0).embed_documents(["No retry budget."])


def test_rejected_key_is_not_retried_and_not_shown(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    wrong_key = "sk-wrong-Tg83Ld02Mx5Ry7Ka"
    embedder = make_openai(api_key=wrong_key, max_retries=3)
    with pytest.raises(ProviderAuthError) as caught:
        embedder.embed_documents(["Who am I?"])
    message = str(caught.value)
    assert "OPENAI_API_KEY" in message and "Incorrect API key provided" in message
    # OpenAI echoes a masked key in its 401 message; neither form may reach the user.
    assert wrong_key not in message and masked(wrong_key) not in message
    assert wrong_key[-4:] not in message
    assert wrong_key not in repr(embedder)
    assert len(openai_server.requests) == 1


def test_unknown_model_is_a_provider_error(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    with pytest.raises(ProviderError, match="text-embedding-9") as caught:
        make_openai(model="text-embedding-9").embed_documents(["?"])
    assert type(caught.value) is ProviderError
    assert len(openai_server.requests) == 1


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderAuthError, match="set the OPENAI_API_KEY environment variable"):
        OpenAIEmbedder()


def test_local_server_without_key_gets_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Like Ollama: any key accepted, vectors not normalised.
    api = OpenAIEmbeddingsAPI(api_key=None, normalised=False)
    with api.server() as server:
        embedder = OpenAIEmbedder("nomic-embed-text", base_url=f"{server.url}/v1")
        matrix = embedder.embed_documents(["unscaled one", "unscaled two", "unscaled three"])
        assert server.requests[0].header("authorization") == f"Bearer {PLACEHOLDER_KEY}"
    assert matrix.shape == (3, 768)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_placeholder_rejected_by_a_server_that_wants_a_key(
    openai_server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    embedder = OpenAIEmbedder(base_url=f"{openai_server.url}/v1", max_retries=0)
    with pytest.raises(ProviderAuthError, match="wants a key: set OPENAI_API_KEY"):
        embedder.embed_documents(["hello"])


def test_slow_server_is_a_timeout(make_openai: MakeOpenAI, openai_server: LocalServer) -> None:
    openai_server.queue(Reply(200, {}, delay_s=2.0))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match=r"0\.3 s"):
        make_openai(timeout_s=0.3, max_retries=0).embed_documents(["Too slow."])
    assert time.monotonic() - started < 1.6
    assert len(openai_server.requests) == 1


def test_unreachable_server_is_unavailable() -> None:
    with LocalServer({}) as closed:
        dead_url = f"{closed.url}/v1"
    embedder = OpenAIEmbedder(base_url=dead_url, api_key=OPENAI_KEY, max_retries=0)
    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        embedder.embed_documents(["Anyone there?"])


def test_bad_input_fails_before_any_request(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    embedder = make_openai()
    with pytest.raises(InputError, match="text 0 is empty"):
        embedder.embed_documents([""])
    with pytest.raises(InputError, match="single string"):
        embedder.embed_documents("a bare string")  # type: ignore[arg-type]
    assert openai_server.requests == []


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # what an absent package looks like
    with pytest.raises(MissingExtraError, match=r"pip install 'lastword\[openai\]'"):
        OpenAIEmbedder(api_key=OPENAI_KEY)


def test_unreadable_success_body_is_a_provider_error(
    make_openai: MakeOpenAI, openai_server: LocalServer
) -> None:
    openai_server.queue(Reply(200, {"object": "list", "data": [], "model": "m", "usage": {}}))
    with pytest.raises(ProviderError, match="unreadable response"):
        make_openai().embed_documents(["Half an answer."])
