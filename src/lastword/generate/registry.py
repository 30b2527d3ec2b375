"""Picks a generator by its settings name. SDK-backed providers are imported only when chosen."""

from __future__ import annotations

from collections.abc import Callable

from lastword.embed.protocol import Embedder
from lastword.errors import ConfigError
from lastword.generate.protocol import Generator
from lastword.settings import GenerateSettings

GeneratorFactory = Callable[[GenerateSettings, Embedder], Generator]


def _reader(settings: GenerateSettings, embedder: Embedder) -> Generator:
    from lastword.generate.quoting import QuotingGenerator, Selection
    from lastword.read.reader import Reader

    reader = Reader()
    selection = Selection.shipped(reader)
    selection = Selection(**{**selection.__dict__, "sentences": settings.extractive_sentences})
    return QuotingGenerator(reader, selection)


def _extractive(settings: GenerateSettings, embedder: Embedder) -> Generator:
    from lastword.generate.extractive import ExtractiveGenerator

    return ExtractiveGenerator(embedder, sentences=settings.extractive_sentences)


def _anthropic(settings: GenerateSettings, embedder: Embedder) -> Generator:
    from lastword.generate.anthropic import AnthropicGenerator

    return AnthropicGenerator.from_settings(settings)


def _openai(settings: GenerateSettings, embedder: Embedder) -> Generator:
    from lastword.generate.openai import OpenAIGenerator

    return OpenAIGenerator.from_settings(settings)


def _llamacpp(settings: GenerateSettings, embedder: Embedder) -> Generator:
    from lastword.generate.llamacpp import LlamaCppGenerator

    return LlamaCppGenerator.from_settings(settings)


GENERATORS: dict[str, GeneratorFactory] = {
    "extractive": _extractive,
    "reader": _reader,
    "anthropic": _anthropic,
    "openai": _openai,
    "llamacpp": _llamacpp,
}


def make_generator(
    settings: GenerateSettings, embedder: Embedder, name: str | None = None
) -> Generator:
    chosen = name or settings.generator
    try:
        factory = GENERATORS[chosen]
    except KeyError:
        raise ConfigError(
            f"unknown generator '{chosen}'; choose one of: {', '.join(GENERATORS)}"
        ) from None
    return factory(settings, embedder)
