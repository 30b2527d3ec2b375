"""Both providers against local servers speaking Brave's and Serper's wire formats.

One contract (parametrised over the providers) plus each API's own error bodies.
"""

from __future__ import annotations

import logging

import pytest

from lastword.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.websearch.brave import BraveSearchProvider
from lastword.websearch.protocol import SearchProvider, SearchResult
from lastword.websearch.serper import SerperSearchProvider
from tests.servers import brave_api, serper_api
from tests.servers.base import Reply
from tests.servers.brave_api import BraveAPI, Page
from tests.servers.serper_api import SerperAPI

BRAVE_KEY = "BSA-brave-secret-0123456789abcdef"
SERPER_KEY = "serper-secret-fedcba9876543210"
PAGES = [
    Page(
        "Caffeine - Wikipedia",
        "https://en.wikipedia.org/wiki/Caffeine",
        "In healthy adults the half-life of caffeine is about 5 hours.",
    ),
    Page(
        "Caffeine and sleep",
        "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep",
        "Caffeine's half-life ranges from 2 to 12 hours between people.",
    ),
    Page(
        "Coffee (Wikipedia)",
        "https://en.wikipedia.org/wiki/Coffee",
        "Coffee is a beverage brewed from roasted coffee beans.",
    ),
]


@pytest.fixture(scope="module")
def brave():
    with BraveAPI(PAGES, api_key=BRAVE_KEY) as api:
        yield api


@pytest.fixture(scope="module")
def serper():
    with SerperAPI(PAGES, api_key=SERPER_KEY) as api:
        yield api


@pytest.fixture(params=["brave", "serper"])
def setup(request, brave, serper):
    """(provider, server, key) for each implementation, the server's log cleared."""
    brave.reset()
    serper.reset()
    if request.param == "brave":
        return BraveSearchProvider(BRAVE_KEY, base_url=brave.url, timeout_s=2), brave, BRAVE_KEY
    return SerperSearchProvider(SERPER_KEY, base_url=serper.url, timeout_s=2), serper, SERPER_KEY


def test_contract_results_are_title_snippet_url(setup):
    provider, server, _ = setup
    assert isinstance(provider, SearchProvider)
    results = provider.search("caffeine half-life adults", 2)
    assert results == (
        SearchResult(PAGES[0].title, PAGES[0].snippet, PAGES[0].url),
        SearchResult(PAGES[1].title, PAGES[1].snippet, PAGES[1].url),
    )
    assert results[1].domain == "sleepfoundation.org"
    assert len(server.searches) == 1


def test_contract_key_only_in_header_never_in_url_or_body(setup):
    provider, server, key = setup
    provider.search("caffeine", 3)
    (request,) = server.searches
    assert key not in request.path
    assert all(key not in v for values in request.query.values() for v in values)
    assert key.encode() not in request.body
    header = "x-subscription-token" if provider.name == "brave" else "x-api-key"
    assert request.header(header) == key
    # no location is ever sent
    assert not [h for h in request.headers if h.lower().startswith("x-loc")]


def test_brave_request_parameters(brave):
    brave.reset()
    provider = BraveSearchProvider(BRAVE_KEY, base_url=brave.url, safesearch="strict")
    provider.search("caffeine half-life", 4)
    (request,) = brave.searches
    assert request.method == "GET" and request.path == "/res/v1/web/search"
    assert request.query == {
        "q": ["caffeine half-life"],
        "count": ["4"],
        "safesearch": ["strict"],
        "text_decorations": ["false"],
        "spellcheck": ["false"],
    }


def test_serper_request_body(serper):
    serper.reset()
    SerperSearchProvider(SERPER_KEY, base_url=serper.url).search("caffeine half-life", 4)
    (request,) = serper.searches
    assert request.method == "POST" and request.path == "/search"
    assert request.json() == {"q": "caffeine half-life", "num": 4}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (brave_api.token_invalid(), ProviderAuthError),
        (brave_api.rate_limited(), ProviderRateLimited),
        (brave_api.quota_limited(), ProviderRateLimited),
        (brave_api.server_error(), ProviderUnavailable),
        (brave_api.validation_error("field required", "q"), ProviderError),
    ],
)
def test_brave_errors_from_real_bodies(brave, reply, error):
    brave.reset()
    brave.queue(reply)
    provider = BraveSearchProvider(BRAVE_KEY, base_url=brave.url)
    with pytest.raises(error) as caught:
        provider.search("caffeine", 3)
    assert BRAVE_KEY not in str(caught.value)
    if error is ProviderRateLimited:
        assert caught.value.retry_after == 1.0
        assert reply.body["error"]["code"] in str(caught.value)


def test_brave_wrong_key_is_an_auth_error(brave):
    provider = BraveSearchProvider("not-the-key", base_url=brave.url)
    with pytest.raises(ProviderAuthError, match="SUBSCRIPTION_TOKEN_INVALID"):
        provider.search("caffeine", 3)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (serper_api.unauthorized(), ProviderAuthError),
        (serper_api.no_credits(), ProviderAuthError),
        (serper_api.too_many_requests(), ProviderRateLimited),
        (serper_api.bad_request(), ProviderError),
        (Reply(502, "Bad Gateway"), ProviderUnavailable),
    ],
)
def test_serper_errors_from_real_bodies(serper, reply, error):
    serper.reset()
    serper.queue(reply)
    provider = SerperSearchProvider(SERPER_KEY, base_url=serper.url)
    with pytest.raises(error) as caught:
        provider.search("caffeine", 3)
    assert SERPER_KEY not in str(caught.value)


def test_contract_timeout(setup):
    provider, server, _ = setup
    provider._timeout = (0.3, 0.3)
    server.queue(Reply(200, {}, delay_s=1.0))
    with pytest.raises(ProviderTimeout):
        provider.search("caffeine", 3)


def test_contract_unreachable_server_is_unavailable(setup):
    provider, _, _ = setup
    provider._url = "http://127.0.0.1:9/nothing"
    with pytest.raises(ProviderUnavailable):
        provider.search("caffeine", 3)


def test_key_echoed_by_an_api_is_masked(brave):
    brave.reset()
    brave.queue(brave_api.error_reply(422, "SUBSCRIPTION_TOKEN_INVALID", f"bad {BRAVE_KEY}"))
    with pytest.raises(ProviderAuthError) as caught:
        BraveSearchProvider(BRAVE_KEY, base_url=brave.url).search("x", 1)
    assert BRAVE_KEY not in str(caught.value) and "***" in str(caught.value)


def test_key_never_in_any_log_line(setup, caplog):
    provider, server, key = setup
    caplog.set_level(logging.DEBUG)
    provider.search("caffeine", 3)
    server.queue(
        brave_api.token_invalid() if provider.name == "brave" else serper_api.unauthorized()
    )
    with pytest.raises(ProviderAuthError):
        provider.search("caffeine", 3)
    assert caplog.records, "httpx should have logged the requests"
    for record in caplog.records:
        assert key not in record.getMessage()
        assert key not in repr(record.args)
