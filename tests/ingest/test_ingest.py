"""Ingest end to end with the real model and a real SQLite index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import IndexLockedError, IndexMismatchError, InputError
from lastword.ingest import ingest_paths
from lastword.settings import IngestSettings
from lastword.store.local import LocalStore
from tests.conftest import make_pdf

SETTINGS = IngestSettings(commit_every=8)

STATINS = (
    "Statin therapy lowers LDL cholesterol. In this trial, 200 patients took atorvastatin. "
    "Muscle symptoms were reported as often on placebo as on the statin."
)
SLEEP = (
    "Aerobic exercise improved sleep quality in adults with insomnia after eight weeks. "
    "Sleep onset latency shortened by twelve minutes."
)


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    (folder / "nested").mkdir(parents=True)
    make_pdf(folder / "statins.pdf", [STATINS, "Methods: a blinded crossover design. " * 5])
    (folder / "nested" / "sleep.md").write_text(f"# Sleep\n\n{SLEEP}\n", encoding="utf-8")
    (folder / "ignored.docx").write_bytes(b"PK")  # unsupported types inside folders are skipped
    (folder / ".hidden.md").write_text("hidden", encoding="utf-8")
    return folder


def search(index: Path, embedder, question: str, k: int = 3):
    with LocalStore.open(index) as store:
        return store.search(embedder.embed_queries([question])[0], k)


def test_ingest_search_reingest_replace_and_sync(tmp_path: Path, minilm):
    folder = corpus(tmp_path)
    index = tmp_path / "index"

    first = ingest_paths([folder], index, minilm, SETTINGS)
    assert sorted(Path(d).name for d in first.added) == ["sleep.md", "statins.pdf"]
    assert first.failed == [] and first.passages_embedded == 3  # 2 PDF pages + 1 md passage
    hits = search(index, minilm, "Do statins cause muscle pain?")
    assert hits[0].passage.title == "statins" and hits[0].passage.page == 1
    assert hits[0].score > 0.5 and hits[0].score >= hits[1].score

    again = ingest_paths([folder], index, minilm, SETTINGS)
    assert again.passages_embedded == 0 and len(again.skipped) == 2 and not again.added

    (folder / "nested" / "sleep.md").write_text(f"# Sleep v2\n\n{SLEEP} Naps did not help.\n")
    changed = ingest_paths([folder], index, minilm, SETTINGS)
    assert [Path(d).name for d in changed.replaced] == ["sleep.md"]
    assert changed.passages_embedded == 1
    with LocalStore.open(index) as store:
        titles = sorted(d.title for d in store.documents())
        assert titles == ["Sleep v2", "statins"] and store.info().passages == 3

    (folder / "statins.pdf").unlink()
    kept = ingest_paths([folder], index, minilm, SETTINGS)  # without --sync nothing is removed
    assert kept.removed == []
    synced = ingest_paths([folder], index, minilm, SETTINGS, sync=True)
    assert [Path(d).name for d in synced.removed] == ["statins.pdf"]
    hits = search(index, minilm, "Do statins cause muscle pain?")
    assert {h.passage.title for h in hits} == {"Sleep v2"}


def test_bad_files_are_reported_and_nothing_indexed_is_lost(tmp_path: Path, minilm):
    folder = corpus(tmp_path)
    index = tmp_path / "index"
    ingest_paths([folder], index, minilm, SETTINGS)
    with LocalStore.open(index) as store:
        before = store.info()

    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (folder / "latin1.txt").write_bytes("Caf\xe9".encode("latin-1"))
    (folder / "statins.pdf").write_bytes(b"")  # an indexed file now broken: keep the old copy
    records = folder / "more.jsonl"
    records.write_text(
        json.dumps({"id": "r1", "title": "R1", "text": "Vitamin D raised bone density."})
        + "\n{oops\n",
        encoding="utf-8",
    )
    report = ingest_paths([folder, tmp_path / "missing.pdf"], index, minilm, SETTINGS)
    messages = sorted(str(e) for e in report.failed)
    assert len(messages) == 5, messages
    assert any("broken.pdf" in m and "corrupt" in m for m in messages)
    assert any("latin1.txt" in m and "UTF-8" in m for m in messages)
    assert any("statins.pdf" in m and "empty file" in m for m in messages)
    assert any(f"{records}:2" in m for m in messages)
    assert any("missing.pdf" in m and "no such file" in m for m in messages)
    assert report.added == ["r1"]
    with LocalStore.open(index) as store:
        assert store.info().documents == before.documents + 1
        assert any(d.title == "statins" for d in store.documents())


def test_index_remembers_its_embedder(tmp_path: Path, minilm):
    index = tmp_path / "index"
    ingest_paths([corpus(tmp_path)], index, minilm, SETTINGS)

    class OtherEmbedder:
        info = EmbedderInfo(name="voyage", model="voyage-3", dim=1024)

        def embed_documents(self, texts):
            return np.zeros((len(texts), 1024), dtype=np.float32)

        embed_queries = embed_documents

    with pytest.raises(IndexMismatchError, match="built with minilm"):
        ingest_paths([corpus(tmp_path / "b")], index, OtherEmbedder(), SETTINGS)


def test_a_second_writer_is_refused(tmp_path: Path, minilm):
    index = tmp_path / "index"
    with (
        LocalStore.open_for_write(index, minilm.info),
        pytest.raises(IndexLockedError, match="another process"),
    ):
        ingest_paths([corpus(tmp_path)], index, minilm, SETTINGS)


def test_nothing_to_ingest_is_a_clear_error(tmp_path: Path, minilm):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no files to ingest"):
        ingest_paths([empty], tmp_path / "index", minilm, SETTINGS)
    assert not (tmp_path / "index").exists()


def test_stale_matrix_is_rebuilt_from_sqlite(tmp_path: Path, minilm):
    """A writer killed between committing and writing the matrix leaves a stale matrix."""
    index = tmp_path / "index"
    ingest_paths([corpus(tmp_path)], index, minilm, SETTINGS)
    for matrix in index.glob("*.npy"):
        matrix.unlink()
    hits = search(index, minilm, "exercise and insomnia")
    assert hits[0].passage.title == "Sleep"
    assert len(list(index.glob("vectors-*.npy"))) == 1


def test_copy_of_an_index_is_usable(tmp_path: Path, minilm, demo_index: Path):
    copy = tmp_path / "copy"
    shutil.copytree(demo_index, copy)
    hits = search(copy, minilm, "caffeine reaction time nurses")
    assert "Caffeine" in hits[0].passage.title
