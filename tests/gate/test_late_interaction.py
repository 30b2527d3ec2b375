"""The token-level (MaxSim) gate signal: exact values on hand-made vectors, then the real model."""

from __future__ import annotations

import numpy as np
import pytest

from lastword.embed.protocol import TokenVectors
from lastword.gate.late_interaction import maxsim


def unit(*rows: list[float]) -> np.ndarray:
    matrix = np.asarray(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_each_content_word_takes_its_best_match_and_stopwords_and_marks_are_ignored():
    question = TokenVectors(
        tokens=("does", "statin", "pain", "?"),
        # "does" and "?" would match perfectly; they must not count
        vectors=unit([0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]),
    )
    passage_a = TokenVectors(tokens=("statin", "x"), vectors=unit([1, 0, 0], [0, 0, 1]))
    passage_b = TokenVectors(tokens=("ache",), vectors=unit([0, 0.6, 0.8]))
    # statin: best 1.0 (in a); pain: best 0.6 (in b): the mean over both passages is 0.8
    assert maxsim(question, [passage_a, passage_b]) == pytest.approx(0.8)
    assert maxsim(question, [passage_a]) == pytest.approx(0.5)  # pain: best 0.0


def test_nothing_to_match_scores_zero():
    only_stopwords = TokenVectors(tokens=("is", "it", "?"), vectors=unit([1, 0], [0, 1], [1, 1]))
    passage = TokenVectors(tokens=("it",), vectors=unit([1, 0]))
    assert maxsim(only_stopwords, [passage]) == 0.0
    question = TokenVectors(tokens=("statin",), vectors=unit([1, 0]))
    empty = TokenVectors(tokens=(), vectors=np.zeros((0, 2), dtype=np.float32))
    assert maxsim(question, []) == 0.0 and maxsim(question, [empty]) == 0.0


def test_minilm_token_vectors(minilm):
    [question, same] = minilm.embed_tokens(["Do statins cause muscle pain?"] * 2)
    assert question.tokens[0] not in ("[CLS]", "[SEP]") and "[SEP]" not in question.tokens
    assert "statin" in "".join(question.tokens).replace("#", "")
    assert question.vectors.shape == (len(question.tokens), 384)
    assert question.vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(question.vectors, axis=1), 1.0, atol=1e-3)
    assert np.array_equal(question.vectors, same.vectors)  # the cache returns the same vectors
    same.vectors[0, 0] = 42.0  # and copies: a caller cannot corrupt it
    assert minilm.embed_tokens(["Do statins cause muscle pain?"])[0].vectors[0, 0] != 42.0


def test_minilm_maxsim_prefers_the_paper_that_names_the_question_s_specifics(minilm):
    """Same field, different drug: the sentence cosine barely moves, MaxSim does."""
    question = "Does atorvastatin cause myopathy in elderly kidney transplant recipients?"
    own = (
        "We followed 412 elderly kidney transplant recipients given atorvastatin; myopathy "
        "occurred in 3.1% and was not associated with tacrolimus levels."
    )
    neighbour = (
        "Among 380 adults with hypercholesterolaemia given rosuvastatin, muscle symptoms "
        "were reported by 5% and creatine kinase rose in few."
    )
    q, a, b = minilm.embed_tokens([question, own, neighbour])
    assert maxsim(q, [a]) > maxsim(q, [b]) + 0.05
