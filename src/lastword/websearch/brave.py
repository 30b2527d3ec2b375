"""Brave Search API: ``GET /res/v1/web/search`` with the key in ``X-Subscription-Token``.

Errors come as ``{"type": "ErrorResponse", "error": {"status", "code", "detail", ...}}``:
422 ``SUBSCRIPTION_TOKEN_INVALID`` (a bad key), 429 ``RATE_LIMITED`` / ``QUOTA_LIMITED``.
"""

from __future__ import annotations

from typing import Any

from lastword.errors import (
    MissingExtraError,
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.websearch.protocol import SearchResult, scrub

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
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx is a core dependency
            raise MissingExtraError("httpx", "web") from exc
        params = {
            "q": query,
            "count": str(count),
            "safesearch": self._safesearch,
            "text_decorations": "false",
            "spellcheck": "false",
        }
        # The key travels in a header only; never in the URL, where logs would keep it.
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        timeout = httpx.Timeout(self._timeout[0], connect=self._timeout[1])
        try:
            response = httpx.get(self._url, params=params, headers=headers, timeout=timeout)
        except httpx.TimeoutException as exc:
            raise ProviderTimeout(f"no answer within {self._timeout[0]:g} s", self.name) from exc
        except httpx.HTTPError as exc:
            raise ProviderUnavailable(
                f"cannot reach the API ({type(exc).__name__})", self.name
            ) from exc
        if response.status_code != 200:
            raise self._error(response.status_code, _json_or_none(response), response.headers)
        body = _json_or_none(response)
        if not isinstance(body, dict):
            raise ProviderUnavailable("the API answered with something other than JSON", self.name)
        web = body.get("web") or {}
        results = []
        for item in (web.get("results") or [])[:count]:
            url = str(item.get("url") or "")
            if not url:
                continue
            results.append(
                SearchResult(
                    title=str(item.get("title") or ""),
                    snippet=str(item.get("description") or ""),
                    url=url,
                )
            )
        return tuple(results)

    def _error(self, status: int, body: Any, headers: Any) -> ProviderError:
        error = body.get("error") if isinstance(body, dict) else None
        code = str(error.get("code") or "") if isinstance(error, dict) else ""
        detail = str(error.get("detail") or "") if isinstance(error, dict) else ""
        said = scrub(f"{code}: {detail}" if code else f"HTTP {status}", self._key)
        if code in _AUTH_CODES or status in (401, 403):
            return ProviderAuthError(f"the key was rejected ({said})", self.name)
        if code in _LIMIT_CODES or status == 429:
            retry = _retry_after(headers)
            return ProviderRateLimited(f"limit reached ({said})", self.name, retry_after=retry)
        if status >= 500:
            return ProviderUnavailable(f"server error {status} ({said})", self.name)
        return ProviderError(f"request rejected with {status} ({said})", self.name)


def _json_or_none(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _retry_after(headers: Any) -> float | None:
    # Brave sends X-RateLimit-Reset as "per-second, per-month" seconds; take the shortest.
    raw = headers.get("retry-after") or headers.get("x-ratelimit-reset")
    if not raw:
        return None
    try:
        return min(float(part) for part in str(raw).split(","))
    except ValueError:
        return None
