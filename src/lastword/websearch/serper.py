"""Serper (Google results): ``POST /search`` with JSON ``{"q", "num"}``, key in ``X-API-KEY``.

Results are in ``organic`` (``title``, ``link``, ``snippet``, ``position``). Errors come as
``{"message": ..., "statusCode": ...}``: 403 (bad key or no credits), 429, 400.
"""

from __future__ import annotations

from typing import Any

from lastword.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderUnavailable,
)
from lastword.provider_edge import redact
from lastword.websearch.exchange import exchange, read_results
from lastword.websearch.protocol import SearchResult

SEARCH_PATH = "/search"


class SerperSearchProvider:
    name = "serper"

    def __init__(
        self,
        api_key: str,
        base_url: str = "https://google.serper.dev",
        timeout_s: float = 10.0,
        connect_timeout_s: float = 5.0,
    ) -> None:
        if not api_key:
            raise ProviderAuthError("no Serper key is stored", self.name)
        self._key = api_key
        self._url = base_url.rstrip("/") + SEARCH_PATH
        self._timeout = (timeout_s, connect_timeout_s)

    def search(self, query: str, count: int) -> tuple[SearchResult, ...]:
        body = exchange(
            self.name,
            "POST",
            self._url,
            json={"q": query, "num": count},
            headers={"X-API-KEY": self._key, "Content-Type": "application/json"},
            timeout=self._timeout,
            on_error=self._error,
        )
        items = body.get("organic") or []
        return read_results(items, count, title="title", snippet="snippet", url="link")

    def _error(self, status: int, body: Any, headers: Any = None) -> ProviderError:
        message = str(body.get("message") or "") if isinstance(body, dict) else ""
        said = redact(message or f"HTTP {status}", self._key)
        if status in (401, 403):
            return ProviderAuthError(f"the key was rejected or has no credits ({said})", self.name)
        if status == 429:
            return ProviderRateLimited(f"limit reached ({said})", self.name)
        if status >= 500:
            return ProviderUnavailable(f"server error {status} ({said})", self.name)
        return ProviderError(f"request rejected with {status} ({said})", self.name)
