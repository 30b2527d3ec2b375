"""Session-wide fixtures for the embedder tests: the real MiniLM model and the two fake APIs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.base import LocalServer
from tests.servers.openai_embeddings_api import OpenAIEmbeddingsAPI
from tests.servers.voyage_api import MODELS as VOYAGE_MODELS
from tests.servers.voyage_api import VoyageAPI

VOYAGE_KEY = "pa-test-Zq81vXk3Lm0Pn7Rt"
OPENAI_KEY = "sk-test-Hc4Wq9Yb2Ns6Kd1Fj5Ue"
#: Served by the fake Voyage API but unknown to VoyageEmbedder, so its dimension must be learned.
VOYAGE_UNLISTED_MODEL = "voyage-unlisted-256"


@pytest.fixture(scope="session")
def minilm():
    from lastword.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder(batch_size=16)


@pytest.fixture(scope="session")
def voyage_api_server() -> Iterator[LocalServer]:
    api = VoyageAPI(VOYAGE_KEY, models={**VOYAGE_MODELS, VOYAGE_UNLISTED_MODEL: 256})
    with api.server() as server:
        yield server


@pytest.fixture(scope="session")
def openai_api_server() -> Iterator[LocalServer]:
    with OpenAIEmbeddingsAPI(OPENAI_KEY).server() as server:
        yield server


@pytest.fixture
def voyage_server(voyage_api_server: LocalServer) -> Iterator[LocalServer]:
    """The shared Voyage server with no recorded requests and no scripted replies."""
    voyage_api_server.reset()
    yield voyage_api_server
    voyage_api_server.reset()


@pytest.fixture
def openai_server(openai_api_server: LocalServer) -> Iterator[LocalServer]:
    openai_api_server.reset()
    yield openai_api_server
    openai_api_server.reset()
