"""The PostgreSQL store's searches: candidates as ids and scores, passages when asked.

The same seams as the local store (``store/local_search.py``): ``search_ids`` and
``search_lexical_ids`` give ids and scores for hybrid retrieval's candidate stage,
``passage_texts`` what its re-ranking reads, ``passages_by_id`` whole passages for what it
returns. Mixed into ``PostgresStore``, which provides the connection (``_fetch``), the
schema-qualified table names (``_t``) and the embedder.
"""

from __future__ import annotations

import contextlib
import functools
import struct
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import CorpusIndexError
from lastword.result import Passage
from lastword.scope import Scope
from lastword.store.hits import HitsFromIds, stored_flags, stored_passage
from lastword.store.lexical import lexical_tokens
from lastword.store.protocol import Hit

_PASSAGE_COLUMNS = (
    "p.id, p.doc_id, d.title, p.page, p.position, p.char_start, p.char_end, p.text, "
    "d.metadata, p.kind, p.flags"
)
#: the passage columns a search reads with its nearest rows, and the whole hit built from them
_NEAREST_COLUMNS = "id, doc_id, page, position, char_start, char_end, text, kind, flags"
_HIT_COLUMNS = (
    "h.id, h.doc_id, d.title, h.page, h.position, h.char_start, h.char_end, h.text, "
    "d.metadata, h.kind, h.flags, h.distance"
)
_NO_IDS = np.empty(0, dtype=np.int64)
_NO_SCORES = np.empty(0, dtype=np.float64)
_VECTOR_HEADER = struct.Struct(">HH")  # pgvector's binary form: dimensions, unused, then floats


class QueryVector:
    """A query vector sent as a binary parameter (``register_vector_dumper``): 1,540 bytes at
    384 dimensions that the server reads as they are, where the text form is ~4 kB to format
    in Python and parse on the server. Every statement casts it (``%(query)b::vector``)."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


@functools.cache
def _vector_dumper() -> type:
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = 0  # unknown: the server takes the type from the statement's ::vector cast

        def dump(self, obj: QueryVector) -> bytes:
            values = np.asarray(obj.values, dtype=">f4")
            return _VECTOR_HEADER.pack(len(values), 0) + values.tobytes()

    return VectorDumper


def register_vector_dumper(conn: Any) -> None:
    """Let ``conn`` send ``QueryVector`` parameters in pgvector's binary form."""
    conn.adapters.register_dumper(QueryVector, _vector_dumper())


