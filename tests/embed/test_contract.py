"""The ``Embedder`` contract, run against every implementation.

MiniLM runs for real; Voyage and OpenAI run through their official SDKs against local servers
that speak the APIs' wire formats. Each remote embedder is built from settings by the registry,
with a batch size small enough that the larger inputs here span several requests.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pydantic import ValidationError

from lastword.embed import EMBEDDERS, Embedder, make_embedder
from lastword.settings import EmbedSettings
from tests.embed.conftest import OPENAI_KEY, VOYAGE_KEY

BATCH_SIZE = 16

PASSAGES = [
    "Scurvy is caused by a prolonged deficiency of vitamin C, which the body needs to make "
    "collagen.",
    "Insulin, released by the pancreas, lowers blood glucose by helping cells absorb sugar.",
    "Aspirin irreversibly inhibits platelet cyclooxygenase, reducing the risk of blood clots.",
    "The hippocampus is a brain region essential for forming new long-term memories.",
]
QUESTIONS = [
    ("Which vitamin deficiency causes scurvy?", 0),
    ("How does insulin lower blood glucose?", 1),
    ("Does aspirin reduce the risk of blood clots?", 2),
    ("Which brain region forms new memories?", 3),
]


@pytest.fixture(scope="session", params=["minilm", "voyage", "openai"])
def embedder(request: pytest.FixtureRequest) -> Iterator[Embedder]:
    name = request.param
    if name == "minilm":
        yield request.getfixturevalue("minilm")
        return
    with pytest.MonkeyPatch.context() as env:
        if name == "voyage":
            server = request.getfixturevalue("voyage_api_server")
            env.setenv("VOYAGE_API_KEY", VOYAGE_KEY)
            settings = EmbedSettings(
                embedder="voyage", voyage_url=f"{server.url}/v1", batch_size=BATCH_SIZE
            )
        else:
            server = request.getfixturevalue("openai_api_server")
            env.setenv("OPENAI_API_KEY", OPENAI_KEY)
            settings = EmbedSettings(
                embedder="openai", openai_url=f"{server.url}/v1", batch_size=BATCH_SIZE
            )
        built = make_embedder(settings)
    yield built


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_satisfies_the_protocol(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)


def test_info_names_the_embedder_and_is_stable(embedder: Embedder) -> None:
    info = embedder.info
    assert info.name in EMBEDDERS
    assert isinstance(info.model, str) and info.model
    assert isinstance(info.dim, int) and info.dim > 0
    assert embedder.info == info
    assert info.name in info.describe() and str(info.dim) in info.describe()
    with pytest.raises(ValidationError):
        info.dim = 7  # frozen: an index records it


@pytest.mark.parametrize("method", ["embed_documents", "embed_queries"])
def test_rows_are_unit_float32(embedder: Embedder, method: str) -> None:
    matrix = getattr(embedder, method)(PASSAGES)
    assert matrix.shape == (len(PASSAGES), embedder.info.dim)
    assert matrix.dtype == np.float32
    assert matrix.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("method", ["embed_documents", "embed_queries"])
def test_empty_input_gives_zero_rows(embedder: Embedder, method: str) -> None:
    for empty in ([], ()):
        matrix = getattr(embedder, method)(empty)
        assert matrix.shape == (0, embedder.info.dim)
        assert matrix.dtype == np.float32


def test_same_text_gives_same_vector(embedder: Embedder) -> None:
    first = embedder.embed_documents([PASSAGES[0], PASSAGES[1], PASSAGES[0]])
    again = embedder.embed_documents([PASSAGES[0]])
    np.testing.assert_allclose(first[0], first[2], atol=1e-6)
    np.testing.assert_allclose(first[0], again[0], atol=1e-5)
    assert _cosine(first[0], first[1]) < 0.9


def test_rows_follow_input_order(embedder: Embedder) -> None:
    forward = embedder.embed_documents(PASSAGES[:2])
    backward = embedder.embed_documents(PASSAGES[1::-1])
    np.testing.assert_allclose(forward, backward[::-1], atol=1e-5)


def test_query_and_document_embeddings_of_one_text_agree(embedder: Embedder) -> None:
    # Some models embed questions differently (Voyage's input_type); the meaning must survive.
    queries = embedder.embed_queries(PASSAGES)
    documents = embedder.embed_documents(PASSAGES)
    for query, document in zip(queries, documents, strict=True):
        assert _cosine(query, document) > 0.8


def test_each_question_ranks_its_passage_first(embedder: Embedder) -> None:
    passages = embedder.embed_documents(PASSAGES)
    questions = embedder.embed_queries([q for q, _ in QUESTIONS])
    scores = questions @ passages.T
    assert list(scores.argmax(axis=1)) == [expected for _, expected in QUESTIONS]


def test_many_texts_match_one_at_a_time(embedder: Embedder) -> None:
    texts = [f"{PASSAGES[i % len(PASSAGES)]} Observation {i} of the cohort." for i in range(24)]
    together = embedder.embed_documents(texts)  # 24 > BATCH_SIZE: two batches
    assert together.shape == (24, embedder.info.dim)
    for i in (0, 17, 23):
        np.testing.assert_allclose(together[i], embedder.embed_documents([texts[i]])[0], atol=1e-4)
