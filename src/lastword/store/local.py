"""The embedded default store: one directory, no service.

    DIR/index.sqlite        documents, passages (with their vectors as BLOBs), meta, and the
                            lexical index (FTS5, ``store/lexical.py``), one transaction for all
    DIR/vectors-<gen>.npy   the matrix, ids, lexicon and HNSW graph derived from it, tagged with
    DIR/ids-<gen>.npy       the generation they describe (``store/derived.py``)
    DIR/lexicon-<gen>.json
    DIR/hnsw-<gen>.bin
    DIR/postings-<gen>.npz  the lexical index's postings, for BM25 in memory (``store/bm25.py``)
    DIR/index.lock          held by the one process allowed to write

SQLite is the source of truth and the only thing that must survive a crash: every batch of an
ingest is one transaction, so ``kill -9`` at any instant leaves the last committed state. The
matrix is derived from it and tagged with the generation it was built from; a reader that finds
it stale (a writer died before refreshing it) rebuilds it. Files only ever appear under their
final name through ``os.replace``, so a half-written matrix is never read.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import CorpusIndexError, IndexLockedError
from lastword.settings import StoreSettings
from lastword.store import bm25, check, int8, lexical
from lastword.store.derived import DerivedFiles
from lastword.store.extras import SCHEMA as EXTRAS_SCHEMA
from lastword.store.extras import StoreExtras
from lastword.store.library import SQLITE_SCHEMA as LIBRARY_SCHEMA
from lastword.store.library import LocalLibrary
from lastword.store.local_search import LocalSearch
from lastword.store.protocol import (
    FORMAT_VERSION,
    DocumentRecord,
    IndexInfo,
    NewPassage,
    ReferenceEntry,
    check_vectors,
    initial_meta,
)

DB_NAME = "index.sqlite"
LOCK_NAME = "index.lock"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    pages INTEGER,
    added_at TEXT NOT NULL,
    metadata TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    page INTEGER,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,
    kind TEXT NOT NULL DEFAULT 'body',
    flags TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS passages_doc ON passages(doc_id);
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


#: SQLite's page cache per connection, in KiB (its default: 2,000). It fills only with pages
#: read; at 1M passages the passages table's interior b-tree pages alone take ~4.5 MB, and with
#: the default each of a search's 8 row lookups read one of them again: 0.12 -> 0.10 ms for
#: the 8 rows (docs/scale.md, stop 24, second round).
CACHE_KIB = 32_768


class LocalStore(DerivedFiles, StoreExtras, LocalLibrary, LocalSearch):
    """SQLite + memory-mapped float32 matrix. Open with ``create``/``open_for_write``/``open``."""

    def __init__(
        self,
        directory: Path,
        conn: sqlite3.Connection,
        lock_fd: int | None,
        settings: StoreSettings | None = None,
    ) -> None:
        self.directory = directory
        self.location = str(directory)
        self.settings = settings or StoreSettings()
        self._conn = conn
        self._lock_fd = lock_fd
        self._matrix: np.ndarray | None = None
        self._ids: np.ndarray | None = None
        self._matrix_generation = -1
        self._lexicon: tuple[int, dict[str, int]] | None = None
        self._lexicon_generation = -1
        self._graph: object | None = None
        self._graph_generation = -1
        self._int8: tuple[np.ndarray, int8.Int8Pass] | None = None  # (its matrix, the pass)
        #: how the int8 pass ended: "proved" (its top k answered) or "whole" (the product did)
        self.int8_counts = {"proved": 0, "whole": 0}
        self._titles: tuple[int, dict[str, tuple[str, dict]]] | None = None
        self._docs: tuple[int, tuple[np.ndarray, np.ndarray, list[str]]] | None = None
        self._rows: tuple[int, dict[int, tuple] | None] | None = None  # _held_rows
        self._kind_codes: tuple[np.ndarray, dict[str, int], dict] | None = None
        self._kind_generation = -1
        self._postings: bm25.Postings | None = None
        self._postings_generation = -1
        self._stemmer = bm25.Stemmer()
        self._postings_lock = threading.Lock()
        self._reading = threading.local()  # the generation pinned by ``reading``, per thread
        self._scoped: dict = {}  # (generation, scope) -> its passage ids (``store/library.py``)

    # ----------------------------------------------------------------- opening
    @classmethod
    def exists(cls, directory: Path) -> bool:
        return (directory / DB_NAME).is_file()

    @classmethod
    def open(cls, directory: Path, settings: StoreSettings | None = None) -> LocalStore:
        """Open an existing index for reading (no lock: readers never block a writer)."""
        if not cls.exists(directory):
            raise CorpusIndexError(
                f"no index at {directory}: "
                f"build one with 'lastword ingest PATH --index {directory}'"
            )
        store = cls(directory, cls._connect(directory), lock_fd=None, settings=settings)
        try:
            store._check_format()
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_for_write(
        cls, directory: Path, embedder: EmbedderInfo, settings: StoreSettings | None = None
    ) -> LocalStore:
        """Open (creating if needed) with the writer's lock held until ``close``."""
        directory.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise IndexLockedError(
                f"another process is writing the index at {directory}; wait for it to finish"
            ) from None
        try:
            conn = cls._connect(directory)
            store = cls(directory, conn, lock_fd, settings)
            if store._meta("format_version") is None:
                store._initialise(embedder)
            store._check_format()
            lexical.ensure(conn)  # an index built before the lexical index gets it now
            store._remove_stray_files()
        except BaseException:
            os.close(lock_fd)
            raise
        return store

    @staticmethod
    def _connect(directory: Path) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                directory / DB_NAME, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL is durable against a killed process; only power loss can lose the
            # last transaction, and even then the database stays consistent.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=10000")
            conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
            conn.executescript(_SCHEMA + EXTRAS_SCHEMA + LIBRARY_SCHEMA)
            conn.execute("SELECT COUNT(*) FROM meta").fetchone()
        except sqlite3.DatabaseError as exc:
            raise check.damaged_database(directory / DB_NAME, exc) from exc
        conn.row_factory = sqlite3.Row
        return conn

    def _initialise(self, embedder: EmbedderInfo) -> None:
        with self._transaction():
            for key, value in initial_meta(embedder, _now()).items():
                self._set_meta(key, value)

    def _check_format(self) -> None:
        try:
            version = self._meta("format_version")
        except sqlite3.DatabaseError as exc:
            raise check.damaged_database(self.directory / DB_NAME, exc) from exc
        if version != FORMAT_VERSION:
            raise CorpusIndexError(
                f"{self.directory} has index format {version!r}; this lastword reads format "
                f"{FORMAT_VERSION!r} (documents identified by content, passage kinds): rebuild "
                f"the index: remove {self.directory} and run 'lastword ingest' again"
            )

    # ----------------------------------------------------------------- meta
    def _generation(self) -> int:
        pinned = getattr(self._reading, "generation", None)  # inside ``reading()``
        return pinned if pinned is not None else int(self._meta("generation") or 0)

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def read_meta(self, key: str) -> str | None:
        return self._meta(key)

    def write_meta(self, key: str, value: str) -> None:
        if self._conn.in_transaction:
            raise CorpusIndexError("a meta row is written outside a batch: commit it first")
        self._begin_if_needed()
        self._set_meta(key, value)
        self._conn.execute("COMMIT")

    @property
    def embedder(self) -> EmbedderInfo:
        return EmbedderInfo(
            name=self._meta("embedder_name") or "",
            model=self._meta("embedder_model") or "",
            dim=int(self._meta("embedder_dim") or 0),
        )

    def info(self) -> IndexInfo:
        documents, passages = self._conn.execute(
            "SELECT (SELECT COUNT(*) FROM documents), (SELECT COUNT(*) FROM passages)"
        ).fetchone()
        return IndexInfo(
            embedder=self.embedder,
            documents=documents,
            passages=passages,
            fingerprint=self._meta("fingerprint") or "",
            created_at=self._meta("created_at") or "",
            updated_at=self._meta("updated_at") or "",
        )

    # ----------------------------------------------------------------- writing
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _begin_if_needed(self) -> None:
        if self._lock_fd is None:
            raise CorpusIndexError("this index was opened read-only")
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN IMMEDIATE")

    def put_document(
        self,
        record: DocumentRecord,
        passages: Sequence[NewPassage],
        vectors: np.ndarray,
        references: Sequence[ReferenceEntry] = (),
    ) -> None:
        check_vectors(vectors, len(passages), self.embedder.dim)
        self._begin_if_needed()
        self._conn.execute("DELETE FROM documents WHERE doc_id = ?", (record.doc_id,))
        self._conn.execute(
            "INSERT INTO documents(doc_id, title, source, content_hash, pages, added_at, metadata) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)",
            (
                record.doc_id,
                record.title,
                record.source,
                record.content_hash,
                record.pages,
                record.added_at,
                json.dumps(record.metadata, ensure_ascii=False, sort_keys=True),
            ),
        )
        self._conn.executemany(
            "INSERT INTO passages(doc_id, position, page, char_start, char_end, text, vector, "
            "kind, flags) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    record.doc_id,
                    p.position,
                    p.page,
                    p.char_start,
                    p.char_end,
                    p.text,
                    vectors[i].astype("<f4").tobytes(),
                    p.kind,
                    json.dumps(list(p.flags), ensure_ascii=False),
                )
                for i, p in enumerate(passages)
            ],
        )
        lexical.add_document(self._conn, record.doc_id)  # same transaction as the passages
        self.put_references(record.doc_id, references)

    def remove_document(self, doc_id: str) -> None:
        self._begin_if_needed()
        self._conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
        self._conn.execute("DELETE FROM doc_collections WHERE doc_id = ?", (doc_id,))

    def commit(self) -> None:
        """Commit the open batch: bump the generation and fingerprint in the same transaction."""
        if not self._conn.in_transaction:
            return
        rows = self._conn.execute(
            "SELECT doc_id, content_hash FROM documents ORDER BY doc_id"
        ).fetchall()
        digest = hashlib.sha256(self.embedder.describe().encode())
        for doc_id, content_hash in rows:
            digest.update(f"\0{doc_id}\0{content_hash}".encode())
        generation = int(self._meta("generation") or 0) + 1
        self._set_meta("generation", str(generation))
        self._set_meta("fingerprint", digest.hexdigest()[:16])
        self._set_meta("updated_at", _now())
        self._conn.execute("COMMIT")

    def rollback(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    # ----------------------------------------------------------------- reading
    def _lexical_search(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str],
        kinds: Collection[str] | None,
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Search the in-memory postings (``store/bm25.py``); None: run the FTS5 query.
        ``allowed``: the passage ids of a scope (its rows are the only ones scored)."""
        if self._conn.in_transaction:  # a writer's open batch: FTS5 sees it, postings do not
            return None
        postings = self._current_postings()
        if postings is None:
            return None
        phrases = self._stemmer.phrases(self._conn, text)
        if phrases is None:
            return None
        if not phrases:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
        excluded = self._passage_ids_of(exclude_doc_ids) if exclude_doc_ids else None
        mask = postings.of_kinds(kinds) if kinds is not None else None
        if allowed is not None:
            within = self._rows_mask(allowed, postings.ids)
            mask = within if mask is None else mask & within
        return postings.search(phrases, k, excluded, mask)

    def _current_postings(self) -> bm25.Postings | None:
        generation = self._generation()
        if self._postings_generation == generation:
            return self._postings
        with self._postings_lock:
            return self._postings_of(generation)

    def _postings_of(self, generation: int) -> bm25.Postings | None:
        if self._postings_generation == generation:
            return self._postings  # another thread built them meanwhile
        schema = lexical.ready(self._conn)  # an index older than its lexical table gets it now
        postings = bm25.Postings.load(bm25.postings_path(self.directory, generation))
        if postings is None:
            count = self._conn.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
            if count > bm25.MAX_PASSAGES:
                # Too big to hold in memory: the FTS5 query answers, as it did before.
                self._postings, self._postings_generation = None, generation
                return None
            self._conn.execute("BEGIN")  # one snapshot: the generation and the table it tags
            try:
                generation = self._generation()
                postings = bm25.Postings.build(self._conn, schema)
            finally:
                self._conn.execute("COMMIT")
            if os.access(self.directory, os.W_OK):
                with contextlib.suppress(OSError):
                    postings.save(bm25.postings_path(self.directory, generation))
        self._postings, self._postings_generation = postings, generation
        return postings

    def _passage_ids_of(self, doc_ids: Collection[str]) -> np.ndarray:
        doc_ids = list(doc_ids)
        found: list[int] = []
        for start in range(0, len(doc_ids), 500):
            chunk = doc_ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found += [
                row[0]
                for row in self._conn.execute(
                    f"SELECT id FROM passages WHERE doc_id IN ({marks})", chunk
                )
            ]
        return np.array(sorted(found), dtype=np.int64)

    def document_text(self, doc_id: str) -> str:
        rows = self._conn.execute(
            "SELECT text FROM passages WHERE doc_id = ? ORDER BY position", (doc_id,)
        )
        return "\n\n".join(row[0] for row in rows)

    def documents(self) -> Iterator[DocumentRecord]:
        rows = self._conn.execute(
            "SELECT d.*, (SELECT COUNT(*) FROM passages p WHERE p.doc_id = d.doc_id) AS n "
            "FROM documents d ORDER BY d.title, d.doc_id"
        ).fetchall()
        for row in rows:
            yield DocumentRecord(
                doc_id=row["doc_id"],
                title=row["title"],
                source=row["source"],
                content_hash=row["content_hash"],
                pages=row["pages"],
                passages=row["n"],
                added_at=row["added_at"],
                metadata=json.loads(row["metadata"]),
            )

    def source_paths(self, doc_id: str) -> list[tuple[str, str]]:
        rows = self._conn.execute(
            "SELECT source, path FROM sources WHERE doc_id = ? ORDER BY rowid", (doc_id,)
        )
        return [(row[0], row[1]) for row in rows]

    def export_document(self, doc_id: str) -> tuple[list[NewPassage], np.ndarray]:
        rows = self._conn.execute(
            "SELECT page, position, char_start, char_end, text, kind, vector, flags FROM passages "
            "WHERE doc_id = ? ORDER BY id",
            (doc_id,),
        ).fetchall()
        vectors = np.empty((len(rows), self.embedder.dim), dtype=np.float32)
        for i, row in enumerate(rows):
            vectors[i] = np.frombuffer(row["vector"], dtype="<f4")
        fields = ("page", "position", "char_start", "char_end", "text", "kind")
        passages = [
            NewPassage(**{f: row[f] for f in fields}, flags=tuple(json.loads(row["flags"])))
            for row in rows
        ]
        return passages, vectors

    def document_hashes(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT doc_id, content_hash FROM documents").fetchall())

    def document_sources(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT doc_id, source FROM documents").fetchall())

    # ----------------------------------------------------------------- closing
    def close(self) -> None:
        try:
            self.rollback()
            self._conn.close()
        finally:
            self._matrix = None
            self._graph = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
