"""The library inside an index: collections, their readers, and a ``Scope`` as an SQL condition.

    collections        name, created_at
    doc_collections    (doc_id, collection): a document belongs to zero or more collections
    collection_readers (collection, principal): ``user:NAME``, ``group:NAME`` or ``room:ID``

A scope (``lastword.scope``) becomes one condition on the documents table (``scope_condition``),
in SQLite's or PostgreSQL's dialect; the searches put it in their own ``WHERE`` (PostgreSQL,
FTS5) or resolve it once per generation into the passage rows a search may return (the local
matrix, its graph and the in-memory postings), so a filter is never results fetched and dropped.

Who may read what: a reader who is not an administrator sees the documents of every collection
that names them (or one of their groups, or their room) among its readers, and, when their
``open_documents`` is set, the documents in no collection that has readers at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import numpy as np

from lastword.errors import InputError
from lastword.scope import Scope

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS doc_collections (
    doc_id TEXT NOT NULL,
    collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
    PRIMARY KEY (doc_id, collection)
);
CREATE INDEX IF NOT EXISTS doc_collections_name ON doc_collections(collection);
CREATE TABLE IF NOT EXISTS collection_readers (
    collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
    principal TEXT NOT NULL,
    PRIMARY KEY (collection, principal)
);
"""


def postgres_schema(schema: str) -> list[str]:
    """The same tables in a PostgreSQL schema (created if missing: older indexes get them)."""
    return [
        f"CREATE TABLE IF NOT EXISTS {schema}.collections "
        "(name TEXT PRIMARY KEY, created_at TEXT NOT NULL)",
        f"CREATE TABLE IF NOT EXISTS {schema}.doc_collections (doc_id TEXT NOT NULL, "
        f"collection TEXT NOT NULL REFERENCES {schema}.collections(name) ON DELETE CASCADE, "
        "PRIMARY KEY (doc_id, collection))",
        f"CREATE INDEX IF NOT EXISTS doc_collections_name ON {schema}.doc_collections (collection)",
        f"CREATE TABLE IF NOT EXISTS {schema}.collection_readers (collection TEXT NOT NULL "
        f"REFERENCES {schema}.collections(name) ON DELETE CASCADE, principal TEXT NOT NULL, "
        "PRIMARY KEY (collection, principal))",
    ]


@dataclass(frozen=True)
class ScopeRows:
    """A scope's passages over one id array: their rows, a mask, and a byte per passage id
    (``bits[id]``: 1 when admitted) for a graph walk's filter."""

    allowed: np.ndarray
    ids: np.ndarray
    rows: np.ndarray
    mask: np.ndarray
    bits: bytes

    @classmethod
    def of(cls, allowed: np.ndarray, ids: np.ndarray) -> ScopeRows:
        at = np.searchsorted(ids, allowed)
        inside = at < len(ids)
        rows = at[inside][ids[at[inside]] == allowed[inside]]
        mask = np.zeros(len(ids), dtype=bool)
        mask[rows] = True
        mask.flags.writeable = False
        top = int(ids[-1]) + 1 if len(ids) else 0
        bits = np.zeros(top, dtype=np.uint8)
        bits[ids[rows]] = 1
        return cls(allowed, ids, rows, mask, bits.tobytes())


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    readers: tuple[str, ...]  # empty: no restriction (every reader who may see open documents)


Dialect = Literal["sqlite", "postgres"]


