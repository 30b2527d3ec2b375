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
        host = urlsplit(self.url).hostname or ""
        return host.removeprefix("www.")


@runtime_checkable
class SearchProvider(Protocol):
    @property
    def name(self) -> str: ...

    def search(self, query: str, count: int) -> tuple[SearchResult, ...]:
        """Send ``query`` once; at most ``count`` results, in the provider's order."""
        ...
