"""The search-provider seam.

A provider sends one query and returns previews: title, snippet and URL, nothing else. No page
is ever fetched. Failures raise ``lastword.errors.ProviderError`` subclasses
(``ProviderAuthError``, ``ProviderRateLimited``, ``ProviderTimeout``, ``ProviderUnavailable``)
whose messages never contain the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit


@dataclass(frozen=True)
class SearchResult:
    """One search preview. ``snippet`` is the provider's text, untrusted."""

    title: str
    snippet: str
    url: str

    @property
    def domain(self) -> str:
        return host_of(self.url).removeprefix("www.")


def host_of(url: str) -> str:
    """The URL's host name, or "" for a URL that does not parse (``https://[caffeine]/x``)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def linkable(url: str) -> bool:
    """Whether ``url`` is an http(s) URL with a host: the only kind a result may carry.

    A crafted URL that does not parse (a bracketed non-address host, a bad port) is not
    linkable; the result holding it is dropped and the others are used.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


@runtime_checkable
class SearchProvider(Protocol):
    @property
    def name(self) -> str: ...

    def search(self, query: str, count: int) -> tuple[SearchResult, ...]:
        """Send ``query`` once; at most ``count`` results, in the provider's order."""
        ...
