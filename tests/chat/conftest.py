"""Fixtures for the chat assistant: a real PubMedQA index, real MiniLM, local search servers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lastword.settings import Settings
from lastword.websearch.keys import KeyStore
from tests.servers.brave_api import BraveAPI, Page
from tests.servers.openai_chat_api import OpenAIChatAPI
from tests.servers.serper_api import SerperAPI

BRAVE_KEY = "BSA-brave-secret-key-7f3a9c1e5b"
SERPER_KEY = "serper-secret-key-2d8e4f6a0c"
CORPUS_SIZE = 40

CAFFEINE_PAGES = [
    Page(
        "Caffeine - Wikipedia",
        "https://en.wikipedia.org/wiki/Caffeine",
        "In healthy adults, the half-life of caffeine in blood plasma is about 5 hours. "
        "It is shorter in smokers and longer in pregnant women.",
    ),
    Page(
        "How long does caffeine last? | Sleep Foundation",
        "https://www.sleepfoundation.org/nutrition/how-long-does-caffeine-last",
        "Caffeine has a half-life of about 4 to 6 hours in adults, so half of a dose is "
        "still in the body hours after drinking coffee.",
    ),
    Page(
        "Premier League fixtures",
        "https://www.example-sports.com/fixtures",
        "Full list of this weekend's football fixtures, kick-off times and TV channels.",
    ),
]
OFF_TOPIC_PAGES = [
    Page(
        "Premier League fixtures",
        "https://www.example-sports.com/fixtures",
        "Full list of this weekend's football fixtures, kick-off times and TV channels.",
    ),
    Page(
        "Best lasagne recipe",
        "https://www.example-food.com/lasagne",
        "Layer the pasta sheets with ragù and béchamel, then bake for 45 minutes.",
    ),
]


@pytest.fixture(scope="session")
def pubmed_index(tmp_path_factory: pytest.TempPathFactory, minilm, datasets_dir: Path) -> Path:
    """40 PubMedQA abstracts ingested with the real model."""
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    data = json.loads((datasets_dir / "pubmedqa" / "ori_pqal.json").read_text("utf-8"))
    root = tmp_path_factory.mktemp("chat-corpus")
    corpus = root / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for pid in list(data)[:CORPUS_SIZE]:
            record = {
                "id": pid,
                "title": f"PubMed {pid}",
                "text": "\n\n".join(data[pid]["CONTEXTS"]),
            }
            out.write(json.dumps(record) + "\n")
    index = root / "index"
    ingest_paths([corpus], index, minilm, IngestSettings())
    return index


@pytest.fixture(scope="session")
def pubmed_questions(datasets_dir: Path) -> list[str]:
    data = json.loads((datasets_dir / "pubmedqa" / "ori_pqal.json").read_text("utf-8"))
    return [data[pid]["QUESTION"] for pid in list(data)[:CORPUS_SIZE]]


@pytest.fixture(scope="session")
def brave_server():
    with BraveAPI(CAFFEINE_PAGES, api_key=BRAVE_KEY) as api:
        yield api


@pytest.fixture(scope="session")
def serper_server():
    with SerperAPI(CAFFEINE_PAGES, api_key=SERPER_KEY) as api:
        yield api


@pytest.fixture(scope="session")
def openai_server():
    with OpenAIChatAPI() as api:
        yield api


@pytest.fixture
def brave(brave_server):
    brave_server.reset()
    brave_server.pages = CAFFEINE_PAGES
    return brave_server


@pytest.fixture
def serper(serper_server):
    serper_server.reset()
    serper_server.pages = CAFFEINE_PAGES
    return serper_server


@pytest.fixture
def openai_api(openai_server):
    from tests.servers.scripted_model import quotes_passages

    openai_server.reset()
    openai_server.model = quotes_passages()
    return openai_server


@pytest.fixture
def make_settings(
    tmp_path: Path, brave, serper, openai_server, monkeypatch
) -> Callable[..., Settings]:
    """Settings pointing at the local servers, state in ``tmp_path/state`` with keys stored."""
    monkeypatch.delenv("LASTWORD_MASTER_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    state_dir = tmp_path / "state"
    keys = KeyStore(state_dir)
    keys.set("brave", BRAVE_KEY)
    keys.set("serper", SERPER_KEY)

    def make(websearch: dict | None = None, chat: dict | None = None) -> Settings:
        return Settings(
            websearch={
                "brave_url": brave.url,
                "serper_url": serper.url,
                "timeout_s": 2.0,
                **(websearch or {}),
            },
            chat=chat or {},
            state={"dir": state_dir},
            generate={"openai_url": openai_server.base_url, "max_retries": 0},
        )

    return make
