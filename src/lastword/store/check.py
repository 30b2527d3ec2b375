"""Is an index whole? The derived files checked against SQLite, and SQLite checked itself.

SQLite is the source of truth; the matrix (``vectors-<gen>.npy``), its row ids (``ids-<gen>.npy``)
and the lexicon are derived from it. Any of them truncated, zeroed, shuffled or overwritten is
found here and rebuilt from SQLite, never searched. A damaged ``index.sqlite`` cannot be rebuilt
from anything: it is named in one ``CorpusIndexError`` saying what to do.

Two depths:

- at open (``matrix_damage``, every time a process loads a generation's matrix): the shapes
  against the passage count and dimension, the row ids against SQLite's, and the checksum the
  writer stored in ``meta`` (``matrix_checksum``) against the file's, or, without one, a sample
  of rows against their SQLite BLOBs. Cheap next to loading the embedder.
- ``check_index`` (``lastword index check``): SQLite's own ``integrity_check`` and every row
  of the matrix against its BLOB; damaged derived files are rebuilt.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lastword.errors import CorpusIndexError

if TYPE_CHECKING:
    from lastword.store.local import LocalStore

_log = logging.getLogger(__name__)

#: meta key of "<generation>:<sha256 of ids then vectors>", written by the writer with the matrix
CHECKSUM_KEY = "matrix_checksum"
#: rows compared with their SQLite BLOBs when no checksum was stored for the generation
SAMPLE_ROWS = 32


def matrix_checksum(vectors: np.ndarray, ids: np.ndarray) -> str:
    """sha256 over the row ids (little-endian int64) then the rows (little-endian float32)."""
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(ids, dtype="<i8").tobytes())
    step = 4096  # rows at a time: a memory-mapped matrix is hashed without copying it whole
    for start in range(0, len(vectors), step):
        digest.update(np.ascontiguousarray(vectors[start : start + step], dtype="<f4").data)
    return digest.hexdigest()


def stored_checksum(value: str | None, generation: int) -> str | None:
    """The checksum stored for ``generation``, or None (none stored, or an older one)."""
    if not value or ":" not in value:
        return None
    stored_generation, digest = value.split(":", 1)
    return digest if stored_generation == str(generation) else None


def damaged_database(path: Path, exc: BaseException | str) -> CorpusIndexError:
    """The one error for an unreadable ``index.sqlite``: which file, and what to do (a full
    disk is no damage: it says so)."""
    if isinstance(exc, BaseException) and disk_full(exc):
        return CorpusIndexError(database_problem(exc)[1])
    return CorpusIndexError(
        f"the index database {path} is damaged ({exc}). It cannot be repaired from the "
        "derived files: move it aside and rebuild the index with 'lastword ingest' from the "
        "original files (or restore it from a backup)"
    )


#: SQLite's result code for "database or disk is full"
SQLITE_FULL = 13


def disk_full(exc: BaseException) -> bool:
    """A write failed for want of space: SQLite's SQLITE_FULL, or ENOSPC from the system."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return code == SQLITE_FULL or "database or disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


DISK_FULL = (
    "disk full: the index could not be written ({detail}). Nothing was lost: every batch "
    "committed before is in the index, and the batch being written was rolled back. Free "
    "some space and run the same command again to finish"
)


def database_problem(exc: BaseException) -> tuple[str, str]:
    """The kind and the one message for a SQLite error met while the index was in use (after
    it opened): the CLI and the web app say the same."""
    if disk_full(exc):
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return "disk_full", DISK_FULL.format(detail=detail)
    return "index", (
        f"the index database (index.sqlite) is damaged ({exc}); run 'lastword index check "
        "--index DIR' to see what to do"
    )


def matrix_damage(
    conn: sqlite3.Connection,
    generation: int,
    dim: int,
    matrix: np.ndarray,
    ids: np.ndarray,
    checksum_value: str | None,
    *,
    full: bool = False,
) -> str | None:
    """Why ``matrix``/``ids`` do not match SQLite, or None when they do.

    ``full`` compares every row with its BLOB; otherwise the stored checksum (or a sample).
    """
    try:
        (count,) = conn.execute("SELECT COUNT(*) FROM passages").fetchone()
        if matrix.ndim != 2 or matrix.shape[1:] != (dim,) or matrix.dtype != np.float32:
            return f"the matrix is {matrix.shape} {matrix.dtype}, not (rows, {dim}) float32"
        if matrix.shape[0] != count:
            return f"the matrix has {matrix.shape[0]} rows; the database has {count} passages"
        if ids.shape != (count,) or ids.dtype != np.int64:
            return f"the row ids are {ids.shape} {ids.dtype}, not ({count},) int64"
        digest = None if full else stored_checksum(checksum_value, generation)
        if digest is not None:
            # The checksum covers the row ids and every row, as written from this generation.
            if matrix_checksum(matrix, ids) != digest:
                return "the matrix does not match the checksum stored when it was written"
            return None
        expected_ids = np.fromiter(
            (row[0] for row in conn.execute("SELECT id FROM passages ORDER BY id")),
            dtype=np.int64,
            count=count,
        )
        if not np.array_equal(ids, expected_ids):
            return "the row ids do not match the database's passages"
        if full:
            rows = range(count)
        else:  # no checksum for this generation (an index written before checksums): a sample
            rows = sorted(set(np.linspace(0, count - 1, min(count, SAMPLE_ROWS), dtype=int)))
        for row in rows:
            blob = conn.execute(
                "SELECT vector FROM passages WHERE id = ?", (int(ids[row]),)
            ).fetchone()[0]
            if not np.array_equal(matrix[row], np.frombuffer(blob, dtype="<f4")):
                return f"row {row} of the matrix differs from passage {int(ids[row])}'s vector"
    except sqlite3.DatabaseError as exc:
        raise damaged_database(Path(_db_file(conn)), exc) from exc
    return None


