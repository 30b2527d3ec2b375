"""The one HTTP exchange both search providers make, and reading their result lists.

httpx is imported here and nowhere else in the package: sending, mapping transport failures
to lastword errors, and decoding JSON are the same for every search API; only the request and
the field names differ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lastword.errors import MissingExtraError, ProviderError, ProviderTimeout, ProviderUnavailable
from lastword.websearch.protocol import SearchResult, linkable

#: builds a provider error from the status, the decoded JSON body (or None) and the headers
ErrorMapper = Callable[[int, Any, Mapping[str, str]], ProviderError]


def exchange(
    provider: str,
    method: str,
    url: str,
    *,
    headers: dict[str, str],
    timeout: tuple[float, float],
    on_error: ErrorMapper,
    params: dict[str, str] | None = None,
    json: Any = None,
) -> dict[str, Any]:
    """Send one request; the decoded JSON object of a 200, else the mapped provider error."""
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - httpx is a core dependency
        raise MissingExtraError("httpx", "web") from exc
    read_s, connect_s = timeout
    try:
        response = httpx.request(
            method,
            url,
            params=params,
            json=json,
            headers=headers,
            timeout=httpx.Timeout(read_s, connect=connect_s),
        )
    except httpx.TimeoutException as exc:
        raise ProviderTimeout(f"no answer within {read_s:g} s", provider) from exc
    except httpx.HTTPError as exc:
        raise ProviderUnavailable(f"cannot reach the API ({type(exc).__name__})", provider) from exc
    body = _json_or_none(response)
    if response.status_code != 200:
        raise on_error(response.status_code, body, response.headers)
    if not isinstance(body, dict):
        raise ProviderUnavailable("the API answered with something other than JSON", provider)
    return body


def read_results(
    items: Iterable[Any], count: int, *, title: str, snippet: str, url: str
) -> tuple[SearchResult, ...]:
    """Title, snippet and URL of the first ``count`` items that have a linkable URL; nothing
    else. An item whose URL is not an http(s) URL that parses is dropped (``linkable``)."""
    results: list[SearchResult] = []
    for item in items:
        if len(results) >= count:
            break
        if not isinstance(item, dict) or not item.get(url):
            continue
        if not linkable(str(item[url])):
            continue
        results.append(
            SearchResult(
                title=str(item.get(title) or ""),
                snippet=str(item.get(snippet) or ""),
                url=str(item[url]),
            )
        )
    return tuple(results)


def _json_or_none(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None
