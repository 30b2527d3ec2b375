"""Splitting texts into API requests that stay inside a provider's per-request limits.

Remote embedders cap both the number of texts and the summed tokens of one request. Exact token
counts need the provider's tokenizer (a download), so the budget uses an upper bound instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from lastword.embed.protocol import normalise
from lastword.errors import InputError, ProviderError

#: Start/end markers a tokenizer may add to every text.
_SPECIAL_TOKENS_PER_TEXT = 2


def checked_texts(texts: Sequence[str]) -> list[str]:
    """The texts as a list; a bare string or an empty text is an ``InputError``.

    A ``str`` is itself a sequence, so passing one by mistake would embed its characters.
    Embedding APIs reject empty strings with an opaque 400, so the error is raised here instead.
    """
    if isinstance(texts, str):
        raise InputError("expected a list of texts, got a single string")
    items = list(texts)
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise InputError(f"text {position} is a {type(text).__name__}, not a string")
        if not text.strip():
            raise InputError(f"text {position} is empty; remote embedders reject empty input")
    return items


def estimate_tokens(text: str) -> int:
    """An upper bound on the tokens of ``text`` for byte-level BPE/SentencePiece tokenizers.

    Each token covers at least one UTF-8 byte, so the byte count never undercounts. It
    overcounts English prose about fourfold, which only means smaller requests.
    """
    return len(text.encode("utf-8")) + _SPECIAL_TOKENS_PER_TEXT


def plan_batches(texts: Sequence[str], max_items: int, max_tokens: int) -> list[range]:
    """Consecutive index ranges, each with at most ``max_items`` texts and ``max_tokens`` tokens.

    A single text whose estimate exceeds the budget gets a request of its own: the provider
    truncates or rejects it, which is clearer than silently dropping it here.
    """
    if max_items < 1 or max_tokens < 1:
        raise ValueError("max_items and max_tokens must be positive")
    batches: list[range] = []
    start = 0
    tokens = 0
    for position, text in enumerate(texts):
        cost = estimate_tokens(text)
        count = position - start
        if count and (count >= max_items or tokens + cost > max_tokens):
            batches.append(range(start, position))
            start, tokens = position, 0
        tokens += cost
    if start < len(texts):
        batches.append(range(start, len(texts)))
    return batches


class LearnedDimension:
    """A remote model's output dimension: known up front, or learned from its first response.

    A response of another size later is an error: mixing dimensions would corrupt an index.
    """

    def __init__(self, provider: str, model: str, known: int | None = None) -> None:
        self._provider = provider
        self._model = model
        self.value = known
        self._lock = threading.Lock()

    def record(self, dim: int) -> None:
        with self._lock:
            if self.value is None:
                self.value = dim
            elif dim != self.value:
                raise ProviderError(
                    f"{self._model} returned {dim}-d vectors, expected {self.value}-d",
                    self._provider,
                )


def embed_in_batches(
    texts: list[str],
    max_texts: int,
    max_tokens: int,
    request: Callable[[list[str]], np.ndarray],
    dimension: LearnedDimension,
) -> np.ndarray:
    """Rows for ``texts`` (in order, unit length), one ``request`` per planned batch."""
    parts = [
        request(texts[batch.start : batch.stop])
        for batch in plan_batches(texts, max_texts, max_tokens)
    ]
    matrix = np.vstack(parts)
    dimension.record(matrix.shape[1])
    return normalise(matrix)
