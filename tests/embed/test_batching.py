"""Request planning shared by the remote embedders."""

from __future__ import annotations

import pytest

from lastword.embed.batching import checked_texts, estimate_tokens, plan_batches
from lastword.errors import InputError


def test_estimate_is_utf8_bytes_plus_markers() -> None:
    assert estimate_tokens("abc") == 5
    assert estimate_tokens("维生素") == 9 + 2  # 3 bytes per character


def test_batches_by_count() -> None:
    assert plan_batches(["x"] * 7, max_items=3, max_tokens=10**6) == [
        range(0, 3),
        range(3, 6),
        range(6, 7),
    ]


def test_batches_by_tokens() -> None:
    texts = ["a" * 8] * 5  # 10 tokens each
    assert plan_batches(texts, max_items=100, max_tokens=25) == [
        range(0, 2),
        range(2, 4),
        range(4, 5),
    ]


def test_oversized_text_gets_its_own_batch() -> None:
    texts = ["short", "x" * 100, "short"]
    assert plan_batches(texts, max_items=10, max_tokens=50) == [
        range(0, 1),
        range(1, 2),
        range(2, 3),
    ]


def test_no_texts_no_batches() -> None:
    assert plan_batches([], max_items=5, max_tokens=5) == []
    with pytest.raises(ValueError):
        plan_batches(["a"], max_items=0, max_tokens=5)


def test_checked_texts() -> None:
    assert checked_texts(("a", "b")) == ["a", "b"]
    with pytest.raises(InputError, match="single string"):
        checked_texts("ab")
    with pytest.raises(InputError, match="text 1 is empty"):
        checked_texts(["a", "\n"])
    with pytest.raises(InputError, match="text 0 is a int"):
        checked_texts([3])  # type: ignore[list-item]
