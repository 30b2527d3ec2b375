"""Brave Search API: ``GET /res/v1/web/search`` with the key in ``X-Subscription-Token``.

Errors come as ``{"type": "ErrorResponse", "error": {"status", "code", "detail", ...}}``:
422 ``SUBSCRIPTION_TOKEN_INVALID`` (a bad key), 429 ``RATE_LIMITED`` / ``QUOTA_LIMITED``.
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

SEARCH_PATH = "/res/v1/web/search"
_AUTH_CODES = {"SUBSCRIPTION_TOKEN_INVALID", "SUBSCRIPTION_NOT_FOUND", "UNAUTHORIZED"}
_LIMIT_CODES = {"RATE_LIMITED", "QUOTA_LIMITED"}


class BraveSearchProvider:
    name = "brave"

    def __init__(
        self,
        api_key: str,
        base_url: str = "https://api.search.brave.com",
        safesearch: str = "strict",
        timeout_s: float = 10.0,
        connect_timeout_s: float = 5.0,
    ) -> None:
        if not api_key:
            raise ProviderAuthError("no Brave Search key is stored", self.name)
        self._key = api_key
        self._url = base_url.rstrip("/") + SEARCH_PATH
        self._safesearch = safesearch
        self._timeout = (timeout_s, connect_timeout_s)

    def search(self, query: str, count: int) -> tuple[SearchResult, ...]:
        params = {
            "q": query,
            "count": str(count),
            "safesearch": self._safesearch,
            "text_decorations": "false",
            "spellcheck": "false",
        }
        # The key travels in a header only; never in the URL, where logs would keep it.
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        body = exchange(
            self.name,
            "GET",
            self._url,
            params=params,
            headers=headers,
            timeout=self._timeout,
            on_error=self._error,
        )
        items = (body.get("web") or {}).get("results") or []
        return read_results(items, count, title="title", snippet="description", url="url")

    def _error(self, status: int, body: Any, headers: Any) -> ProviderError:
        error = body.get("error") if isinstance(body, dict) else None
        code = str(error.get("code") or "") if isinstance(error, dict) else ""
        detail = str(error.get("detail") or "") if isinstance(error, dict) else ""
        said = redact(f"{code}: {detail}" if code else f"HTTP {status}", self._key)
        if code in _AUTH_CODES or status in (401, 403):
            return ProviderAuthError(f"the key was rejected ({said})", self.name)
        if code in _LIMIT_CODES or status == 429:
            retry = _retry_after(headers)
            return ProviderRateLimited(f"limit reached ({said})", self.name, retry_after=retry)
        if status >= 500:
            return ProviderUnavailable(f"server error {status} ({said})", self.name)
        return ProviderError(f"request rejected with {status} ({said})", self.name)


def _retry_after(headers: Any) -> float | None:
    # Brave sends X-RateLimit-Reset as "per-second, per-month" seconds; take the shortest.
    raw = headers.get("retry-after") or headers.get("x-ratelimit-reset")
    if not raw:
        return None
    try:
        return min(float(part) for part in str(raw).split(","))
    except ValueError:
        return None
