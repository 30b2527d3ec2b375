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


def test_token_vectors_come_with_the_sentence_vector_of_the_same_pass():
    """The gate asks for a question's token vectors first; retrieval's embedding then reuses
    that forward pass, and gets the same vector a plain pass gives."""
    embedder = MiniLMEmbedder()
    question = "Do statins cause muscle pain in older adults?"
    tokens = embedder.embed_tokens([question])[0]
    assert len(tokens.tokens) == len(tokens.vectors) > 5
    assert question in embedder._cache  # the sentence vector of that pass is remembered
    as_query = embedder.embed_queries([question])[0]
    as_document = MiniLMEmbedder().embed_documents([question])[0]
    assert np.allclose(as_query, as_document, atol=1e-5)  # the same vector either way


def test_sentence_vectors_alone_leave_the_token_cache_alone():
    """The verifier embeds answer sentences as queries: no token vectors are made for them."""
    embedder = MiniLMEmbedder()
    embedder.embed_queries(["Statins lowered LDL cholesterol by a third."])
    assert len(embedder._token_cache) == 0
