"""Serper (Google results): ``POST /search`` with JSON ``{"q", "num"}``, key in ``X-API-KEY``.

Results are in ``organic`` (``title``, ``link``, ``snippet``, ``position``). Errors come as
``{"message": ..., "statusCode": ...}``: 403 (bad key or no credits), 429, 400.
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
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - httpx is a core dependency
            raise MissingExtraError("httpx", "web") from exc
        headers = {"X-API-KEY": self._key, "Content-Type": "application/json"}
        timeout = httpx.Timeout(self._timeout[0], connect=self._timeout[1])
        try:
            response = httpx.post(
                self._url, json={"q": query, "num": count}, headers=headers, timeout=timeout
            )
        except httpx.TimeoutException as exc:
            raise ProviderTimeout(f"no answer within {self._timeout[0]:g} s", self.name) from exc
        except httpx.HTTPError as exc:
            raise ProviderUnavailable(
                f"cannot reach the API ({type(exc).__name__})", self.name
            ) from exc
        if response.status_code != 200:
            raise self._error(response.status_code, _json_or_none(response))
        body = _json_or_none(response)
        if not isinstance(body, dict):
            raise ProviderUnavailable("the API answered with something other than JSON", self.name)
        results = []
        for item in (body.get("organic") or [])[:count]:
            url = str(item.get("link") or "")
            if not url:
                continue
            results.append(
                SearchResult(
                    title=str(item.get("title") or ""),
                    snippet=str(item.get("snippet") or ""),
                    url=url,
                )
            )
        return tuple(results)

    def _error(self, status: int, body: Any) -> ProviderError:
        message = str(body.get("message") or "") if isinstance(body, dict) else ""
        said = scrub(message or f"HTTP {status}", self._key)
        if status in (401, 403):
            return ProviderAuthError(f"the key was rejected or has no credits ({said})", self.name)
        if status == 429:
            return ProviderRateLimited(f"limit reached ({said})", self.name)
        if status >= 500:
            return ProviderUnavailable(f"server error {status} ({said})", self.name)
        return ProviderError(f"request rejected with {status} ({said})", self.name)


def _json_or_none(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
