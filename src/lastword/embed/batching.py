"""Splitting texts into API requests that stay inside a provider's per-request limits.

Remote embedders cap both the number of texts and the summed tokens of one request. Exact token
counts need the provider's tokenizer (a download), so the budget uses an upper bound instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from lastword.errors import InputError

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
