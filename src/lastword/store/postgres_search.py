"""The PostgreSQL store's searches: candidates as ids and scores, passages when asked.

The same seams as the local store (``store/local_search.py``): ``search_ids`` and
``search_lexical_ids`` give ids and scores for hybrid retrieval's candidate stage,
``passage_texts`` what its re-ranking reads, ``passages_by_id`` whole passages for what it
returns. Mixed into ``PostgresStore``, which provides the connection (``_fetch``), the
schema-qualified table names (``_t``) and the embedder.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import CorpusIndexError
from lastword.result import Passage
from lastword.store.hits import HitsFromIds, stored_flags, stored_passage
from lastword.store.lexical import lexical_tokens

_PASSAGE_COLUMNS = (
    "p.id, p.doc_id, d.title, p.page, p.position, p.char_start, p.char_end, p.text, "
    "d.metadata, p.kind, p.flags"
)
_NO_IDS = np.empty(0, dtype=np.int64)
_NO_SCORES = np.empty(0, dtype=np.float64)


def vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.9g}" for x in np.asarray(vector, dtype=np.float32)) + "]"


def _filters(
    exclude_doc_ids: Collection[str], kinds: Collection[str] | None
) -> tuple[list[str], list[Any]]:
    """WHERE conditions and their parameters for a search's exclusions and passage kinds."""
    where: list[str] = []
    params: list[Any] = []
    if exclude_doc_ids:
        where.append("NOT (doc_id = ANY(%s))")
        params.append(list(exclude_doc_ids))
    if kinds is not None:
        where.append("kind = ANY(%s)")
        params.append(list(kinds))
    return where, params


class PostgresSearch(HitsFromIds):
    """Mixed into ``PostgresStore`` (after its own methods and ``PostgresExtras``)."""

    settings: Any  # StoreSettings, set by PostgresStore

    def _t(self, name: str) -> str: ...  # provided by PostgresStore

    def _fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...

    @property
    def embedder(self) -> EmbedderInfo: ...  # provided by PostgresStore

    def vector_precision(self) -> str: ...  # provided by PostgresStore

    def search_ids(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = self.embedder.dim
        if query.shape[0] != dim:
            raise CorpusIndexError(
                f"query vector has {query.shape[0]} dimensions; the index has {dim}"
            )
        if k <= 0:
            return _NO_IDS, _NO_SCORES
        where, params = _filters(exclude_doc_ids, kinds)
        text = vector_text(query)
        filters = f"WHERE {' AND '.join(where)} " if where else ""
        if self.vector_precision() == "half":
            # The index orders half-precision copies; its nearest candidates are re-scored
            # exactly, so the scores (and the order among them) are float32 cosines.
            half = f"halfvec({dim})"
            sql = (
                "SELECT id, embedding <=> %s::vector AS distance FROM ("
                f"SELECT id, embedding FROM {self._t('passages')} {filters}"
                f"ORDER BY embedding::{half} <=> %s::{half} LIMIT %s) candidates "
                "ORDER BY distance, id LIMIT %s"
            )
            args = (text, *params, text, max(k, self.settings.pg_candidates), k)
        else:
            sql = (
                f"SELECT id, embedding <=> %s::vector AS distance FROM {self._t('passages')} "
                f"{filters}ORDER BY embedding <=> %s::vector LIMIT %s"
            )
            args = (text, *params, text, k)
        rows = self._fetch(sql, args)
        # Iterative scans return nearly sorted rows: sort exactly by the scores they carry.
        rows.sort(key=lambda row: (row[1], row[0]))
        return (
            np.array([row[0] for row in rows], dtype=np.int64),
            np.array([1.0 - float(row[1]) for row in rows], dtype=np.float64),
        )

    def search_lexical_ids(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(ids, ``ts_rank_cd`` scores, higher is better) for the question's terms, best first."""
        # lexical_tokens are word characters only: nothing of tsquery syntax gets through.
        tokens = list(dict.fromkeys(lexical_tokens(text)))
        if not tokens or k <= 0:
            return _NO_IDS, _NO_SCORES
        where, params = _filters(exclude_doc_ids, kinds)
        where.insert(0, "tokens @@ q")
        rows = self._fetch(
            f"SELECT id, ts_rank_cd(tokens, q) AS rank FROM {self._t('passages')}, "
            f"to_tsquery('english', %s) q WHERE {' AND '.join(where)} "
            "ORDER BY rank DESC, id LIMIT %s",
            (" | ".join(tokens), *params, k),
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
            f"SELECT id, 1 - (embedding <=> %s::vector) FROM {self._t('passages')} "
            "WHERE id = ANY(%s)",
            (vector_text(query), [int(p) for p in passage_ids]),
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