def _filters(
    exclude_doc_ids: Collection[str],
    kinds: Collection[str] | None,
    *where: str,
    scope: tuple[str, dict[str, Any]] = ("", {}),
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause (``where``'s conditions first) and its parameters for a search's
    exclusions, passage kinds and scope (``scope_where``); empty when it has no condition."""
    where = list(where)
    params: dict[str, Any] = dict(scope[1])
    if scope[0]:
        where.append(scope[0])
    if exclude_doc_ids:
        where.append("NOT (doc_id = ANY(%(exclude)s))")
        params["exclude"] = list(exclude_doc_ids)
    if kinds is not None:
        where.append("kind = ANY(%(kinds)s)")
        params["kinds"] = list(kinds)
    return (f"WHERE {' AND '.join(where)} " if where else ""), params


class PostgresSearch(HitsFromIds):
    """Mixed into ``PostgresStore`` (after its own methods and ``PostgresExtras``)."""

    settings: Any  # StoreSettings, set by PostgresStore

    def _t(self, name: str) -> str: ...  # provided by PostgresStore

    def _fetch(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple]: ...

    def _conn(self) -> contextlib.AbstractContextManager[Any]: ...  # provided by PostgresStore

    _hnsw_iterative: bool  # set by PostgresStore: pgvector 0.8+ (iterative scans)
    _scan_modes: dict[Any, Any]  # set by PostgresStore: each reader connection's scan mode, ef

    @property
    def embedder(self) -> EmbedderInfo: ...  # provided by PostgresStore

    def vector_precision(self) -> str: ...  # provided by PostgresStore

    def scope_where(self, scope: Scope | None, column: str = "doc_id") -> tuple[str, dict]: ...

    def _scope_docs(self, scope: Scope) -> tuple[list[str], float]: ...

    def search(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k passages by cosine, best first: the nearest rows, their passages and their
        documents in one statement (one round trip, one snapshot)."""
        rows = self._nearest(query, k, exclude_doc_ids, kinds, whole=True, scope=scope)
        return [
            Hit(passage=stored_passage(*row[:10], stored_flags(row[10])), score=1.0 - row[11])
            for row in rows
        ]

    def search_ids(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        rows = self._nearest(query, k, exclude_doc_ids, kinds, whole=False, scope=scope)
        return (
            np.array([row[0] for row in rows], dtype=np.int64),
            np.array([1.0 - float(row[1]) for row in rows], dtype=np.float64),
        )

    def _nearest(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str],
        kinds: Collection[str] | None,
        *,
        whole: bool,
        scope: Scope | None = None,
    ) -> list[tuple]:
        """The k nearest rows, sorted by (distance, id): (id, distance), or with ``whole``
        every column of their passages and documents, the distance last.

        ``scope``: a condition in the statement's WHERE. A scope of at most ``[store]
        scope_exact_share`` of the passages is ordered exactly over its rows (found through
        the doc_id index); a larger one goes through the vector index's iterative scan, which
        walks on until k rows of the scope are found."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = self.embedder.dim
        if query.shape[0] != dim:
            raise CorpusIndexError(
                f"query vector has {query.shape[0]} dimensions; the index has {dim}"
            )
        if k <= 0:
            return []
        scoped = self.scope_where(scope)
        share = self._scope_docs(scope)[1] if scoped[0] and scope is not None else 1.0
        if share >= 1.0:
            scoped = ("", {})  # the scope admits every passage: the unscoped search
        filters, params = _filters(exclude_doc_ids, kinds, scope=scoped)
        columns = _NEAREST_COLUMNS if whole else "id"
        passages, vector, k = self._t("passages"), "%(query)b::vector", int(k)
        if scoped[0] and share <= float(self.settings.scope_exact_share):
            # "+ 0": an expression the vector index cannot order, so the planner takes the
            # scope's rows by their doc_id and orders them exactly
            sql = (
                f"SELECT {columns}, (embedding <=> {vector}) + 0 AS distance FROM {passages} "
                f"{filters}ORDER BY distance, id LIMIT {k}"
            )
        elif self.vector_precision() == "half":
            # The index orders half-precision copies; its nearest candidates are re-scored
            # exactly, so the scores (and the order among them) are float32 cosines.
            half = f"halfvec({dim})"
            candidates = max(k, int(self.settings.pg_candidates))
            sql = (
                f"SELECT {columns}, embedding <=> {vector} AS distance FROM ("
                f"SELECT {columns}, embedding FROM {passages} {filters}"
                f"ORDER BY embedding::{half} <=> ({vector})::{half} LIMIT {candidates}) "
                f"candidates ORDER BY distance, id LIMIT {k}"
            )
        else:
            sql = (
                f"SELECT {columns}, embedding <=> {vector} AS distance FROM {passages} "
                f"{filters}ORDER BY embedding <=> {vector} LIMIT {k}"
            )
        if whole:
            sql = (
                f"SELECT {_HIT_COLUMNS} FROM ({sql}) h JOIN {self._t('documents')} d USING (doc_id)"
            )
        ef = None
        if scoped[0] and share < 1.0:  # a scope's rows are sparser in the graph: look further
            ef = min(1000, int(int(self.settings.pg_ef_search) / max(share, 1e-3)))
        rows = self._fetch_nearest(sql, {"query": QueryVector(query), **params}, bool(params), ef)
        # Iterative scans return nearly sorted rows: sort exactly by the scores they carry.
        rows.sort(key=lambda row: (row[-1], row[0]))
        return rows

    def _fetch_nearest(
        self, sql: str, params: dict[str, Any], filtered: bool, ef: int | None = None
    ) -> list[tuple]:
        """Run a nearest-rows statement with iterative index scans (pgvector 0.8+) on only when
        it filters: a filter can leave fewer than k rows in the lists or graph nodes first
        scanned, so the scan goes on; without one the first scan holds them, and setting
        up an iterative scan costs 0.3-0.8 ms of server CPU a search (docs/scale.md). A
        reader's connection keeps its mode between searches, so the mode is only set when it
        changes (a writer's stays on: a rolled-back transaction would undo the change)."""
        mode = "relaxed_order" if filtered else "off"
        with self._conn() as conn:
            if self._hnsw_iterative and conn.autocommit and self._scan_modes.get(id(conn)) != mode:
                conn.execute(f"SET hnsw.iterative_scan = {mode}")
                conn.execute(f"SET ivfflat.iterative_scan = {mode}")
                self._scan_modes[id(conn)] = mode
            wanted_ef = int(ef or self.settings.pg_ef_search)
            if conn.autocommit and self._scan_modes.get(("ef", id(conn))) != wanted_ef:
                conn.execute(f"SET hnsw.ef_search = {wanted_ef}")
                self._scan_modes[("ef", id(conn))] = wanted_ef
            return conn.execute(sql, params).fetchall()

    def search_lexical_ids(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(ids, ``ts_rank_cd`` scores, higher is better) for the question's terms, best first;
        ``scope`` in the statement's WHERE."""
        # lexical_tokens are word characters only: nothing of tsquery syntax gets through.
        tokens = list(dict.fromkeys(lexical_tokens(text)))
        if not tokens or k <= 0:
            return _NO_IDS, _NO_SCORES
        where, params = _filters(
            exclude_doc_ids, kinds, "tokens @@ q", scope=self.scope_where(scope)
        )
        rows = self._fetch(
            f"SELECT id, ts_rank_cd(tokens, q) AS rank FROM {self._t('passages')}, "
            f"to_tsquery('english', %(terms)s) q {where}ORDER BY rank DESC, id LIMIT %(k)s",
            {"terms": " | ".join(tokens), "k": k, **params},
        )
        return (
            np.array([row[0] for row in rows], dtype=np.int64),
            np.array([float(row[1]) for row in rows], dtype=np.float64),
        )

    def passage_texts(self, passage_ids: Sequence[int]) -> dict[int, str]:
        if not len(passage_ids):
            return {}
        rows = self._fetch(
            f"SELECT p.id, d.title, p.text FROM {self._t('passages')} p "
            f"JOIN {self._t('documents')} d USING (doc_id) WHERE p.id = ANY(%s)",
            ([int(p) for p in passage_ids],),
        )
        return {int(row[0]): f"{row[1]}\n{row[2]}" for row in rows}

    def passage_docs(self, passage_ids: Sequence[int]) -> dict[int, str]:
        if not len(passage_ids):
            return {}
        rows = self._fetch(
            f"SELECT id, doc_id FROM {self._t('passages')} WHERE id = ANY(%s)",
            ([int(p) for p in passage_ids],),
        )
        return {int(row[0]): row[1] for row in rows}

    def cosines(self, query: np.ndarray, passage_ids: Sequence[int]) -> dict[int, float]:
        """The cosine of each of these passages to a unit-norm query vector."""
        if not len(passage_ids):
            return {}
        rows = self._fetch(
            f"SELECT id, 1 - (embedding <=> %(query)b::vector) FROM {self._t('passages')} "
            "WHERE id = ANY(%(ids)s)",
            {
                "query": QueryVector(np.asarray(query, dtype=np.float32).reshape(-1)),
                "ids": [int(p) for p in passage_ids],
            },
        )
        return {int(pid): float(score) for pid, score in rows}

    def passages_by_id(self, passage_ids: Sequence[int]) -> dict[int, Passage]:
        if not passage_ids:
            return {}
        rows = self._fetch(
            f"SELECT {_PASSAGE_COLUMNS} FROM {self._t('passages')} p "
            f"JOIN {self._t('documents')} d USING (doc_id) WHERE p.id = ANY(%s)",
            (list(passage_ids),),
        )
        return {row[0]: stored_passage(*row[:10], stored_flags(row[10])) for row in rows}

    def reading(self) -> contextlib.AbstractContextManager[None]:
        """One question's reads (``Store.reading``): every search asks the server anyway."""
        return contextlib.nullcontext()
