"""PostgresStore's document reads (text, hashes, sources), reference lists and kinds, its vector
index, and bulk-load encoding.

Split from ``postgres.py`` to keep each module readable; the semantics are the local store's
(``store/extras.py``): one document may sit at several paths, and replacing a document forgets
its sources and reference list (foreign keys with ON DELETE CASCADE).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from lastword.errors import ConfigError
from lastword.store.lexical import lexical_tokens
from lastword.store.protocol import DocumentRecord, NewPassage, ReferenceEntry


def create_tables(conn: Any, schema: str, dim: int) -> None:
    """The schema and its tables, in the caller's transaction (the vector index aside)."""
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    conn.execute(f"CREATE TABLE {schema}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        f"CREATE TABLE {schema}.documents (doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, "
        "source TEXT NOT NULL, content_hash TEXT NOT NULL, pages INTEGER, "
        "added_at TEXT NOT NULL, metadata JSONB NOT NULL)"
    )
    conn.execute(
        f"CREATE TABLE {schema}.passages (id BIGSERIAL PRIMARY KEY, doc_id TEXT NOT NULL "
        f"REFERENCES {schema}.documents(doc_id) ON DELETE CASCADE, position INTEGER NOT NULL, "
        "page INTEGER, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, "
        f"text TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'body', "
        f"embedding vector({int(dim)}) NOT NULL, lexical TEXT NOT NULL, "
        "tokens tsvector GENERATED ALWAYS AS (to_tsvector('english', lexical)) STORED, "
        "flags TEXT NOT NULL DEFAULT '[]')"
    )
    conn.execute(
        f"CREATE TABLE {schema}.sources (source TEXT PRIMARY KEY, doc_id TEXT NOT NULL "
        f"REFERENCES {schema}.documents(doc_id) ON DELETE CASCADE, path TEXT NOT NULL, "
        "seq BIGSERIAL)"
    )
    conn.execute(f"CREATE INDEX sources_doc ON {schema}.sources (doc_id)")
    conn.execute(
        f"CREATE TABLE {schema}.bibliography (doc_id TEXT NOT NULL REFERENCES "
        f"{schema}.documents(doc_id) ON DELETE CASCADE, number INTEGER NOT NULL, "
        "text TEXT NOT NULL, seq BIGSERIAL)"
    )
    conn.execute(f"CREATE INDEX bibliography_doc ON {schema}.bibliography (doc_id)")
    conn.execute(f"CREATE INDEX passages_doc ON {schema}.passages (doc_id)")
    conn.execute(f"CREATE INDEX passages_tokens ON {schema}.passages USING gin (tokens)")
    from lastword.store.postgres_library import create_library_tables

    create_library_tables(conn, schema)


class PostgresExtras:
    """Mixed into ``PostgresStore``."""

    _main: Any
    _dirty: bool

    def _t(self, name: str) -> str: ...  # provided by PostgresStore

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...

    def _require_writer(self) -> None: ...

    # ----------------------------------------------------------------- sources, references
    def add_source(self, doc_id: str, source: str, path: str) -> None:
        self._require_writer()
        self._dirty = True
        self._main.execute(
            f"INSERT INTO {self._t('sources')} (source, doc_id, path) VALUES (%s, %s, %s) "
            "ON CONFLICT (source) DO UPDATE SET doc_id = excluded.doc_id, path = excluded.path",
            (source, doc_id, path),
        )
        self._refresh_paths(doc_id)

    def remove_source(self, source: str) -> str | None:
        rows = self._fetch(f"SELECT doc_id FROM {self._t('sources')} WHERE source = %s", (source,))
        if not rows:
            return None
        self._require_writer()
        self._dirty = True
        doc_id = rows[0][0]
        self._main.execute(f"DELETE FROM {self._t('sources')} WHERE source = %s", (source,))
        if self.source_paths(doc_id):
            self._refresh_paths(doc_id)
            return None
        return str(doc_id)

    def _refresh_paths(self, doc_id: str) -> None:
        rows = self.source_paths(doc_id)
        found = self._fetch(
            f"SELECT metadata FROM {self._t('documents')} WHERE doc_id = %s", (doc_id,)
        )
        if not found or not rows:
            return
        metadata = dict(found[0][0])
        paths = list(dict.fromkeys(path for _, path in rows))
        metadata["path"], metadata["paths"] = paths[0], paths
        self._main.execute(
            f"UPDATE {self._t('documents')} SET metadata = %s, source = %s WHERE doc_id = %s",
            (json.dumps(metadata, ensure_ascii=False, sort_keys=True), rows[0][0], doc_id),
        )

    def document_text(self, doc_id: str) -> str:
        rows = self._fetch(
            f"SELECT text FROM {self._t('passages')} WHERE doc_id = %s ORDER BY position",
            (doc_id,),
        )
        return "\n\n".join(row[0] for row in rows)

    def document_hashes(self) -> dict[str, str]:
        return dict(self._fetch(f"SELECT doc_id, content_hash FROM {self._t('documents')}"))

    def document_sources(self) -> dict[str, str]:
        return dict(self._fetch(f"SELECT doc_id, source FROM {self._t('documents')}"))

    def sources(self) -> dict[str, str]:
        return dict(self._fetch(f"SELECT source, doc_id FROM {self._t('sources')}"))

    def source_paths(self, doc_id: str) -> list[tuple[str, str]]:
        rows = self._fetch(
            f"SELECT source, path FROM {self._t('sources')} WHERE doc_id = %s ORDER BY seq",
            (doc_id,),
        )
        return [(source, path) for source, path in rows]

    def references(self, doc_ids: Collection[str]) -> dict[str, list[ReferenceEntry]]:
        out: dict[str, list[ReferenceEntry]] = {}
        if not doc_ids:
            return out
        rows = self._fetch(
            f"SELECT doc_id, number, text FROM {self._t('bibliography')} "
            "WHERE doc_id = ANY(%s) ORDER BY doc_id, seq",
            (list(doc_ids),),
        )
        for doc_id, number, text in rows:
            out.setdefault(doc_id, []).append(ReferenceEntry(number=number, text=text))
        return out

    def kind_counts(self) -> dict[str, int]:
        rows = self._fetch(
            f"SELECT kind, COUNT(*) FROM {self._t('passages')} GROUP BY kind ORDER BY kind"
        )
        return {kind: count for kind, count in rows}


def ivfflat_lists(rows: int) -> int:
    """About 3·sqrt(rows) lists. At 1M (docs/scale.md, stop 24), on 700 held-out PubMedQA
    questions, 3,000 lists reached recall@8 0.962-0.968 at 7-10 probes against 0.956-0.961
    with 2,000 (and 4,000: 0.949-0.965), and a search cost ~17% less server CPU than with
    2,000 at the same probes: fewer rows a list outweighs more centres to score. pgvector's
    own advice (rows / 1000 up to 1M: 1,002) needed 20 probes (20k rows) for 0.950."""
    return max(1, round(3 * rows**0.5))


def vector_version(conn: Any) -> str | None:
    """The server's pgvector version (``extversion``), None when the extension is missing."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return None if row is None else row[0]


def wanted_precision(conn: Any, settings: Any) -> str:
    """ "half" or "full": what a vector index built now gets under ``[store] pg_precision``."""
    if settings.pg_precision == "full":
        return "full"
    version = vector_version(conn)
    if version is None or tuple(int(p) for p in re.findall(r"\d+", version)[:2]) < (0, 7):
        raise ConfigError(
            f'[store] pg_precision = "half" needs pgvector 0.7 or later (halfvec); this '
            f'server has {version}: set pg_precision = "full"'
        )
    return "half"


def built_precision(conn: Any, schema: str) -> str | None:
    """ "half" or "full" for the vector index in ``schema``, None when there is none."""
    row = conn.execute(
        "SELECT pg_get_indexdef(to_regclass(%s))", (f"{schema}.passages_embedding",)
    ).fetchone()
    if row is None or row[0] is None:
        return None
    return "half" if "halfvec" in row[0] else "full"


def _indexed(precision: str, dim: int) -> tuple[str, str]:
    """The indexed expression and its operator class."""
    if precision == "half":
        return f"(embedding::halfvec({int(dim)}))", "halfvec_cosine_ops"
    return "embedding", "vector_cosine_ops"


def create_vector_index(conn: Any, schema: str, settings: Any, dim: int) -> int | None:
    """HNSW (kept if one of the wanted precision exists: an empty table is fine) or ivfflat
    lists trained on the rows present, replacing any index there; for ivfflat, the row count
    it was built on."""
    precision = wanted_precision(conn, settings)
    expression, opclass = _indexed(precision, dim)
    if settings.pg_index == "hnsw":
        if built_precision(conn, schema) not in (None, precision):
            conn.execute(f"DROP INDEX {schema}.passages_embedding")
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS passages_embedding ON {schema}.passages "
            f"USING hnsw ({expression} {opclass}) WITH (m = {int(settings.pg_m)}, "
            f"ef_construction = {int(settings.pg_ef_construction)})"
        )
        return None
    rows = conn.execute(f"SELECT COUNT(*) FROM {schema}.passages").fetchone()[0]
    if not rows:
        return None
    lists = settings.pg_lists or ivfflat_lists(rows)
    conn.execute(f"DROP INDEX IF EXISTS {schema}.passages_embedding")
    conn.execute(
        f"CREATE INDEX passages_embedding ON {schema}.passages "
        f"USING ivfflat ({expression} {opclass}) WITH (lists = {int(lists)})"
    )
    return int(rows)


def ivfflat_stale(conn: Any, schema: str, built_on: int) -> bool:
    """True when the ivfflat lists are missing or the corpus doubled or halved since."""
    rows = conn.execute(f"SELECT COUNT(*) FROM {schema}.passages").fetchone()[0]
    index = conn.execute("SELECT to_regclass(%s)", (f"{schema}.passages_embedding",)).fetchone()
    return bool(rows) and (
        index[0] is None or not built_on or not built_on / 2 <= rows <= 2 * built_on
    )


def binary_copy(
    record: DocumentRecord, passages: Sequence[NewPassage], vectors: np.ndarray
) -> bytes:
    """The rows of ``COPY passages (...) FROM STDIN (FORMAT BINARY)`` for one document."""
    out = [b"PGCOPY\n\xff\r\n\x00", struct.pack("!ii", 0, 0)]
    doc = record.doc_id.encode()
    dim = vectors.shape[1]
    vector_head = struct.pack("!ihh", 4 + 4 * dim, dim, 0)
    big_endian = vectors.astype(">f4", copy=False)

    def text(value: str) -> bytes:
        data = value.encode()
        return struct.pack("!i", len(data)) + data

    def int4(value: int | None) -> bytes:
        return struct.pack("!i", -1) if value is None else struct.pack("!ii", 4, value)

    for i, p in enumerate(passages):
        out += [
            struct.pack("!h", 10),
            struct.pack("!i", len(doc)) + doc,
            int4(p.position),
            int4(p.page),
            int4(p.char_start),
            int4(p.char_end),
            text(p.text),
            text(p.kind),
            vector_head + big_endian[i].tobytes(),
            text(" ".join(lexical_tokens(f"{record.title}\n{p.text}"))),
            text(json.dumps(list(p.flags), ensure_ascii=False)),
        ]
    out.append(struct.pack("!h", -1))
    return b"".join(out)
