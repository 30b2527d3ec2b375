"""One embedder-versus-index rule (issue 16) for ingest and ask alike: an index is used with its
own embedder; an explicit other choice, or another configured model, is the same clear error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.base import LocalServer
from tests.servers.openai_embeddings_api import OpenAIEmbeddingsAPI

KEY = "sk-test-Hc4Wq9Yb2Ns6Kd1Fj5Ue"
TEXT = "Zinc lozenges shortened colds by two days in a trial of 120 adults. " * 3


@pytest.fixture(scope="module")
def embeddings_api() -> Iterator[LocalServer]:
    with OpenAIEmbeddingsAPI(KEY).server() as server:
        yield server


@pytest.fixture
def api_index(cli, tmp_path, monkeypatch, embeddings_api):
    """An index built by the 'openai' embedder (a local server of that wire format)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LASTWORD_EMBED__OPENAI_URL", f"{embeddings_api.url}/v1")
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "zinc.txt").write_text(TEXT, encoding="utf-8")
    built = cli("ingest", papers, "--index", tmp_path / "idx", "--embedder", "openai")
    assert built.code == 0, built
    (papers / "more.txt").write_text("Vitamin C did not shorten colds. " * 5, encoding="utf-8")
    return papers, tmp_path / "idx"


def test_ingest_and_ask_both_use_the_index_embedder_when_none_is_asked_for(cli, api_index):
    papers, index = api_index
    more = cli("ingest", papers, "--index", index)  # no --embedder: the index's own
    assert more.code == 0 and "added: 1" in more.out and "openai" in more.out, more
    asked = cli("inspect", "Do zinc lozenges shorten colds?", "--index", index, "--json")
    assert asked.code == 0 and "zinc" in asked.out.lower(), asked


def test_an_explicit_other_embedder_is_the_same_error_for_ingest_and_ask(
    cli, api_index, monkeypatch
):
    papers, index = api_index
    option = cli("ingest", papers, "--index", index, "--embedder", "minilm")
    monkeypatch.setenv("LASTWORD_EMBED__EMBEDDER", "minilm")  # configured on purpose
    for outcome in (
        option,
        cli("ingest", papers, "--index", index),
        cli("ask", "Do zinc lozenges shorten colds?", "--index", index),
        cli("inspect", "zinc", "--index", index),
    ):
        assert outcome.code == 3, outcome
        assert "was built with openai" in outcome.err and "'minilm' was asked for" in outcome.err


def test_another_configured_model_is_refused_by_both(cli, api_index, monkeypatch):
    papers, index = api_index
    monkeypatch.setenv("LASTWORD_EMBED__OPENAI_MODEL", "nomic-embed-text")
    for outcome in (
        cli("ingest", papers, "--index", index),
        cli("ask", "Do zinc lozenges shorten colds?", "--index", index),
    ):
        assert outcome.code == 3, outcome
        assert "the embedder configured is openai (nomic-embed-text" in outcome.err
