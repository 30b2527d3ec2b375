"""Session fixtures for the Matrix tests: one real Synapse, accounts, a corpus, a Brave stand-in."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.chat.conftest import BRAVE_KEY, CAFFEINE_PAGES
from tests.conftest import make_pdf
from tests.matrix.homeserver import Synapse, synapse_python
from tests.servers.brave_api import BraveAPI

PASSWORDS = {"lastword": "bot-pass-4471", "maria": "maria-pass-9910", "tom": "tom-pass-2286"}
TRUSTRANK_TITLE = "Combating Web Spam with TrustRank"


@dataclass(frozen=True)
class Accounts:
    bot: str
    maria: str
    tom: str


@pytest.fixture(scope="session")
def synapse(tmp_path_factory: pytest.TempPathFactory):
    python = synapse_python()
    if python is None:
        where = os.environ.get("LASTWORD_SYNAPSE_VENV", ".venv-synapse")
        if os.environ.get("CI"):
            pytest.fail(f"Synapse is not installed in {where}; scripts/setup installs it")
        pytest.skip(f"Synapse is not installed in {where} (scripts/setup installs it)")
    server = Synapse(python, tmp_path_factory.mktemp("synapse"))
    server.generate()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def accounts(synapse: Synapse) -> Accounts:
    return Accounts(*synapse.register_all(PASSWORDS))  # bot, maria, tom: dict order


@pytest.fixture(scope="session")
def matrix_index(tmp_path_factory: pytest.TempPathFactory, minilm) -> Path:
    """A small corpus: a two-page PDF (the fact on page 2) and the shipped demo summaries."""
    from lastword.demo import demo_corpus_dir
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    root = tmp_path_factory.mktemp("matrix-corpus")
    pdf = make_pdf(
        root / "trustrank.pdf",
        [
            "Combating Web Spam with TrustRank. Web spam pages use various techniques to "
            "achieve higher-than-deserved rankings in a search engine's results. We propose "
            "techniques to semi-automatically separate reputable, good pages from spam.",
            "Seed selection. TrustRank used a seed set of 178 good sites, chosen by a human "
            "expert from the 1,250 candidate sites ranked highest by inverse PageRank. Trust "
            "then propagates from the seed sites along outgoing links, attenuated at each step.",
        ],
        title=TRUSTRANK_TITLE,
    )
    index = root / "index"
    ingest_paths([pdf, demo_corpus_dir()], index, minilm, IngestSettings())
    return index


@pytest.fixture(scope="session")
def brave_counting():
    with BraveAPI(CAFFEINE_PAGES, api_key=BRAVE_KEY) as api:
        yield api
