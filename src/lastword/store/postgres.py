"""The index in PostgreSQL with pgvector: several server processes, one shared store.

    SCHEMA.meta        key/value: format, embedder, generation, fingerprint, lexicon, times
    SCHEMA.documents   one row per document
    SCHEMA.passages    one row per passage, with its vector (pgvector, HNSW cosine index)
    SCHEMA.sources     every path a document was read from (one document, several copies)
    SCHEMA.bibliography  each document's reference-list entries

The same semantics as ``LocalStore``: a batch of ``put_document``/``remove_document`` becomes
visible whole at ``commit`` (one transaction, which also bumps the generation and the
fingerprint) or not at all; one writer at a time (a session advisory lock); readers never block.
Search asks the vector index for the nearest passages and returns exact cosine scores of what
it found: HNSW by default (``[store] pg_ef_search``), or ivfflat lists (``pg_index``,
``pg_probes``; built by the writer once rows exist, again when the corpus doubles or halves);
filters go through the index's iterative scans on pgvector 0.8+. With ``pg_precision =
"half"`` (pgvector 0.7+) the index is over half-precision copies of the vectors, half the size,
and its ``pg_candidates`` nearest are re-scored exactly in float32.
The lexical side is PostgreSQL full-text search: each passage's title and text, cut by the
same ``lexical_tokens`` as the local FTS5 index, as a generated ``tsvector`` (english stemming)
with a GIN index, ranked by ``ts_rank_cd``.

Needs ``pip install 'lastword[postgres]'`` (psycopg 3) and a database where the ``vector``
extension exists or may be created.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import ConfigError, CorpusIndexError, IndexLockedError
from lastword.settings import StoreSettings
from lastword.store.postgres_extras import (
    PostgresExtras,
    binary_copy,
    built_precision,
    create_tables,
    create_vector_index,
    ivfflat_stale,
    wanted_precision,
)
from lastword.store.postgres_library import PostgresLibrary, create_library_tables
from lastword.store.postgres_search import PostgresSearch, register_vector_dumper
from lastword.store.protocol import (
    FORMAT_VERSION,
    DocumentRecord,
    IndexInfo,
    NewPassage,
    ReferenceEntry,
    check_vectors,
    initial_meta,
)
from lastword.terms import terms


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            "[store] backend 'postgres' needs psycopg: pip install 'lastword[postgres]'"
        ) from None
    return psycopg


def safe_dsn(dsn: str) -> str:
    """The connection string without its password, for messages."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", re.sub(r"password=\S+", "password=***", dsn))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class PostgresStore(PostgresExtras, PostgresLibrary, PostgresSearch):
    """PostgreSQL + pgvector. Open with ``open`` (reading) or ``open_for_write``."""

    def __init__(self, dsn: str, settings: StoreSettings, *, writer: bool, connection: Any) -> None:
        self.dsn = dsn
        self.settings = settings
        self.schema = settings.schema_name
        self.location = f"{safe_dsn(dsn)} (schema {self.schema})"
        self._writer = writer
        self._main = connection  # a writer's one connection (autocommit off)
        # A reader lends each call an idle connection (one per concurrent call, kept open).
        self._idle: list[Any] = [] if writer else [connection]
        self._connections: list[Any] = [connection]
        self._connections_lock = threading.Lock()
        self._dirty = False
        self._lexicon: tuple[int, tuple[int, dict[str, int]]] | None = None
        self._embedder: EmbedderInfo | None = None
        self._hnsw_iterative = False
        #: each reader connection's iterative-scan mode, by id(conn) (``_fetch_nearest``)
        self._scan_modes: dict[Any, Any] = {}
        #: "half" or "full": what the vector index holds (read from it; None: not read yet)
        self._precision: str | None = None
        self._prepare(connection)

    # ----------------------------------------------------------------- opening
    @staticmethod
    def _connect(dsn: str, *, autocommit: bool) -> Any:
        psycopg = _psycopg()
        try:
            return psycopg.connect(dsn, autocommit=autocommit, connect_timeout=10)
        except psycopg.Error as exc:
            raise CorpusIndexError(f"cannot reach PostgreSQL at {safe_dsn(dsn)}: {exc}") from None

    @classmethod
    def exists(cls, dsn: str, settings: StoreSettings) -> bool:
        with cls._connect(dsn, autocommit=True) as conn:
            row = conn.execute("SELECT to_regclass(%s)", (f"{settings.schema_name}.meta",))
            return row.fetchone()[0] is not None

    @classmethod
    def open(cls, dsn: str, settings: StoreSettings | None = None) -> PostgresStore:
        """Open an existing index for reading."""
        settings = settings or StoreSettings()
        if not cls.exists(dsn, settings):
            raise CorpusIndexError(
                f"no index in {safe_dsn(dsn)} (schema {settings.schema_name}): build one with "
                "'lastword ingest PATH' ([store] backend = \"postgres\"), or "
                "'lastword store copy --from DIR --to DSN'"
            )
        store = cls(dsn, settings, writer=False, connection=cls._connect(dsn, autocommit=True))
        store._check_format()
        return store

    @classmethod
    def open_for_write(
        cls, dsn: str, embedder: EmbedderInfo, settings: StoreSettings | None = None
    ) -> PostgresStore:
        """Open (creating if needed) with the writer's lock held until ``close``."""
        settings = settings or StoreSettings()
        conn = cls._connect(dsn, autocommit=False)
        try:
            locked = conn.execute(
                "SELECT pg_try_advisory_lock(hashtext(%s))", (f"lastword:{settings.schema_name}",)
            ).fetchone()[0]
            conn.commit()
            if not locked:
                raise IndexLockedError(
                    f"another process is writing the index in {safe_dsn(dsn)} "
                    f"(schema {settings.schema_name}); wait for it to finish"
                )
            store = cls(dsn, settings, writer=True, connection=conn)
            table = conn.execute("SELECT to_regclass(%s)", (f"{store.schema}.meta",)).fetchone()
            if table[0] is None:
                store._initialise(embedder)
            store._check_format()
            create_library_tables(conn, store.schema)  # an index made before collections
            conn.commit()
        except BaseException:
            conn.close()
            raise
        return store

    def _prepare(self, conn: Any) -> None:
        """Per connection: the search settings (iterative scans need pgvector 0.8+) and the
        query vector's binary form."""
        register_vector_dumper(conn)
        conn.execute(f"SET hnsw.ef_search = {int(self.settings.pg_ef_search)}")
        conn.execute(f"SET ivfflat.probes = {int(self.settings.pg_probes)}")
        if not conn.autocommit:
            conn.commit()
        try:
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
            conn.execute("SET ivfflat.iterative_scan = relaxed_order")
            self._hnsw_iterative = True
            self._scan_modes[id(conn)] = "relaxed_order"
        except _psycopg().Error:
            if not conn.autocommit:
                conn.rollback()
        if not conn.autocommit:
            conn.commit()

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Any]:
        if self._writer:
            yield self._main
            return
        with self._connections_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or conn.closed:
            conn = self._connect(self.dsn, autocommit=True)
            self._prepare(conn)
            with self._connections_lock:
                self._connections.append(conn)
        try:
            yield conn
        finally:
            with self._connections_lock:
                if not conn.closed and conn in self._connections:
                    self._idle.append(conn)

    def _fetch(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]:
        with self._conn() as conn:
            return conn.execute(sql, params).fetchall()

    def _t(self, name: str) -> str:
        return f"{self.schema}.{name}"

    def _initialise(self, embedder: EmbedderInfo) -> None:
        conn, s = self._main, self.schema
        psycopg = _psycopg()
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            conn.rollback()
            raise CorpusIndexError(
                f"the vector extension is not available in {safe_dsn(self.dsn)}: {exc}"
                " (install pgvector, or ask the database owner to CREATE EXTENSION vector)"
            ) from None
        create_tables(conn, s, embedder.dim)
        self.create_vector_index(embedder.dim)
        for key, value in initial_meta(embedder, _now()).items():
            self._set_meta(key, value)
        conn.commit()

    def create_vector_index(self, dim: int | None = None) -> None:
        """The cosine index over the passages: HNSW (created with the tables and kept as rows
        arrive) or ivfflat (k-means lists of the rows present: ``refresh_derived``), over the
        vectors' half-precision copies or the vectors themselves (``[store] pg_precision``)."""
        dim = dim or self.embedder.dim
        rows = create_vector_index(self._main, self.schema, self.settings, dim)
        self._precision = None
        if rows is not None:
            self._set_meta("ivfflat_rows", str(rows))

    def _refresh_ivfflat(self) -> None:
        """Build the ivfflat lists when missing or when the corpus doubled or halved since."""
        if ivfflat_stale(self._main, self.schema, int(self._meta("ivfflat_rows") or 0)):
            self.create_vector_index()
        self._main.commit()

    def drop_vector_index(self) -> None:
        """For a bulk load: drop the HNSW index, load, ``create_vector_index``, commit."""
        self._require_writer()
        self._main.execute(f"DROP INDEX IF EXISTS {self._t('passages_embedding')}")
        self._precision = None
        self._dirty = True

    def _check_format(self) -> None:
        version = self._meta("format_version")
        if version != FORMAT_VERSION:
            raise CorpusIndexError(
                f"{self.location} has index format {version!r}; this lastword reads format "
                f"{FORMAT_VERSION!r}: rebuild it with 'lastword ingest'"
            )

    # ----------------------------------------------------------------- meta
    def _meta(self, key: str) -> str | None:
        rows = self._fetch(f"SELECT value FROM {self._t('meta')} WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def _set_meta(self, key: str, value: str) -> None:
        self._main.execute(
            f"INSERT INTO {self._t('meta')} (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def read_meta(self, key: str) -> str | None:
        return self._meta(key)

    def write_meta(self, key: str, value: str) -> None:
        self._require_writer()
        if self._dirty:
            raise CorpusIndexError("a meta row is written outside a batch: commit it first")
        self._set_meta(key, value)
        self._main.commit()

    @property
    def embedder(self) -> EmbedderInfo:
        if self._embedder is None:
            self._embedder = EmbedderInfo(
                name=self._meta("embedder_name") or "",
                model=self._meta("embedder_model") or "",
                dim=int(self._meta("embedder_dim") or 0),
            )
        return self._embedder

    def vector_precision(self) -> str:
        """ "half" when the vector index is over half-precision copies (search re-scores its
        candidates exactly), "full" otherwise (also when there is no index: a plain scan)."""
        if self._precision is None:
            with self._conn() as conn:
                self._precision = built_precision(conn, self.schema) or "full"
                if not conn.autocommit:
                    conn.commit()
        return self._precision

    def info(self) -> IndexInfo:
        ((documents, passages),) = self._fetch(
            f"SELECT (SELECT COUNT(*) FROM {self._t('documents')}), "
            f"(SELECT COUNT(*) FROM {self._t('passages')})"
        )
        return IndexInfo(
            embedder=self.embedder,
            documents=documents,
            passages=passages,
            fingerprint=self._meta("fingerprint") or "",
            created_at=self._meta("created_at") or "",
            updated_at=self._meta("updated_at") or "",
        )

    # ----------------------------------------------------------------- writing
    def _require_writer(self) -> None:
        if not self._writer:
            raise CorpusIndexError("this index was opened read-only")

    def put_document(
        self,
        record: DocumentRecord,
        passages: Sequence[NewPassage],
        vectors: np.ndarray,
        references: Sequence[ReferenceEntry] = (),
    ) -> None:
        check_vectors(vectors, len(passages), self.embedder.dim)
        self._require_writer()
        conn = self._main
        self._dirty = True
        conn.execute(f"DELETE FROM {self._t('documents')} WHERE doc_id = %s", (record.doc_id,))
        conn.execute(
            f"INSERT INTO {self._t('documents')} (doc_id, title, source, content_hash, pages, "
            "added_at, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s)",
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
        if references:
            with conn.cursor() as cursor:
                cursor.executemany(
                    f"INSERT INTO {self._t('bibliography')} (doc_id, number, text) "
                    "VALUES (%s, %s, %s)",
                    [(record.doc_id, e.number, e.text) for e in references],
                )
        if not passages:
            return
        with conn.cursor().copy(
            f"COPY {self._t('passages')} (doc_id, position, page, char_start, char_end, text, "
            "kind, embedding, lexical, flags) FROM STDIN (FORMAT BINARY)"
        ) as copy:
            copy.write(binary_copy(record, passages, vectors))

    def remove_document(self, doc_id: str) -> None:
        self._require_writer()
        self._dirty = True
        self._main.execute(f"DELETE FROM {self._t('documents')} WHERE doc_id = %s", (doc_id,))
        self._main.execute(f"DELETE FROM {self._t('doc_collections')} WHERE doc_id = %s", (doc_id,))

    def commit(self) -> None:
        """Commit the open batch: bump the generation and fingerprint in the same transaction."""
        if not self._writer:
            return
        if not self._dirty:
            self._main.commit()
            return
        conn = self._main
        digest = hashlib.sha256(self.embedder.describe().encode())
        rows = conn.execute(
            f'SELECT doc_id, content_hash FROM {self._t("documents")} ORDER BY doc_id COLLATE "C"'
        )
        for doc_id, content_hash in rows:
            digest.update(f"\0{doc_id}\0{content_hash}".encode())
        generation = int(self._meta("generation") or 0) + 1
        self._set_meta("generation", str(generation))
        self._set_meta("fingerprint", digest.hexdigest()[:16])
        self._set_meta("updated_at", _now())
        conn.commit()
        self._dirty = False

    def rollback(self) -> None:
        if self._writer:
            self._main.rollback()
            self._dirty = False

    def refresh_derived(self) -> None:
        """Store the committed corpus's lexicon; (re)build ivfflat lists when they are stale
        (an HNSW index is kept up to date by PostgreSQL itself)."""
        if not self._writer:
            return
        if self.settings.pg_index == "ivfflat":
            self._refresh_ivfflat()
        elif self._meta("ivfflat_rows"):  # switched back from ivfflat: the HNSW index again
            self._main.execute(f"DROP INDEX IF EXISTS {self._t('passages_embedding')}")
            self.create_vector_index()
            self._set_meta("ivfflat_rows", "")
            self._main.commit()
        elif built_precision(self._main, self.schema) not in (
            None,
            wanted_precision(self._main, self.settings),
        ):  # [store] pg_precision changed: the HNSW index again, at the new precision
            self.create_vector_index()
            self._main.commit()
        generation = self._generation()
        if self._meta("lexicon_generation") == str(generation):
            return
        total, counts = self._count_terms()
        self._set_meta("lexicon", json.dumps({"passages": total, "terms": counts}))
        self._set_meta("lexicon_generation", str(generation))
        self._main.commit()

    # ----------------------------------------------------------------- reading
    def _generation(self) -> int:
        return int(self._meta("generation") or 0)

    def _count_terms(self) -> tuple[int, dict[str, int]]:
        counts: Counter[str] = Counter()
        total = 0
        with self._conn() as conn, conn.cursor() as cursor:
            for (text,) in cursor.execute(f"SELECT text FROM {self._t('passages')}"):
                counts.update(terms(text))
                total += 1
        return total, dict(counts)

    def lexicon(self) -> tuple[int, dict[str, int]]:
        generation = self._generation()
        if self._lexicon is not None and self._lexicon[0] == generation:
            return self._lexicon[1]
        if self._meta("lexicon_generation") == str(generation):
            data = json.loads(self._meta("lexicon") or "{}")
            value = (int(data["passages"]), data["terms"])
        else:
            value = self._count_terms()
        self._lexicon = (generation, value)
        return value

    def documents(self) -> Iterator[DocumentRecord]:
        rows = self._fetch(
            "SELECT d.doc_id, d.title, d.source, d.content_hash, d.pages, d.added_at, "
            f"d.metadata, (SELECT COUNT(*) FROM {self._t('passages')} p "
            f"WHERE p.doc_id = d.doc_id) FROM {self._t('documents')} d "
            'ORDER BY d.title COLLATE "C", d.doc_id COLLATE "C"'
        )
        for row in rows:
            yield DocumentRecord(
                doc_id=row[0],
                title=row[1],
                source=row[2],
                content_hash=row[3],
                pages=row[4],
                passages=row[7],
                added_at=row[5],
                metadata=row[6],
            )

    def export_document(self, doc_id: str) -> tuple[list[NewPassage], np.ndarray]:
        rows = self._fetch(
            "SELECT page, position, char_start, char_end, text, kind, embedding::text, flags "
            f"FROM {self._t('passages')} WHERE doc_id = %s ORDER BY id",
            (doc_id,),
        )
        vectors = np.empty((len(rows), self.embedder.dim), dtype=np.float32)
        for i, row in enumerate(rows):
            vectors[i] = np.array(json.loads(row[6]), dtype=np.float32)
        fields = ("page", "position", "char_start", "char_end", "text", "kind")
        passages = [
            NewPassage(**dict(zip(fields, row[:6], strict=True)), flags=tuple(json.loads(row[7])))
            for row in rows
        ]
        return passages, vectors

    # ----------------------------------------------------------------- closing
    def close(self) -> None:
        with self._connections_lock:
            connections, self._connections, self._idle = self._connections, [], []
        for conn in connections:
            try:
                if not conn.closed and not conn.autocommit:
                    conn.rollback()
            finally:
                conn.close()  # closing the writer's session releases its advisory lock

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