class _Params:
    """Placeholders in a dialect: ``?`` and a list (SQLite), ``%(scN)s`` and a dict (psycopg)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.values: list[object] = []

    def mark(self, value: object) -> str:
        self.values.append(value)
        return "?" if self.dialect == "sqlite" else f"%(sc{len(self.values) - 1})s"

    def marks(self, values: Collection[object]) -> str:
        return ",".join(self.mark(v) for v in values)

    def bound(self) -> list[object] | dict[str, object]:
        if self.dialect == "sqlite":
            return list(self.values)
        return {f"sc{i}": v for i, v in enumerate(self.values)}


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def scope_condition(
    scope: Scope, dialect: Dialect, table: Callable[[str], str] | None = None
) -> tuple[str, list[object] | dict[str, object]]:
    """``d.doc_id IN (...)``-ready: a condition on the documents table aliased ``d`` that holds
    for exactly the documents ``scope`` admits ("TRUE" when it admits all). ``table(name)``
    qualifies a table name (a PostgreSQL schema)."""
    p = _Params(dialect)
    where: list[str] = []
    t = table or (lambda name: name)
    if scope.collections:
        where.append(
            f"d.doc_id IN (SELECT doc_id FROM {t('doc_collections')} "
            f"WHERE collection IN ({p.marks(sorted(scope.collections))}))"
        )
    if scope.years:
        lo, hi = scope.years
        if dialect == "sqlite":
            year = "CAST(json_extract(d.metadata, '$.year') AS INTEGER)"
            known = "json_type(d.metadata, '$.year') IN ('integer', 'text')"
        else:
            year = "(d.metadata->>'year')::int"
            known = "(d.metadata->>'year') ~ '^[0-9]{1,4}$'"
        bounds = [known]
        if lo is not None:
            bounds.append(f"{year} >= {p.mark(lo)}")
        if hi is not None:
            bounds.append(f"{year} <= {p.mark(hi)}")
        # SQLite's AND does not promise an order: the cast of a non-number is 0, not an error
        where.append("(" + " AND ".join(bounds) + ")" if dialect == "sqlite" else _guard(bounds))
    for key, values, exact in (("authors", scope.authors, False), ("tags", scope.tags, True)):
        if not values:
            continue
        if dialect == "sqlite":
            source, value = f"json_each(d.metadata, '$.{key}') j", "lower(j.value)"
            guard = f"json_type(d.metadata, '$.{key}') = 'array'"
        else:
            source = (
                f"jsonb_array_elements_text(CASE WHEN jsonb_typeof(d.metadata->'{key}') = "
                f"'array' THEN d.metadata->'{key}' ELSE '[]'::jsonb END) j(v)"
            )
            value, guard = "lower(j.v)", "TRUE"
        if exact:
            test = f"{value} IN ({p.marks(sorted(v.lower() for v in values))})"
        else:
            test = " OR ".join(f"{value} LIKE {p.mark(_like(v))} ESCAPE '\\'" for v in values)
        where.append(f"({guard} AND EXISTS (SELECT 1 FROM {source} WHERE {test}))")
    if scope.doc_ids:
        names = sorted(scope.doc_ids)
        where.append(
            f"(d.doc_id IN ({p.marks(names)}) OR d.doc_id IN (SELECT doc_id FROM "
            f"{t('sources')} WHERE path IN ({p.marks(names)})))"
        )
    reader = scope.reader
    if reader is not None and not reader.admin:
        restricted = (
            f"SELECT dc.doc_id FROM {t('doc_collections')} dc JOIN {t('collection_readers')} r "
            "ON r.collection = dc.collection"
        )
        mine = f"d.doc_id IN ({restricted} WHERE r.principal IN "
        mine += f"({p.marks(sorted(reader.principals()))}))"
        if reader.open_documents:
            where.append(f"({mine} OR d.doc_id NOT IN ({restricted}))")
        else:
            where.append(mine)
    if not where:
        return "TRUE" if dialect == "postgres" else "1", p.bound()
    return " AND ".join(where), p.bound()


def _guard(bounds: list[str]) -> str:
    """PostgreSQL: the cast only where the value is a number (CASE orders the evaluation)."""
    known, rest = bounds[0], bounds[1:]
    if not rest:
        return known
    return f"(CASE WHEN {known} THEN {' AND '.join(rest)} ELSE FALSE END)"


def check_collection_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 200 or any(ord(c) < 32 for c in name):
        raise InputError(f"not a collection name: {name!r} (1-200 printable characters)")
    return name


_ALL = np.empty(0, dtype=np.int64)  # cached: the scope admits every passage


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class LocalLibrary:
    """Mixed into ``LocalStore``: collections, readers, metadata updates, scopes as rows."""

    _conn: sqlite3.Connection
    _scoped: dict

    def _begin_if_needed(self) -> None: ...  # provided by LocalStore

    def _generation(self) -> int: ...  # provided by LocalStore

    # ----------------------------------------------------------------- reading
    def scope_documents(self, scope: Scope | None) -> list[str] | None:
        """The ids of the documents ``scope`` admits, sorted; None when it admits every one."""
        if scope is None or not scope.restricted:
            return None
        sql, params = scope_condition(scope, "sqlite")
        rows = self._conn.execute(
            f"SELECT d.doc_id FROM documents d WHERE {sql} ORDER BY d.doc_id", params
        )
        return [row[0] for row in rows]

    def _scope_passages(self, scope: Scope | None) -> np.ndarray | None:
        """The passage ids (ascending) ``scope`` admits, None for all: one query per scope and
        committed generation (inside a writer's open batch: every time)."""
        if scope is None or not scope.restricted:
            return None
        key = (self._generation(), scope)
        if not self._conn.in_transaction and (found := self._scoped.get(key)) is not None:
            return None if found is _ALL else found
        sql, params = scope_condition(scope, "sqlite")
        rows = self._conn.execute(
            "SELECT id FROM passages WHERE doc_id IN "
            f"(SELECT d.doc_id FROM documents d WHERE {sql}) ORDER BY id",
            params,
        )
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64)
        ids.flags.writeable = False
        (total,) = self._conn.execute("SELECT COUNT(*) FROM passages").fetchone()
        everything = len(ids) == total  # a reader who may see all: the unscoped search
        if not self._conn.in_transaction:
            if len(self._scoped) > 64:
                self._scoped.clear()
            self._scoped[key] = _ALL if everything else ids
        return None if everything else ids

    def _rows_mask(self, allowed: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Which of ``ids`` (ascending) are among ``allowed`` (a scope's, cached): kept with
        the scope's ids, so a repeated scope costs no pass over a million rows."""
        return self._scope_rows(allowed, ids).mask

    def _scope_rows(self, allowed: np.ndarray, ids: np.ndarray) -> ScopeRows:
        """A scope's passages as rows of ``ids`` (the matrix's or the postings'), kept with
        the scope's ids for as long as those are held."""
        key = ("rows", id(allowed), id(ids), len(ids))
        found = self._scoped.get(key)
        if found is None or found.allowed is not allowed or found.ids is not ids:
            found = self._scoped[key] = ScopeRows.of(allowed, ids)
        return found

    def collections(self, scope: Scope | None = None) -> list[CollectionInfo]:
        """Every collection (for a reader: those they may read), with its documents' count."""
        # a reader's counts are of the documents they may see
        sql, params = scope_condition(scope.unfiltered() if scope else Scope(), "sqlite")
        rows = self._conn.execute(
            "SELECT c.name, (SELECT COUNT(*) FROM doc_collections dc JOIN documents d "
            f"USING (doc_id) WHERE dc.collection = c.name AND {sql}) FROM collections c "
            "ORDER BY c.name",
            params,
        ).fetchall()
        readers: dict[str, list[str]] = {}
        for name, who in self._conn.execute(
            "SELECT collection, principal FROM collection_readers ORDER BY principal"
        ):
            readers.setdefault(name, []).append(who)
        out = [CollectionInfo(n, c, tuple(readers.get(n, ()))) for n, c in rows]
        return visible_collections(out, scope)

    def document_collections(self, doc_ids: Collection[str]) -> dict[str, list[str]]:
        """doc_id -> the collections it belongs to (sorted)."""
        out: dict[str, list[str]] = {}
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for doc, name in self._conn.execute(
                f"SELECT doc_id, collection FROM doc_collections WHERE doc_id IN ({marks}) "
                "ORDER BY collection",
                part,
            ):
                out.setdefault(doc, []).append(name)
        return out

    # ----------------------------------------------------------------- writing (in a batch)
    def add_to_collection(self, name: str, doc_ids: Sequence[str]) -> int:
        """Put documents in a collection (created if new); how many were not in it yet."""
        name = check_collection_name(name)
        self._begin_if_needed()
        self._conn.execute(
            "INSERT INTO collections(name, created_at) VALUES(?, ?) ON CONFLICT DO NOTHING",
            (name, _now()),
        )
        before = self._conn.total_changes
        self._conn.executemany(
            "INSERT INTO doc_collections(doc_id, collection) VALUES(?, ?) ON CONFLICT DO NOTHING",
            [(doc, name) for doc in doc_ids],
        )
        return self._conn.total_changes - before

    def remove_from_collection(self, name: str, doc_ids: Sequence[str] | None = None) -> int:
        """Take documents out of a collection; ``None``: delete the collection itself."""
        self._begin_if_needed()
        if doc_ids is None:
            cursor = self._conn.execute("DELETE FROM collections WHERE name = ?", (name,))
            return cursor.rowcount
        before = self._conn.total_changes
        self._conn.executemany(
            "DELETE FROM doc_collections WHERE doc_id = ? AND collection = ?",
            [(doc, name) for doc in doc_ids],
        )
        return self._conn.total_changes - before

    def set_readers(self, name: str, principals: Sequence[str], *, add: bool = True) -> None:
        """Give (``add``) or take away readers of an existing collection."""
        self._begin_if_needed()
        if not self._conn.execute("SELECT 1 FROM collections WHERE name = ?", (name,)).fetchone():
            raise InputError(f"no collection named {name!r}")
        sql = (
            "INSERT INTO collection_readers(collection, principal) VALUES(?, ?) "
            "ON CONFLICT DO NOTHING"
            if add
            else "DELETE FROM collection_readers WHERE collection = ? AND principal = ?"
        )
        self._conn.executemany(sql, [(name, who) for who in principals])

    def update_document(self, doc_id: str, title: str, metadata: dict) -> bool:
        """Replace a document's title and metadata (no passage, vector or source changes);
        False when there is no such document."""
        self._begin_if_needed()
        cursor = self._conn.execute(
            "UPDATE documents SET title = ?, metadata = ? WHERE doc_id = ?",
            (title, json.dumps(metadata, ensure_ascii=False, sort_keys=True), doc_id),
        )
        return cursor.rowcount > 0


def visible_collections(
    collections: list[CollectionInfo], scope: Scope | None
) -> list[CollectionInfo]:
    """The collections a reader may know of (an administrator, or no reader: all of them);
    a reader is not shown who else reads them."""
    reader = scope.reader if scope is not None else None
    if reader is None or reader.admin:
        return collections
    mine = reader.principals()
    return [
        CollectionInfo(c.name, c.documents, ())
        for c in collections
        if set(c.readers) & mine or (reader.open_documents and not c.readers)
    ]
