"""Builds the configured search provider with its stored key. Providers load only when chosen."""

from __future__ import annotations

from lastword.errors import ConfigError
from lastword.settings import WebSearchSettings
from lastword.websearch.keys import KeyStore
from lastword.websearch.protocol import SearchProvider


class KeyNotSet(ConfigError):
    """No key is stored for the configured provider."""


def make_search_provider(settings: WebSearchSettings, keys: KeyStore) -> SearchProvider:
    key = keys.get(settings.provider)
    if key is None:
        raise KeyNotSet(
            f"no {settings.provider} key is stored; run: lastword keys set {settings.provider}"
        )
    if settings.provider == "brave":
        from lastword.websearch.brave import BraveSearchProvider

        return BraveSearchProvider(
            key.get_secret_value(),
            base_url=settings.brave_url,
            safesearch=settings.safesearch,
            timeout_s=settings.timeout_s,
            connect_timeout_s=settings.connect_timeout_s,
        )
    from lastword.websearch.serper import SerperSearchProvider

    return SerperSearchProvider(
        key.get_secret_value(),
        base_url=settings.serper_url,
        timeout_s=settings.timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
    )
