"""A local server that speaks the Serper API (``POST /search``, JSON ``{"q", "num"}``).

The key must come in ``X-API-KEY``; a wrong or missing one gets Serper's 403
``{"message": "Unauthorized.", "statusCode": 403}``. Queue a reply to force an error::

    api.queue(too_many_requests())  # 429
    api.queue(no_credits())         # 403 "Not enough credits"
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.servers.base import LocalServer, Reply, Request
from tests.servers.brave_api import Page, PageSource

SEARCH_PATH = "/search"


def error_reply(status: int, message: str) -> Reply:
    return Reply(status, {"message": message, "statusCode": status})


def unauthorized() -> Reply:
    return error_reply(403, "Unauthorized.")


def no_credits() -> Reply:
    return error_reply(403, "Not enough credits")


def too_many_requests() -> Reply:
    return error_reply(429, "Too many requests")


def bad_request(message: str = "Query is required") -> Reply:
    return error_reply(400, message)


def search_body(query: str, num: int, pages: Sequence[Page]) -> dict[str, Any]:
    return {
        "searchParameters": {"q": query, "type": "search", "num": num, "engine": "google"},
        "organic": [
            {"title": p.title, "link": p.url, "snippet": p.snippet, "position": i}
            for i, p in enumerate(pages, start=1)
        ],
        "credits": 1,
    }


class SerperAPI(LocalServer):
    def __init__(self, pages: PageSource = (), *, api_key: str = "serper-test-key") -> None:
        super().__init__({("POST", SEARCH_PATH): self._search})
        self.pages = pages
        self.api_key = api_key

    @property
    def searches(self) -> list[Request]:
        return [r for r in self.requests if r.path == SEARCH_PATH]

    def _search(self, request: Request) -> Reply:
        if request.header("x-api-key") != self.api_key:
            return unauthorized()
        try:
            body = request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return bad_request("Invalid JSON body")
        if not isinstance(body, dict) or not str(body.get("q") or "").strip():
            return bad_request()
        num = body.get("num", 10)
        if not isinstance(num, int) or not 1 <= num <= 100:
            return bad_request("num must be between 1 and 100")
        query = str(body["q"])
        pages = self.pages(query) if callable(self.pages) else self.pages
        return Reply(200, search_body(query, num, list(pages)[:num]))
