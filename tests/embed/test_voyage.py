"""VoyageEmbedder through the real ``voyageai`` client against the local Voyage API."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np
import pytest

from lastword.embed.voyage import MAX_TOKENS_PER_REQUEST, VoyageEmbedder
from lastword.errors import (
    InputError,
    MissingExtraError,
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.retry_after import retry_after_seconds as parse_retry_after
from tests.embed.conftest import VOYAGE_KEY, VOYAGE_UNLISTED_MODEL
from tests.servers.base import LocalServer, Reply
from tests.servers.voyage_api import VoyageAPI, rate_limited, voyage_error

MakeVoyage = Callable[..., VoyageEmbedder]


@pytest.fixture
def make_voyage(voyage_server: LocalServer) -> MakeVoyage:
    def make(**kwargs: object) -> VoyageEmbedder:
        kwargs.setdefault("base_url", f"{voyage_server.url}/v1")
        kwargs.setdefault("api_key", VOYAGE_KEY)
        embedder = VoyageEmbedder(**kwargs)  # type: ignore[arg-type]
        embedder.backoff_base_s = 0.01  # keep backoff waits short in tests
        return embedder

    return make


def _batch_sizes(server: LocalServer) -> list[int]:
    return [len(request.json()["input"]) for request in server.requests]


def test_sends_input_type_model_and_key(make_voyage: MakeVoyage, voyage_server: LocalServer):
    embedder = make_voyage()
    documents = embedder.embed_documents(["Vitamin C prevents scurvy."])
    queries = embedder.embed_queries(["Vitamin C prevents scurvy."])
    first, second = (request.json() for request in voyage_server.requests)
    assert first["input_type"] == "document" and second["input_type"] == "query"
    assert first["model"] == "voyage-3" and first["truncation"] is True
    assert first["input"] == ["Vitamin C prevents scurvy."]
    assert voyage_server.requests[0].header("authorization") == f"Bearer {VOYAGE_KEY}"
    # The server embeds queries and documents differently, as Voyage does.
    similarity = float(documents[0] @ queries[0])
    assert 0.9 < similarity < 0.9999


def test_known_model_dimension_needs_no_request(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    info = make_voyage().info
    assert (info.name, info.model, info.dim) == ("voyage", "voyage-3", 1024)
    assert voyage_server.requests == []


def test_unlisted_model_dimension_is_probed_once(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    embedder = make_voyage(model=VOYAGE_UNLISTED_MODEL)
    assert embedder.info.dim == 256
    assert embedder.info.dim == 256
    assert len(voyage_server.requests) == 1
    assert embedder.embed_queries([]).shape == (0, 256)
    assert len(voyage_server.requests) == 1


def test_unlisted_model_dimension_is_learned_from_first_response(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    embedder = make_voyage(model=VOYAGE_UNLISTED_MODEL)
    assert embedder.embed_documents(["a passage"]).shape == (1, 256)
    assert embedder.info.dim == 256
    assert len(voyage_server.requests) == 1


def test_dimension_other_than_known_is_an_error() -> None:
    with VoyageAPI(VOYAGE_KEY, models={"voyage-3": 256}).server() as server:
        embedder = VoyageEmbedder(base_url=f"{server.url}/v1", api_key=VOYAGE_KEY)
        with pytest.raises(ProviderError, match="256-d vectors, expected 1024-d"):
            embedder.embed_documents(["a passage"])


def test_batches_at_most_1000_texts(make_voyage: MakeVoyage, voyage_server: LocalServer):
    texts = [f"passage {i} on topic {i % 7}" for i in range(2500)]
    matrix = make_voyage().embed_documents(texts)
    assert _batch_sizes(voyage_server) == [1000, 1000, 500]
    assert matrix.shape == (2500, 1024)
    sent = [text for request in voyage_server.requests for text in request.json()["input"]]
    assert sent == texts


def test_batch_size_setting_caps_requests(make_voyage: MakeVoyage, voyage_server: LocalServer):
    make_voyage(batch_size=32).embed_documents([f"passage {i}" for i in range(70)])
    assert _batch_sizes(voyage_server) == [32, 32, 6]


def test_batches_stay_inside_the_token_budget(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    # 6,000 bytes each: the byte estimate (6,002 tokens) allows 19 texts per 120K request.
    texts = [(f"trial{i} " + "randomised controlled outcome " * 200)[:6000] for i in range(50)]
    matrix = make_voyage().embed_documents(texts)
    assert matrix.shape == (50, 1024)
    assert _batch_sizes(voyage_server) == [19, 19, 12]


def test_server_rejects_an_oversized_batch_and_it_is_not_retried(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    embedder = make_voyage(max_retries=3)
    embedder.max_tokens_per_request = 10**9  # disable client-side token batching
    texts = ["word " * 1500] * 100  # 150,000 tokens in one request
    with pytest.raises(ProviderError, match="max allowed tokens per submitted batch") as caught:
        embedder.embed_documents(texts)
    assert type(caught.value) is ProviderError
    assert len(voyage_server.requests) == 1
    assert MAX_TOKENS_PER_REQUEST == 120_000


def test_429_is_retried_after_retry_after(make_voyage: MakeVoyage, voyage_server: LocalServer):
    voyage_server.queue(rate_limited(retry_after="1"))
    started = time.monotonic()
    matrix = make_voyage().embed_documents(["Retry after a rate limit."])
    elapsed = time.monotonic() - started
    assert matrix.shape == (1, 1024)
    assert len(voyage_server.requests) == 2
    assert elapsed >= 1.0  # the backoff alone would have waited about 0.01 s


def test_429_without_retry_after_backs_off_exponentially(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    embedder = make_voyage()
    embedder.backoff_base_s = 0.1
    voyage_server.queue(rate_limited(), rate_limited(), rate_limited())
    started = time.monotonic()
    embedder.embed_documents(["Back off."])
    elapsed = time.monotonic() - started
    assert len(voyage_server.requests) == 4
    # Waits are base * 2**attempt scaled by a jitter in [0.5, 1]: at least 0.05 + 0.1 + 0.2.
    assert 0.35 <= elapsed < 2.0


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_is_retried(make_voyage: MakeVoyage, voyage_server: LocalServer, status: int):
    voyage_server.queue(voyage_error(status, "Internal server error"))
    assert make_voyage().embed_documents(["Retry a server error."]).shape == (1, 1024)
    assert len(voyage_server.requests) == 2


def test_retries_are_bounded(make_voyage: MakeVoyage, voyage_server: LocalServer) -> None:
    voyage_server.queue(*[rate_limited(retry_after="0")] * 3)
    with pytest.raises(ProviderRateLimited) as caught:
        make_voyage(max_retries=2).embed_documents(["Always limited."])
    assert caught.value.retry_after == 0.0
    assert len(voyage_server.requests) == 3


def test_too_long_retry_after_is_raised_at_once(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    voyage_server.queue(rate_limited(retry_after="3600"))
    with pytest.raises(ProviderRateLimited) as caught:
        make_voyage().embed_documents(["Come back in an hour."])
    assert caught.value.retry_after == 3600.0
    assert len(voyage_server.requests) == 1


def test_unavailable_after_retries(make_voyage: MakeVoyage, voyage_server: LocalServer) -> None:
    voyage_server.queue(*[voyage_error(503, "Service unavailable")] * 2)
    with pytest.raises(ProviderUnavailable, match="HTTP 503"):
        make_voyage(max_retries=1).embed_documents(["Down."])
    assert len(voyage_server.requests) == 2


def test_rejected_key_is_not_retried_and_not_shown(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    wrong_key = "pa-wrong-Sx93hd72Kq0Lp4Vb"
    embedder = make_voyage(api_key=wrong_key, max_retries=3)
    with pytest.raises(ProviderAuthError) as caught:
        embedder.embed_documents(["Who am I?"])
    message = str(caught.value)
    assert "VOYAGE_API_KEY" in message and "Provided API key is invalid" in message
    assert wrong_key not in message and wrong_key not in repr(embedder)
    assert len(voyage_server.requests) == 1


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    monkeypatch.delenv("VOYAGE_API_KEY_PATH", raising=False)
    with pytest.raises(ProviderAuthError, match="set the VOYAGE_API_KEY environment variable"):
        VoyageEmbedder()
    monkeypatch.setenv("VOYAGE_API_KEY", "   ")
    with pytest.raises(ProviderAuthError, match="VOYAGE_API_KEY"):
        VoyageEmbedder()


def test_key_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, voyage_server: LocalServer
) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", VOYAGE_KEY)
    embedder = VoyageEmbedder(base_url=f"{voyage_server.url}/v1")
    assert embedder.embed_queries(["from the environment"]).shape == (1, 1024)


def test_slow_server_is_a_timeout(make_voyage: MakeVoyage, voyage_server: LocalServer) -> None:
    voyage_server.queue(Reply(200, {}, delay_s=2.0))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match=r"0\.3 s"):
        make_voyage(timeout_s=0.3, max_retries=0).embed_documents(["Too slow."])
    assert time.monotonic() - started < 1.6
    assert len(voyage_server.requests) == 1


def test_timeout_is_retried(make_voyage: MakeVoyage, voyage_server: LocalServer) -> None:
    voyage_server.queue(Reply(200, {}, delay_s=1.0))
    matrix = make_voyage(timeout_s=0.3, max_retries=1).embed_documents(["Slow, then fine."])
    assert matrix.shape == (1, 1024)
    assert len(voyage_server.requests) == 2


def test_unreachable_server_is_unavailable() -> None:
    with LocalServer({}) as closed:
        dead_url = f"{closed.url}/v1"
    embedder = VoyageEmbedder(base_url=dead_url, api_key=VOYAGE_KEY, max_retries=0)
    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        embedder.embed_documents(["Anyone there?"])


def test_bad_input_fails_before_any_request(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    embedder = make_voyage()
    with pytest.raises(InputError, match="text 1 is empty"):
        embedder.embed_documents(["fine", "  "])
    with pytest.raises(InputError, match="single string"):
        embedder.embed_queries("a bare string")  # type: ignore[arg-type]
    assert voyage_server.requests == []


def test_vectors_rank_related_passages_first(make_voyage: MakeVoyage) -> None:
    embedder = make_voyage()
    passages = embedder.embed_documents(
        ["Metformin lowers hepatic glucose output.", "Statins reduce LDL cholesterol."]
    )
    question = embedder.embed_queries(["Which drug reduces LDL cholesterol?"])
    assert np.argmax(question @ passages.T) == 1


@pytest.mark.parametrize(
    ("value", "expected"), [("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("soon", None), (None, None)]
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    headers = {} if value is None else {"retry-after": value}
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    from email.utils import formatdate

    seconds = parse_retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert seconds is not None and 25 <= seconds <= 31


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "voyageai", None)  # what an absent package looks like
    with pytest.raises(MissingExtraError, match=r"pip install 'lastword\[voyage\]'"):
        VoyageEmbedder(api_key=VOYAGE_KEY)


def test_unreadable_success_body_is_a_provider_error(
    make_voyage: MakeVoyage, voyage_server: LocalServer
) -> None:
    voyage_server.queue(Reply(200, {"object": "list"}))
    with pytest.raises(ProviderError, match="unreadable response"):
        make_voyage().embed_documents(["Half an answer."])
