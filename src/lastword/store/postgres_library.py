"""PostgresStore's library: collections, readers, metadata updates (``store/library.py``'s
tables and semantics in a PostgreSQL schema). A scope is not resolved here: each search puts
``scope_where``'s condition in its own statement."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Any

from lastword.errors import InputError
from lastword.scope import Scope
from lastword.store.library import (
    CollectionInfo,
    check_collection_name,
    postgres_schema,
    scope_condition,
    visible_collections,
)


def create_library_tables(conn: Any, schema: str) -> None:
    for statement in postgres_schema(schema):
        conn.execute(statement)


class PostgresLibrary:
    """Mixed into ``PostgresStore``."""

    _main: Any
    _dirty: bool

    def _t(self, name: str) -> str: ...  # provided by PostgresStore

    def _fetch(self, sql: str, params: Any = ()) -> list[tuple]: ...

    def _require_writer(self) -> None: ...

    def scope_where(self, scope: Scope | None, column: str = "doc_id") -> tuple[str, dict]:
        """``column = ANY(the documents scope admits)`` and its parameters; ("", {}) for all.
        The documents are found by ``scope_condition`` once per scope and committed
        generation (one meta read per search checks the generation)."""
        if scope is None or not scope.restricted:
            return "", {}
        docs, _ = self._scope_docs(scope)
        return f"{column} = ANY(%(scope_docs)s)", {"scope_docs": docs}

    def _scope_docs(self, scope: Scope) -> tuple[list[str], float]:
        """(the documents a scope admits, the share of the passages they hold), cached."""
        generation = self._fetch(f"SELECT value FROM {self._t('meta')} WHERE key = 'generation'")
        key = (generation[0][0] if generation else "", scope)
        cache = self.__dict__.setdefault("_scope_cache", {})
        if self._dirty or (found := cache.get(key)) is None:
            condition, params = scope_condition(scope, "postgres", self._t)
            rows = self._fetch(
                f"SELECT d.doc_id, (SELECT COUNT(*) FROM {self._t('passages')} p "
                f"WHERE p.doc_id = d.doc_id) FROM {self._t('documents')} d WHERE {condition}",
                params,
            )
            ((total,),) = self._fetch(f"SELECT COUNT(*) FROM {self._t('passages')}")
            docs = sorted(row[0] for row in rows)
            found = (docs, sum(int(row[1]) for row in rows) / max(int(total), 1))
            if not self._dirty:
                if len(cache) > 64:
                    cache.clear()
                cache[key] = found
        return found

    def scope_documents(self, scope: Scope | None) -> list[str] | None:
        if scope is None or not scope.restricted:
            return None
        condition, params = scope_condition(scope, "postgres", self._t)
        rows = self._fetch(
            f"SELECT d.doc_id FROM {self._t('documents')} d WHERE {condition} ORDER BY d.doc_id",
            params,
        )
        return [row[0] for row in rows]

    def collections(self, scope: Scope | None = None) -> list[CollectionInfo]:
        condition, params = scope_condition(
            scope.unfiltered() if scope else Scope(), "postgres", self._t
        )
        rows = self._fetch(
            f"SELECT c.name, (SELECT COUNT(*) FROM {self._t('doc_collections')} dc JOIN "
            f"{self._t('documents')} d USING (doc_id) WHERE dc.collection = c.name AND "
            f"{condition}) FROM {self._t('collections')} c ORDER BY c.name",
            params,
        )
        readers: dict[str, list[str]] = {}
        for name, who in self._fetch(
            f"SELECT collection, principal FROM {self._t('collection_readers')} ORDER BY principal"
        ):
            readers.setdefault(name, []).append(who)
        found = [CollectionInfo(n, int(c), tuple(readers.get(n, ()))) for n, c in rows]
        return visible_collections(found, scope)

    def document_collections(self, doc_ids: Collection[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for doc, name in self._fetch(
            f"SELECT doc_id, collection FROM {self._t('doc_collections')} "
            "WHERE doc_id = ANY(%s) ORDER BY collection",
            (list(doc_ids),),
        ):
            out.setdefault(doc, []).append(name)
        return out

    def add_to_collection(self, name: str, doc_ids: Sequence[str]) -> int:
        name = check_collection_name(name)
        self._require_writer()
        self._dirty = True
        self._main.execute(
            f"INSERT INTO {self._t('collections')} (name, created_at) VALUES (%s, %s) "
            "ON CONFLICT DO NOTHING",
            (name, datetime.now(UTC).isoformat(timespec="seconds")),
        )
        added = 0
        for doc in doc_ids:
            cursor = self._main.execute(
                f"INSERT INTO {self._t('doc_collections')} (doc_id, collection) "
                "VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (doc, name),
            )
            added += cursor.rowcount
        return added

    def remove_from_collection(self, name: str, doc_ids: Sequence[str] | None = None) -> int:
        self._require_writer()
        self._dirty = True
        if doc_ids is None:
            cursor = self._main.execute(
                f"DELETE FROM {self._t('collections')} WHERE name = %s", (name,)
            )
            return cursor.rowcount
        cursor = self._main.execute(
            f"DELETE FROM {self._t('doc_collections')} WHERE collection = %s AND doc_id = ANY(%s)",
            (name, list(doc_ids)),
        )
        return cursor.rowcount

    def set_readers(self, name: str, principals: Sequence[str], *, add: bool = True) -> None:
        self._require_writer()
        self._dirty = True
        found = self._main.execute(
            f"SELECT 1 FROM {self._t('collections')} WHERE name = %s", (name,)
        ).fetchone()
        if not found:
            raise InputError(f"no collection named {name!r}")
        for who in principals:
            if add:
                sql = (
                    f"INSERT INTO {self._t('collection_readers')} (collection, principal) "
                    "VALUES (%s, %s) ON CONFLICT DO NOTHING"
                )
            else:
                sql = (
                    f"DELETE FROM {self._t('collection_readers')} WHERE collection = %s "
                    "AND principal = %s"
                )
            self._main.execute(sql, (name, who))

    def update_document(self, doc_id: str, title: str, metadata: dict) -> bool:
        self._require_writer()
        self._dirty = True
        cursor = self._main.execute(
            f"UPDATE {self._t('documents')} SET title = %s, metadata = %s WHERE doc_id = %s",
            (title, json.dumps(metadata, ensure_ascii=False, sort_keys=True), doc_id),
        )
        return cursor.rowcount > 0
