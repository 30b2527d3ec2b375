"""The local store's searches: candidates as ids and scores, whole passages only when asked.

Hybrid retrieval (``retrieve.py``) ranks a few hundred candidates and shows eight: it asks for
ids and scores (``search_ids``, ``search_lexical_ids``), cosines by matrix row (``cosines``),
the title and text of the re-ranked head (``passage_texts``: from the rows held in memory
per generation up to ``rows_in_memory_max_passages``, else one ``IN (...)`` query) and whole
passages only for what it returns. ``search`` and ``search_lexical`` are the same searches with
the passages built. Mixed into ``LocalStore``, which provides the connection and the matrix.

Lexical search over a committed index runs on the in-memory postings of ``store/bm25.py``
(FTS5's own BM25, computed over arrays); inside a writer's open batch, or for a question FTS5
would cut differently, it runs the FTS5 query itself (``store/lexical.py``).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
import threading
from collections.abc import Collection, Iterator, Sequence

import numpy as np
from threadpoolctl import ThreadpoolController

from lastword.errors import CorpusIndexError
from lastword.result import Passage
from lastword.scope import Scope
from lastword.settings import StoreSettings
from lastword.store import int8, lexical
from lastword.store.hits import (
    HitsFromIds,
    json_copy,
    stored_flags,
    stored_passage,
)
from lastword.store.library import ScopeRows

# One-query math runs on one BLAS thread: on small VMs a multi-threaded pool can stall a
# matrix-vector product by several milliseconds, 30x the cost of the product itself. Limiting
# per call costs more than the product (OpenBLAS resizes its pool twice), so the first search
# limits numpy's BLAS for the process. Torch (the embedder) uses OpenMP, not this pool.
_single_thread_blas: object | None = None


def _use_single_thread_blas() -> None:
    global _single_thread_blas
    if _single_thread_blas is None:
        _single_thread_blas = ThreadpoolController().limit(limits=1, user_api="blas")


#: below this many passages a large scope is searched exactly over the whole matrix with its
#: mask (the int8 pass), not by a filtered graph walk: at 12k passages 0.46 ms against 4-13 ms
#: for a walk that must leave the query's neighbourhood when the scope excludes it
#: (bench/filters.py, docs/library.md)
SCOPE_WALK_MIN = 100_000

_vecdot = getattr(np, "vecdot", None)  # numpy >= 2: one call for a row-by-row dot product
_NO_IDS = np.empty(0, dtype=np.int64)
_NO_SCORES = np.empty(0, dtype=np.float64)


class LocalSearch(HitsFromIds):
    """Mixed into ``LocalStore``: dense and lexical search, as ids or as passages."""

    _conn: sqlite3.Connection
    settings: StoreSettings
    _int8: tuple[np.ndarray, int8.Int8Pass] | None
    int8_counts: dict[str, int]
    _titles: tuple[int, dict[str, tuple[str, dict]]] | None  # generation, doc -> title, metadata
    _docs: tuple[int, tuple[np.ndarray, np.ndarray, list[str]]] | None  # _doc_table's
    _rows: tuple[int, dict[int, tuple] | None] | None  # generation, _held_rows's
    _reading: threading.local  # the generation pinned by ``reading``, per thread

    def _meta(self, key: str) -> str | None: ...

    # provided by LocalStore / DerivedFiles (which come first in its bases)
    def _load_matrix(self) -> tuple[np.ndarray, np.ndarray]: ...

    def _generation(self) -> int: ...

    def _search_graph(self, *args: object) -> tuple[np.ndarray, np.ndarray] | None: ...

    def _kind_mask(self, kinds: Collection[str], rows: np.ndarray | None) -> np.ndarray: ...

    def _passage_ids_of(self, doc_ids: Collection[str]) -> np.ndarray: ...

    def _scope_passages(self, scope: Scope | None) -> np.ndarray | None: ...

    def _lexical_search(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str],
        kinds: Collection[str] | None,
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray] | None: ...

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One question's reads (``Store.reading``): the generation read once, in this thread."""
        if getattr(self._reading, "generation", None) is not None:
            yield  # nested: the outer one holds it
            return
        self._reading.generation = int(self._meta("generation") or 0)
        self._reading.rows = {}  # passage rows ``passage_texts`` read, for ``passages_by_id``
        try:
            yield
        finally:
            self._reading.generation = self._reading.rows = None

    # ----------------------------------------------------------------- dense
    def search_ids(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, cosines) of the top k, best first: ``search`` without the passages.

        ``scope``: only the passages of the documents it admits, decided before any row is
        scored (``store/library.py``)."""
        allowed = self._scope_passages(scope)
        loaded, ids = self._load_matrix()
        matrix = np.asarray(loaded)  # a plain view of the memory map: no subclass overhead
        if len(ids) == 0 or k <= 0:
            return _NO_IDS, _NO_SCORES
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != matrix.shape[1]:
            raise CorpusIndexError(
                f"query vector has {query.shape[0]} dimensions; the index has {matrix.shape[1]}"
            )
        _use_single_thread_blas()
        excluded = self._passage_ids_of(exclude_doc_ids) if exclude_doc_ids else None
        if allowed is not None:
            if not len(allowed):
                return _NO_IDS, _NO_SCORES
            found = self._search_scoped(matrix, ids, query, k, excluded, kinds, allowed)
            if found is not None:
                return found
        else:
            found = self._search_graph(matrix, ids, query, k, excluded, kinds)
            if found is not None:
                rows, scores = found
                return ids[rows].astype(np.int64), np.asarray(scores, dtype=np.float64)
        blocked = self._blocked(ids, excluded, kinds, allowed)
        if len(ids) >= self.settings.int8_min_passages:
            found = self._search_int8(loaded, query, k, blocked)
            if found is not None:
                rows, scores = found
                if blocked is not None:  # never a blocked row, even when fewer than k remain
                    rows, scores = rows[~blocked[rows]], scores[~blocked[rows]]
                return ids[rows].astype(np.int64), scores.astype(np.float64)
        scores = matrix @ query
        if blocked is not None:
            scores[blocked] = -np.inf
        top = int8.best_first(scores, k)
        if blocked is not None:
            top = top[~blocked[top]]
        return ids[top].astype(np.int64), scores[top].astype(np.float64)

    def _search_scoped(
        self,
        matrix: np.ndarray,
        ids: np.ndarray,
        query: np.ndarray,
        k: int,
        excluded: np.ndarray | None,
        kinds: Collection[str] | None,
        allowed: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """A scoped search: exactly over the scope's rows alone when they are few (at most
        ``[store] scope_exact_share`` of the matrix) or there is no graph, else through the
        graph, its walk admitting only the scope's rows (``_search_graph_within``)."""
        scoped = self._scope_rows(allowed, ids)  # kept per scope and generation
        rows = scoped.rows  # a row per admitted passage
        if len(rows) > self.settings.scope_exact_share * len(ids):
            if len(ids) >= SCOPE_WALK_MIN:
                found = self._search_graph_within(matrix, ids, query, k, excluded, kinds, scoped)
                if found is not None:
                    graph_rows, scores = found
                    return ids[graph_rows].astype(np.int64), np.asarray(scores, dtype=np.float64)
            # no walk: the whole matrix's exact search (int8 pass included) with the other
            # rows blocked: a gather of a large share of the rows costs more than that
            return None
        if excluded is not None and len(excluded):
            rows = rows[~np.isin(ids[rows], excluded)]
        if kinds is not None:
            rows = rows[self._kind_mask(kinds, rows)]
        if not len(rows):
            return _NO_IDS, _NO_SCORES
        scores = np.asarray(matrix[rows]) @ query
        top = int8.best_first(scores, k)
        return ids[rows[top]].astype(np.int64), scores[top].astype(np.float64)

    def _search_graph_within(self, *args: object) -> tuple[np.ndarray, np.ndarray] | None: ...

    def _rows_mask(self, allowed: np.ndarray, ids: np.ndarray) -> np.ndarray: ...

    def _scope_rows(self, allowed: np.ndarray, ids: np.ndarray) -> ScopeRows: ...

    def _blocked(
        self,
        ids: np.ndarray,
        excluded: np.ndarray | None,
        kinds: Collection[str] | None,
        allowed: np.ndarray | None = None,
    ) -> np.ndarray | None:
        """A mask of the matrix rows a search leaves out (excluded documents' passages, other
        kinds, rows outside the scope), None when it leaves none out: both exact paths read
        the same one."""
        blocked = None
        if allowed is not None:
            blocked = ~self._rows_mask(allowed, ids)  # kept per scope and generation
        if excluded is not None and len(excluded):
            out = np.isin(ids, excluded, assume_unique=True)
            blocked = out if blocked is None else blocked | out
        if kinds is not None:
            other = ~self._kind_mask(kinds, None)
            blocked = other if blocked is None else blocked | other
        return blocked

    def _search_int8(
        self, matrix: np.ndarray, query: np.ndarray, k: int, blocked: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, scores) of the exact top k through the int8 pass (``store/int8.py``); None
        when its pool could not prove the answer. ``matrix``: the loaded one, cached per
        generation, so the pass is built once for it."""
        built = self._int8
        if built is None or built[0] is not matrix:
            built = self._int8 = (matrix, int8.Int8Pass(matrix))
        found = int8.search(built[1], np.asarray(matrix), query, k, blocked)
        self.int8_counts["whole" if found is None else "proved"] += 1
        return found

    def cosines(self, query: np.ndarray, passage_ids: Sequence[int]) -> dict[int, float]:
        """The cosine of each of these passages to a unit-norm query vector, by matrix row."""
        matrix, ids = self._load_matrix()
        matrix = np.asarray(matrix)  # a plain view: indexing a memmap costs 4x more per row
        wanted = np.asarray(passage_ids, dtype=np.int64)
        rows = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
        known = (ids[rows] == wanted) if len(ids) else np.zeros(len(wanted), dtype=bool)
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        # One dot product per row, as before: a matrix product over the rows would round some
        # cosines differently in the last bit, and the hybrid order must not move. numpy 2's
        # vecdot runs the same BLAS dot per row, in one call (2.4x faster at 60 rows).
        if _vecdot is not None:
            found = wanted[known].tolist()
            values = _vecdot(matrix[rows[known]], query).tolist()
            return dict(zip(found, values, strict=True))
        return {
            pid: float(matrix[row].dot(query))
            for pid, row, ok in zip(wanted.tolist(), rows.tolist(), known.tolist(), strict=True)
            if ok
        }

    # ----------------------------------------------------------------- lexical
    def search_lexical_ids(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, BM25 scores) of the top k by the lexical index, best first; ``scope``
        as in ``search_ids`` (in the FTS5 query's own WHERE when that one runs)."""
        if k <= 0:
            return _NO_IDS, _NO_SCORES
        allowed = self._scope_passages(scope)
        if allowed is not None and not len(allowed):
            return _NO_IDS, _NO_SCORES
        found = self._lexical_search(text, k, exclude_doc_ids, kinds, allowed)
        if found is not None:
            return found
        schema = lexical.ready(self._conn)
        rows = lexical.search(self._conn, text, k, exclude_doc_ids, kinds, schema, scope)
        return (
            np.array([pid for pid, _ in rows], dtype=np.int64),
            np.array([score for _, score in rows], dtype=np.float64),
        )

    def _doc_table(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """(passage ids ascending, each one's document as a code, the documents by code) of
        the committed generation: one read per generation, then no query per lookup."""
        generation = self._generation()
        if self._docs is None or self._docs[0] != generation:
            rows = self._conn.execute("SELECT id, doc_id FROM passages ORDER BY id").fetchall()
            table: dict[str, int] = {}
            codes = np.fromiter(
                (table.setdefault(doc, len(table)) for _, doc in rows),
                dtype=np.int32,
                count=len(rows),
            )
            ids = np.fromiter((pid for pid, _ in rows), dtype=np.int64, count=len(rows))
            self._docs = (generation, (ids, codes, list(table)))
        return self._docs[1]

    # ----------------------------------------------------------------- what candidates need
    def _held_titles(self, generation: int) -> dict[str, tuple[str, dict]]:
        """Each document's title and metadata (decoded), read once per generation."""
        if self._titles is None or self._titles[0] != generation:
            rows = self._conn.execute("SELECT doc_id, title, metadata FROM documents")
            self._titles = (
                generation,
                {doc: (title, json.loads(meta)) for doc, title, meta in rows},
            )
        return self._titles[1]

    def _tuples(self, sql: str, params: Sequence[object]) -> list[tuple]:
        """The rows of one query as plain tuples (the connection's ``sqlite3.Row`` factory
        costs a conversion per row)."""
        cursor = self._conn.cursor()
        cursor.row_factory = None
        return cursor.execute(sql, params).fetchall()

    def _held_rows(self, generation: int) -> dict[int, tuple] | None:
        """Every passage row of the committed generation (id, doc_id, text, ``_ROW``), read
        once per generation, when there are at most ``rows_in_memory_max_passages``; else
        None (and outside a committed state: a writer's open batch reads the tables)."""
        limit = self.settings.rows_in_memory_max_passages
        if limit <= 0 or self._conn.in_transaction:
            return None
        if self._rows is None or self._rows[0] != generation:
            held = None
            (count,) = self._conn.execute("SELECT COUNT(*) FROM passages").fetchone()
            if count <= limit:
                rows = self._conn.execute(f"SELECT id, doc_id, text, {_ROW} FROM passages")
                held = {row[0]: tuple(row) for row in rows}
            self._rows = (generation, held)
        return self._rows[1]

    def held_rows_bytes(self) -> int:
        """The memory the held passage rows take (their strings and tuples), 0 when none."""
        held = self._rows[1] if self._rows is not None else None
        if not held:
            return 0
        size = sys.getsizeof(held)
        for row in held.values():
            size += sys.getsizeof(row) + sum(sys.getsizeof(v) for v in row[1:])
        return size

    def passage_texts(self, passage_ids: Sequence[int]) -> dict[int, str]:
        """Each passage's document title and text, as ``title + "\\n" + text``."""
        if not len(passage_ids):
            return {}
        wanted = [int(p) for p in passage_ids]
        generation = self._generation()
        titles = self._held_titles(generation)
        held = self._held_rows(generation)
        if held is not None:
            rows = [held[pid] for pid in sorted(set(wanted)) if pid in held]  # as SQL's order
            if all(row[1] in titles for row in rows):
                return {row[0]: f"{titles[row[1]][0]}\n{row[2]}" for row in rows}
        marks = ",".join("?" * len(passage_ids))
        # Without the join (a third faster): the titles of this generation are held. Inside
        # ``reading`` the whole rows are kept, so the passages returned need no second query.
        rows = self._tuples(
            f"SELECT id, doc_id, text, {_ROW} FROM passages WHERE id IN ({marks})", wanted
        )
        if not self._conn.in_transaction and all(row[1] in titles for row in rows):
            kept = getattr(self._reading, "rows", None)
            if kept is not None:
                kept.update((row[0], row) for row in rows)
            return {row[0]: f"{titles[row[1]][0]}\n{row[2]}" for row in rows}
        rows = self._conn.execute(  # inside a writer's open batch: the titles as they are now
            "SELECT p.id, d.title, p.text FROM passages p JOIN documents d USING (doc_id) "
            f"WHERE p.id IN ({marks})",
            wanted,
        ).fetchall()
        return {row[0]: f"{row[1]}\n{row[2]}" for row in rows}

    def passages_by_id(self, passage_ids: Sequence[int]) -> dict[int, Passage]:
        if not passage_ids:
            return {}
        # Inside ``reading``: the rows held for the generation, else those ``passage_texts`` kept.
        generation = getattr(self._reading, "generation", None)
        held = self._held_rows(generation) if generation is not None else None
        titled = self._titles is not None and self._titles[0] == generation
        kept = held if held is not None and titled else getattr(self._reading, "rows", None)
        if kept and self._titles is not None:
            titles = self._titles[1]  # read with the rows (``passage_texts``, ``_held_titles``)
            if all(pid in kept and kept[pid][1] in titles for pid in passage_ids):
                return {pid: _kept_passage(kept[pid], titles) for pid in passage_ids}
        marks = ",".join("?" * len(passage_ids))
        if not self._conn.in_transaction:
            # Committed rows: one query without the join, the titles and metadata of the
            # generation held (decoded once). A document committed after the generation was
            # read (not among them) falls through to the join.
            titles = self._held_titles(self._generation())
            rows = self._tuples(
                f"SELECT id, doc_id, text, {_ROW} FROM passages WHERE id IN ({marks})",
                list(passage_ids),
            )
            if all(row[1] in titles for row in rows):
                return {row[0]: _kept_passage(row, titles) for row in rows}
        rows = self._tuples(  # inside a writer's open batch: the documents as they are now
            f"SELECT p.id, p.doc_id, d.title, p.text, d.metadata, {_ROW_P} FROM passages p "
            f"JOIN documents d USING (doc_id) WHERE p.id IN ({marks})",
            list(passage_ids),
        )
        return {row[0]: _passage(*row[:4], json.loads(row[4]), row[5:]) for row in rows}

    def passage_docs(self, passage_ids: Sequence[int]) -> dict[int, str]:
        """The document id of each of these passages."""
        if not len(passage_ids):
            return {}
        if not self._conn.in_transaction:  # committed rows: from the table held per generation
            ids, codes, names = self._doc_table()
            wanted = np.asarray(passage_ids, dtype=np.int64)
            at = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
            known = ids[at] == wanted if len(ids) else np.zeros(len(wanted), dtype=bool)
            return {
                pid: names[code]
                for pid, code, ok in zip(
                    wanted.tolist(), codes[at].tolist(), known.tolist(), strict=True
                )
                if ok
            }
        marks = ",".join("?" * len(passage_ids))
        rows = self._conn.execute(
            f"SELECT id, doc_id FROM passages WHERE id IN ({marks})",
            [int(p) for p in passage_ids],
        ).fetchall()
        return {row[0]: row[1] for row in rows}


#: the passage columns a ``Passage`` needs besides id, document, title, text and metadata
_ROW = "page, position, char_start, char_end, kind, flags"
_ROW_P = "p.page, p.position, p.char_start, p.char_end, p.kind, p.flags"


def _kept_passage(row: tuple, titles: dict[str, tuple[str, dict]]) -> Passage:
    """A held row (id, doc_id, text, ``_ROW``) as a Passage, its title and metadata (a copy of
    the document's, decoded once per generation) from ``titles``."""
    title, metadata = titles[row[1]]
    return _passage(row[0], row[1], title, row[2], json_copy(metadata), row[3:])


def _passage(pid: int, doc_id: str, title: str, text: str, metadata: dict, rest) -> Passage:
    """A stored row as a Passage: from our own schema, so constructed without re-validating."""
    page, position, char_start, char_end, kind, flags = rest
    return stored_passage(
        pid,
        doc_id,
        title,
        page,
        position,
        char_start,
        char_end,
        text,
        metadata,
        kind,
        stored_flags(flags),
    )
