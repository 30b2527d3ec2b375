"""OpenAI embeddings, or any OpenAI-compatible server (Ollama, vLLM, LiteLLM...), via ``openai``.

Queries and passages are embedded alike: OpenAI's models take no input type. Retries on
429/5xx/timeouts are the SDK's (``max_retries``; it honours Retry-After). A local server that
needs no key gets a placeholder key, because the SDK refuses to start without one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lastword import provider_edge
from lastword.embed.batching import LearnedDimension, checked_texts, embed_in_batches
from lastword.embed.protocol import EmbedderInfo
from lastword.errors import (
    MissingExtraError,
    ProviderError,
)

if TYPE_CHECKING:
    from lastword.settings import EmbedSettings

PROVIDER = "openai"
API_KEY_VARIABLE = "OPENAI_API_KEY"
DEFAULT_MODEL = "text-embedding-3-small"
#: API limit on inputs per request.
MAX_INPUTS_PER_REQUEST = 2048
#: OpenAI's limit on tokens summed over one request.
MAX_TOKENS_PER_REQUEST = 300_000
_PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """Embeddings from ``POST {base_url}/embeddings``; the dimension is learned and cached."""

    max_tokens_per_request: int = MAX_TOKENS_PER_REQUEST

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 5,
        batch_size: int = MAX_INPUTS_PER_REQUEST,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if dimensions is not None and dimensions < 1:
            raise ValueError("dimensions must be at least 1")
        try:
            import openai
        except ImportError as exc:
            raise MissingExtraError("openai", "openai") from exc
        key = provider_edge.api_key(
            API_KEY_VARIABLE,
            PROVIDER,
            given=api_key,
            keyless_url=base_url,
            hint=" (a local OpenAI-compatible server needs none: set embed.openai_url)",
        )
        self._key = key
        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries
        )
        self._model = model
        self._base_url = base_url
        self._dimensions = dimensions
        self._timeout_s = timeout_s
        self._batch_size = min(batch_size, MAX_INPUTS_PER_REQUEST)
        self._dim = LearnedDimension(PROVIDER, model, dimensions)

    @classmethod
    def from_settings(cls, settings: EmbedSettings) -> OpenAIEmbedder:
        return cls(
            settings.openai_model,
            base_url=settings.openai_url,
            dimensions=settings.openai_dimensions,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            batch_size=settings.batch_size,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIEmbedder(model={self._model!r}, base_url={self._base_url!r})"

    @property
    def info(self) -> EmbedderInfo:
        if self._dim.value is None:
            # Compatible servers host arbitrary models: one tiny request tells the dimension.
            self._dim.record(self._request([_PROBE_TEXT]).shape[1])
        assert self._dim.value is not None
        return EmbedderInfo(name=PROVIDER, model=self._model, dim=self._dim.value)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        items = checked_texts(texts)
        if not items:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        return embed_in_batches(
            items, self._batch_size, self.max_tokens_per_request, self._request, self._dim
        )

    def _request(self, texts: list[str]) -> np.ndarray:
        extra: dict[str, Any] = {}
        if self._dimensions is not None:
            extra["dimensions"] = self._dimensions
        try:
            response = self._client.embeddings.create(model=self._model, input=texts, **extra)
        except self._sdk.OpenAIError as exc:
            raise self._wrap(exc) from exc
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            # A 200 whose body is not an embeddings list (a proxy page, a half-compatible server).
            raise ProviderError(f"unreadable response: {exc}", PROVIDER) from exc
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise ProviderError(f"asked for {len(texts)} embeddings, got {len(rows)}", PROVIDER)
        return np.asarray([row.embedding for row in rows], dtype=np.float32)

    def _wrap(self, exc: Exception) -> ProviderError:
        return provider_edge.wrap_sdk_error(
            self._sdk,
            exc,
            provider=PROVIDER,
            key=self._key,
            key_variable=API_KEY_VARIABLE,
            timeout_s=self._timeout_s,
            where=self._base_url or "the OpenAI API",
            keyless_url=self._base_url,
        )
