"""A damaged index (issue 16): derived files rebuilt from SQLite, a damaged SQLite named once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from lastword.errors import CorpusIndexError
from lastword.store.check import CHECKSUM_KEY, check_index
from lastword.store.local import LocalStore
from tests.store.test_local_store import INFO, passages, record


def build(directory: Path, docs: int = 20) -> np.ndarray:
    """An index of ``docs`` x 5 random unit vectors; returns them in passage-id order."""
    rng = np.random.default_rng(11)
    rows = []
    with LocalStore.open_for_write(directory, INFO) as store:
        for d in range(docs):
            v = rng.normal(size=(5, 16)).astype(np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            store.put_document(record(f"d{d}", 5), passages(5), v)
            rows.append(v)
        store.commit()
        store.refresh_matrix()
    return np.concatenate(rows)


def matrix_files(directory: Path) -> tuple[Path, Path]:
    return next(directory.glob("vectors-*.npy")), next(directory.glob("ids-*.npy"))


def top_ids(directory: Path, query: np.ndarray, k: int = 5) -> list[int]:
    with LocalStore.open(directory) as store:
        return [hit.passage.passage_id for hit in store.search(query, k)]


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def rewrite_rows(path: Path, change) -> None:
    array = np.load(path)
    np.save(path, change(array.copy()))


DAMAGE = {
    "truncated vectors": lambda v, i: truncate(v),
    "truncated ids": lambda v, i: truncate(i),
    "zeroed file": lambda v, i: v.write_bytes(b"\0" * v.stat().st_size),
    "random bytes": lambda v, i: v.write_bytes(np.random.default_rng(3).bytes(v.stat().st_size)),
    "rows zeroed": lambda v, i: rewrite_rows(v, lambda a: a * 0),
    "rows shuffled": lambda v, i: rewrite_rows(v, np.random.default_rng(5).permutation),
    "one row randomised": lambda v, i: rewrite_rows(
        v, lambda a: np.vstack([a[:7], np.random.default_rng(9).normal(size=(1, 16)), a[8:]])
    ),
    "ids shuffled": lambda v, i: rewrite_rows(i, lambda a: a[::-1].copy()),
    "ids deleted": lambda v, i: i.unlink(),
}


@pytest.mark.parametrize("damage", list(DAMAGE), ids=list(DAMAGE))
def test_a_damaged_derived_file_is_rebuilt_at_open_and_search_stays_right(tmp_path, damage):
    vectors = build(tmp_path)
    query = vectors[7]  # passage id 8 is its own best match
    expected = top_ids(tmp_path, query)
    assert expected[0] == 8
    DAMAGE[damage](*matrix_files(tmp_path))

    assert top_ids(tmp_path, query) == expected  # no traceback, no wrong passage
    vectors_path, ids_path = matrix_files(tmp_path)
    assert np.array_equal(np.load(vectors_path), vectors)  # rebuilt on disk from SQLite
    assert np.array_equal(np.load(ids_path), np.arange(1, 101))
    assert check_index(tmp_path).problems == []


def test_shuffled_rows_are_found_without_a_stored_checksum(tmp_path):
    """An index written before checksums existed: a sample of rows is compared with SQLite."""
    vectors = build(tmp_path)
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.execute("DELETE FROM meta WHERE key = ?", (CHECKSUM_KEY,))
    conn.commit()
    conn.close()
    rewrite_rows(matrix_files(tmp_path)[0], lambda a: a[::-1].copy())
    assert top_ids(tmp_path, vectors[7])[0] == 8


def test_index_check_reports_and_repairs(cli, tmp_path):
    build(tmp_path / "idx")
    vectors_path, _ = matrix_files(tmp_path / "idx")
    rewrite_rows(vectors_path, lambda a: np.random.default_rng(1).permutation(a))

    unrepaired = cli("index", "check", "--index", tmp_path / "idx", "--no-repair")
    assert unrepaired.code == 1 and "damaged:" in unrepaired.err, unrepaired
    assert "differs from passage" in unrepaired.err or "checksum" in unrepaired.err

    repaired = cli("index", "check", "--index", tmp_path / "idx")
    assert repaired.code == 0, repaired
    assert "rebuilt from index.sqlite: vectors-1.npy, ids-1.npy, lexicon-1.json" in repaired.out

    whole = cli("index", "check", "--index", tmp_path / "idx")
    assert whole.code == 0 and "match index.sqlite" in whole.out and "damaged" not in whole.err


def test_a_damaged_lexicon_is_found_and_rebuilt(tmp_path):
    build(tmp_path)
    lexicon = next(tmp_path.glob("lexicon-*.json"))
    lexicon.write_text('{"passages": "x"}')
    report = check_index(tmp_path)
    assert report.problems == ["the lexicon file is missing or damaged"]
    assert report.rebuilt and check_index(tmp_path).problems == []
    with LocalStore.open(tmp_path) as store:
        assert store.lexicon()[0] == 100


def overwrite_pages(db: Path, first_page: int) -> None:
    """Random bytes over every page from ``first_page`` on (page size 4096)."""
    data = bytearray(db.read_bytes())
    noise = np.random.default_rng(2).bytes(len(data))
    start = 4096 * first_page
    data[start:] = noise[start:]
    db.write_bytes(bytes(data))


def checkpoint(directory: Path) -> None:
    conn = sqlite3.connect(directory / "index.sqlite")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


@pytest.mark.parametrize("first_page", [0, 2], ids=["header", "data pages"])
def test_a_damaged_database_is_one_clear_error(cli, tmp_path, first_page):
    index = tmp_path / "idx"
    vectors = build(index)
    checkpoint(index)
    overwrite_pages(index / "index.sqlite", first_page)
    for name in index.glob("*.npy"):
        name.unlink()  # the matrix must come from SQLite, which is damaged

    with pytest.raises(CorpusIndexError) as caught:
        check_index(index)
    message = str(caught.value)
    assert str(index / "index.sqlite") in message and "lastword ingest" in message

    for args in (("index", "check"), ("sources",), ("inspect", "caffeine")):
        outcome = cli(*args, "--index", index)
        assert outcome.code == 3, (args, outcome)
        assert "Traceback" not in outcome.err and "index.sqlite" in outcome.err, (args, outcome)
        assert "damaged" in outcome.err
    del vectors
