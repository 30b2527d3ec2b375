"""A local server that speaks the Brave Search API (``GET /res/v1/web/search``).

Point ``BraveSearchProvider(base_url=api.url)`` (or ``[websearch] brave_url``) at it. The key
must come in ``X-Subscription-Token``; a wrong or missing one gets Brave's 422
``SUBSCRIPTION_TOKEN_INVALID`` body. Parameters are validated like the real API (``q``
required, at most 400 characters and 50 words; ``count`` 1-20) with a 422 ``VALIDATION`` body.
``pages`` (or a function of the query) supplies results; queue a reply to force an error::

    api.queue(rate_limited())   # 429 RATE_LIMITED
    api.queue(quota_limited())  # 429 QUOTA_LIMITED
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tests.servers.base import LocalServer, Reply, Request

SEARCH_PATH = "/res/v1/web/search"
_time = itertools.count(int(time.time()))


@dataclass(frozen=True)
class Page:
    title: str
    url: str
    snippet: str


PageSource = Sequence[Page] | Callable[[str], Sequence[Page]]


def error_reply(
    status: int,
    code: str,
    detail: str,
    meta: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    body = {
        "type": "ErrorResponse",
        "error": {
            "id": str(uuid.uuid4()),
            "status": status,
            "code": code,
            "detail": detail,
            "meta": meta or {},
        },
        "time": next(_time),
    }
    return Reply(status, body, headers=dict(headers or {}))


def token_invalid() -> Reply:
    return error_reply(
        422,
        "SUBSCRIPTION_TOKEN_INVALID",
        "The provided subscription token is invalid.",
        {"component": "authentication"},
    )


def rate_limited() -> Reply:
    return error_reply(
        429,
        "RATE_LIMITED",
        "Request rate limit exceeded for plan.",
        {
            "plan": "Free",
            "rate_limit": 1,
            "rate_current": 2,
            "quota_limit": 2000,
            "quota_current": 41,
            "component": "rate_limiter",
        },
        headers={
            "X-RateLimit-Limit": "1, 2000",
            "X-RateLimit-Remaining": "0, 1959",
            "X-RateLimit-Reset": "1, 1419704",
        },
    )


def quota_limited() -> Reply:
    return error_reply(
        429,
        "QUOTA_LIMITED",
        "Request quota limit exceeded for plan.",
        {
            "plan": "Free",
            "rate_limit": 1,
            "rate_current": 1,
            "quota_limit": 2000,
            "quota_current": 2000,
            "component": "rate_limiter",
        },
        headers={
            "X-RateLimit-Limit": "1, 2000",
            "X-RateLimit-Remaining": "0, 0",
            "X-RateLimit-Reset": "1, 1419704",
        },
    )


def server_error() -> Reply:
    return Reply(503, "<html><body><h1>503 Service Unavailable</h1></body></html>")


def validation_error(detail: str, loc: str) -> Reply:
    return error_reply(
        422,
        "VALIDATION",
        "Unable to validate request parameter(s)",
        {"errors": [{"type": "value_error", "loc": ["query", loc], "msg": detail}]},
    )


def search_body(query: str, pages: Sequence[Page]) -> dict[str, Any]:
    """Brave's ``search`` response with a ``web`` section holding ``pages``."""
    results = []
    for page in pages:
        try:
            parts = urlsplit(page.url)
            hostname = parts.hostname
        except ValueError:  # a crafted URL, served as a provider would pass it on
            parts = urlsplit("https://invalid.example/")
            hostname = page.url.split("/")[2]
        results.append(
            {
                "title": page.title,
                "url": page.url,
                "is_source_local": False,
                "is_source_both": False,
                "description": page.snippet,
                "profile": {
                    "name": hostname,
                    "url": page.url,
                    "long_name": hostname,
                    "img": "https://imgs.search.brave.com/favicon.png",
                },
                "language": "en",
                "family_friendly": True,
                "type": "search_result",
                "subtype": "generic",
                "meta_url": {
                    "scheme": parts.scheme,
                    "netloc": parts.netloc,
                    "hostname": hostname,
                    "favicon": "",
                    "path": parts.path,
                },
            }
        )
    return {
        "query": {
            "original": query,
            "show_strict_warning": False,
            "is_navigational": False,
            "is_news_breaking": False,
            "spellcheck_off": True,
            "country": "us",
            "bad_results": False,
            "should_fallback": False,
            "postal_code": "",
            "city": "",
            "header_country": "",
            "more_results_available": False,
            "state": "",
        },
        "mixed": {
            "type": "mixed",
            "main": [{"type": "web", "index": i, "all": False} for i in range(len(results))],
            "top": [],
            "side": [],
        },
        "type": "search",
        "web": {"type": "search", "results": results, "family_friendly": True},
    }


class BraveAPI(LocalServer):
    def __init__(self, pages: PageSource = (), *, api_key: str = "brave-test-key") -> None:
        super().__init__({("GET", SEARCH_PATH): self._search})
        self.pages = pages
        self.api_key = api_key

    @property
    def searches(self) -> list[Request]:
        """Every request that reached the search endpoint (the outbound-request count)."""
        return [r for r in self.requests if r.path == SEARCH_PATH]

    def _search(self, request: Request) -> Reply:
        if request.header("x-subscription-token") != self.api_key:
            return token_invalid()
        query = (request.query.get("q") or [""])[0]
        if not query.strip():
            return validation_error("field required", "q")
        if len(query) > 400 or len(query.split()) > 50:
            return validation_error("query too long (max 400 characters, 50 words)", "q")
        try:
            count = int((request.query.get("count") or ["20"])[0])
        except ValueError:
            return validation_error("value is not a valid integer", "count")
        if not 1 <= count <= 20:
            return validation_error("ensure this value is between 1 and 20", "count")
        pages = self.pages(query) if callable(self.pages) else self.pages
        return Reply(200, search_body(query, list(pages)[:count]))