def _db_file(conn: sqlite3.Connection) -> str:
    try:
        return conn.execute("PRAGMA database_list").fetchone()[2]
    except sqlite3.DatabaseError:
        return "index.sqlite"


@dataclass
class CheckReport:
    """What ``check_index`` found. ``problems`` empty: the index is whole."""

    directory: Path
    generation: int = 0
    documents: int = 0
    passages: int = 0
    problems: list[str] = field(default_factory=list)
    rebuilt: list[str] = field(default_factory=list)
    #: what is wrong inside index.sqlite itself and no rebuild of derived files mends
    #: (documents whose passages are gone)
    findings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings and (not self.problems or bool(self.rebuilt))


def check_index(directory: Path, *, repair: bool = True) -> CheckReport:
    """Check SQLite and every derived file of the index at ``directory``; rebuild what is damaged.

    Raises ``CorpusIndexError`` (naming the file, saying what to do) when SQLite itself is damaged.
    """
    from lastword.store.local import LocalStore

    report = CheckReport(directory=directory)
    with LocalStore.open(directory) as store:
        _integrity(store)
        info = store.info()
        report.documents, report.passages = info.documents, info.passages
        report.generation = store.generation
        empty = _documents_without_passages(store)
        if empty:
            shown = ", ".join(empty[:3]) + (f" and {len(empty) - 3} more" if len(empty) > 3 else "")
            report.findings.append(
                f"{len(empty)} of {report.documents} documents have no passages ({shown}): "
                "their text is gone from index.sqlite and nothing can be searched in them. "
                "Move the index aside and rebuild it with 'lastword ingest' from the original "
                "files (or restore it from a backup)"
            )
        damage = derived_damage(store, full=True)
        if damage is None and read_lexicon(store._lexicon_path(store.generation)) is None:
            damage = "the lexicon file is missing or damaged"
        if damage is not None:
            report.problems.append(damage)
            if repair:
                report.rebuilt = store.rebuild_derived()
    return report


def _documents_without_passages(store: LocalStore) -> list[str]:
    """Titles (else ids) of the documents with no passage at all: ingest never stores one."""
    try:
        rows = store._conn.execute(
            "SELECT d.doc_id, d.title FROM documents d WHERE NOT EXISTS "
            "(SELECT 1 FROM passages p WHERE p.doc_id = d.doc_id) ORDER BY d.title"
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise damaged_database(store.directory / "index.sqlite", exc) from exc
    return [title or doc_id for doc_id, title in rows]


def _integrity(store: LocalStore) -> None:
    path = store.directory / "index.sqlite"
    try:
        rows = [row[0] for row in store._conn.execute("PRAGMA integrity_check(5)")]
    except sqlite3.DatabaseError as exc:
        raise damaged_database(path, exc) from exc
    if rows != ["ok"]:
        raise damaged_database(path, "; ".join(rows))


#: ``read_matrix_files``'s answer when a file is simply not there (a writer died before it)
MISSING = "the matrix files are missing"


def read_matrix_files(vectors_path: Path, ids_path: Path) -> tuple[np.ndarray, np.ndarray] | str:
    """The memory-mapped matrix and its row ids, or why they cannot be read."""
    try:
        matrix = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
        ids = np.load(ids_path, allow_pickle=False)
    except FileNotFoundError:
        return MISSING
    except (ValueError, OSError, EOFError, TypeError) as exc:  # truncated, zeroed, random bytes
        return f"a matrix file cannot be read ({exc})"
    if not isinstance(matrix, np.ndarray) or not isinstance(ids, np.ndarray):
        return "a matrix file holds no array"
    return matrix, ids


def read_lexicon(path: Path) -> dict | None:
    """The lexicon file's data, or None when it is missing or damaged."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("passages"), int)
        and isinstance(data.get("terms"), dict)
    )
    return data if ok else None


# A companion of LocalStore: the functions below read its internals on purpose, so that the
# store module keeps only the hooks (``refresh_matrix(force=True)``, ``rebuild_derived``).


def derived_damage(store: LocalStore, full: bool = False) -> str | None:
    """Why this generation's matrix files are missing or disagree with SQLite (None: whole)."""
    generation = store.generation
    loaded = read_matrix_files(*store._matrix_paths(generation))
    if isinstance(loaded, str):
        return loaded
    checksum = store._meta(CHECKSUM_KEY)
    return matrix_damage(store._conn, generation, store.embedder.dim, *loaded, checksum, full=full)


def load_matrix(store: LocalStore) -> tuple[np.ndarray, np.ndarray]:
    """The matrix and row ids of the committed generation, checked against SQLite.

    Missing (a writer died before writing them) or damaged files are rebuilt from SQLite: to
    disk when this process may write there, else in memory for this process only.
    """
    damage = derived_damage(store)
    paths = store._matrix_paths(store.generation)
    if damage is None:
        loaded = read_matrix_files(*paths)
        if not isinstance(loaded, str):
            return loaded
    elif damage != MISSING:
        _log.warning("%s: %s; rebuilding it from index.sqlite", store.directory, damage)
    if store._lock_fd is not None or os.access(store.directory, os.W_OK):
        try:
            store.rebuild_derived()
            loaded = read_matrix_files(*paths)
            if not isinstance(loaded, str):
                return loaded
        except OSError:
            pass
    return store._read_vectors()
