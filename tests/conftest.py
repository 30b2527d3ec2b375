"""Fixtures shared by the whole suite: the real MiniLM model, real data, real PDFs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def datasets_path() -> Path:
    """../shared/datasets beside the repository, or $LASTWORD_DATASETS."""
    return Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


@pytest.fixture(autouse=True)
def _user_data_elsewhere(tmp_path_factory: pytest.TempPathFactory, monkeypatch):
    """No test reads or writes the real user's data folder (the default state folder)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    path = datasets_path()
    if not (path / "pubmedqa" / "ori_pqal.json").is_file():
        pytest.skip(f"real data sets not found at {path}")
    return path


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 (one load per test process)."""
    from lastword.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def make_pdf(path: Path, pages: Sequence[str], title: str | None = None) -> Path:
    """A real multi-page PDF with the given text on each page (blank string: a blank page)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(auto=False)
    if title:
        pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        if text:
            pdf.multi_cell(0, 5, text)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory, minilm) -> Path:
    """The shipped demo corpus, ingested once with the real model."""
    from lastword.demo import demo_corpus_dir
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    index = tmp_path_factory.mktemp("demo") / "index"
    ingest_paths([demo_corpus_dir()], index, minilm, IngestSettings())
    return index
