"""MiniLM remembers recent texts: same vectors as without the cache, and a bounded memory."""

from __future__ import annotations

import numpy as np

from lastword.embed.minilm import MiniLMEmbedder

TEXTS = ["Statins lowered LDL cholesterol.", "Caffeine shortened reaction time.", "Sleep improved."]


def test_cached_vectors_equal_fresh_ones_and_the_cache_is_bounded():
    cached = MiniLMEmbedder(cache_size=2)
    first = cached.embed_documents([TEXTS[0], TEXTS[1], TEXTS[0]])
    fresh = MiniLMEmbedder(cache_size=0).embed_documents([TEXTS[0], TEXTS[1], TEXTS[0]])
    assert first.shape == (3, 384) and first.dtype == np.float32
    assert np.allclose(first, fresh, atol=1e-6) and np.array_equal(first[0], first[2])
    again = cached.embed_queries([TEXTS[1]])
    assert np.array_equal(again[0], first[1])
    cached.embed_documents([TEXTS[2]])
    assert len(cached._cache) == 2 and TEXTS[0] not in cached._cache  # least recent evicted
    again[0, 0] = 42.0  # callers get copies: the cache cannot be corrupted through them
    assert cached.embed_queries([TEXTS[1]])[0, 0] != 42.0
