"""Voyage AI embeddings (``voyage-3`` by default) through the official ``voyageai`` client.

Voyage embeds questions and passages differently (``input_type`` "query" / "document"), so
``embed_queries`` and ``embed_documents`` are not interchangeable. The SDK's own retry ignores
Retry-After and never retries a plain 500, so the client runs with ``max_retries=0`` (one attempt
per call) and this module retries 429, 5xx, timeouts and dropped connections itself.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from lastword import provider_edge
from lastword.embed.batching import LearnedDimension, checked_texts, embed_in_batches
from lastword.embed.protocol import EmbedderInfo
from lastword.errors import (
    MissingExtraError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.retry_after import retry_after_seconds

if TYPE_CHECKING:
    from lastword.settings import EmbedSettings

PROVIDER = "voyage"
API_KEY_VARIABLE = "VOYAGE_API_KEY"
DEFAULT_MODEL = "voyage-3"
#: Output sizes of Voyage models at their default ``output_dimension``; others are learned.
KNOWN_DIMS: dict[str, int] = {
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "voyage-3-large": 1024,
    "voyage-3.5": 1024,
    "voyage-3.5-lite": 1024,
    "voyage-code-3": 1024,
    "voyage-2": 1024,
    "voyage-large-2": 1536,
}
#: API limit on texts per request.
MAX_TEXTS_PER_REQUEST = 1000
#: Tokens per request: 120K is the smallest per-batch budget of any Voyage model.
MAX_TOKENS_PER_REQUEST = 120_000
_PROBE_TEXT = "dimension probe"


class VoyageEmbedder:
    """Voyage embeddings with batching inside the API limits and retries honouring Retry-After.

    ``backoff_base_s`` / ``backoff_max_s`` shape the exponential backoff (with jitter) used when
    the API gives no Retry-After; ``max_retry_after_s`` is the longest Retry-After waited for.
    """

    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    max_retry_after_s: float = 120.0
    max_tokens_per_request: int = MAX_TOKENS_PER_REQUEST

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 5,
        batch_size: int = MAX_TEXTS_PER_REQUEST,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        try:
            import voyageai
        except ImportError as exc:
            raise MissingExtraError("voyageai", "voyage") from exc
        key = provider_edge.api_key(API_KEY_VARIABLE, PROVIDER, given=api_key)
        self._key = key
        self._errors = voyageai.error
        self._client = voyageai.Client(
            api_key=key, max_retries=0, timeout=timeout_s, base_url=base_url
        )
        self._model = model
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._batch_size = min(batch_size, MAX_TEXTS_PER_REQUEST)
        self._dim = LearnedDimension(PROVIDER, model, KNOWN_DIMS.get(model))

    @classmethod
    def from_settings(cls, settings: EmbedSettings) -> VoyageEmbedder:
        return cls(
            settings.voyage_model,
            base_url=settings.voyage_url,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            batch_size=settings.batch_size,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"VoyageEmbedder(model={self._model!r}, base_url={self._base_url!r})"

    @property
    def info(self) -> EmbedderInfo:
        if self._dim.value is None:
            # An unknown model: one tiny request tells its dimension, cached from then on.
            self._dim.record(self._request([_PROBE_TEXT], "document").shape[1])
        assert self._dim.value is not None
        return EmbedderInfo(name=PROVIDER, model=self._model, dim=self._dim.value)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "document")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query")

    def _embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        items = checked_texts(texts)
        if not items:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        return embed_in_batches(
            items,
            self._batch_size,
            self.max_tokens_per_request,
            lambda batch: self._request(batch, input_type),
            self._dim,
        )

    def _request(self, texts: list[str], input_type: str) -> np.ndarray:
        """One API call for ``texts``, retried on 429/5xx/timeouts; rows in input order."""
        attempt = 0
        while True:
            try:
                result = self._client.embed(
                    texts, model=self._model, input_type=input_type, truncation=True
                )
            except self._errors.VoyageError as exc:
                error, retry_after = self._wrap(exc)
                wait = self._retry_wait(attempt, error, retry_after)
                if wait is None:
                    raise error from exc
                time.sleep(wait)
                attempt += 1
                continue
            except (AttributeError, KeyError, TypeError, ValueError) as exc:
                # A 200 whose body is not an embeddings list (a proxy page, a partial clone).
                raise ProviderError(f"unreadable response: {exc}", PROVIDER) from exc
            vectors = np.asarray(result.embeddings, dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(texts):
                raise ProviderError(
                    f"asked for {len(texts)} embeddings, got {vectors.shape[0]}", PROVIDER
                )
            return vectors

    def _retry_wait(
        self, attempt: int, error: ProviderError, retry_after: float | None
    ) -> float | None:
        """Seconds to wait before the next attempt, or None to give up and raise."""
        retryable = isinstance(error, ProviderRateLimited | ProviderUnavailable | ProviderTimeout)
        if not retryable or attempt >= self._max_retries:
            return None
        if retry_after is not None:
            return None if retry_after > self.max_retry_after_s else max(retry_after, 0.0)
        backoff = min(self.backoff_max_s, self.backoff_base_s * 2**attempt)
        return backoff * random.uniform(0.5, 1.0)

    def _wrap(self, exc: Exception) -> tuple[ProviderError, float | None]:
        """The lastword error for a ``voyageai`` error, and the Retry-After it carried."""
        errors = self._errors
        if isinstance(exc, errors.Timeout):
            return ProviderTimeout(f"no answer within {self._timeout_s:g} s", PROVIDER), None
        detail = self._detail(exc)
        if isinstance(exc, errors.APIConnectionError):
            where = self._base_url or "the Voyage API"
            return ProviderUnavailable(f"cannot reach {where}: {detail}", PROVIDER), None
        status = getattr(exc, "http_status", None)
        if status is None:  # the SDK's own classes stand for the status they mean
            if isinstance(exc, errors.AuthenticationError):
                status = 401
            elif isinstance(exc, errors.RateLimitError):
                status = 429
            else:
                return ProviderError(f"request failed: {detail}", PROVIDER), None
        retry_after = retry_after_seconds(getattr(exc, "headers", None))
        error = provider_edge.error_for_status(
            status,
            detail,
            provider=PROVIDER,
            key_variable=API_KEY_VARIABLE,
            retry_after=retry_after,
        )
        return error, retry_after

    def _detail(self, exc: Exception) -> str:
        body = getattr(exc, "json_body", None)
        detail = body.get("detail") if isinstance(body, dict) else None
        text = str(detail) if detail else (getattr(exc, "user_message", None) or str(exc))
        return provider_edge.redact(text, self._key)
