"""Picks an embedder by its settings name. SDK-backed providers are imported only when chosen."""

from __future__ import annotations

from collections.abc import Callable

from lastword.embed.protocol import Embedder
from lastword.errors import ConfigError
from lastword.settings import EmbedSettings


def _minilm(settings: EmbedSettings) -> Embedder:
    from lastword.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=settings.batch_size, threads=settings.threads)


def _voyage(settings: EmbedSettings) -> Embedder:
    from lastword.embed.voyage import VoyageEmbedder

    return VoyageEmbedder.from_settings(settings)


def _openai(settings: EmbedSettings) -> Embedder:
    from lastword.embed.openai import OpenAIEmbedder

    return OpenAIEmbedder.from_settings(settings)


EMBEDDERS: dict[str, Callable[[EmbedSettings], Embedder]] = {
    "minilm": _minilm,
    "voyage": _voyage,
    "openai": _openai,
}


def make_embedder(settings: EmbedSettings, name: str | None = None) -> Embedder:
    chosen = name or settings.embedder
    try:
        factory = EMBEDDERS[chosen]
    except KeyError:
        raise ConfigError(
            f"unknown embedder '{chosen}'; choose one of: {', '.join(EMBEDDERS)}"
        ) from None
    return factory(settings)
