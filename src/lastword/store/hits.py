"""Whole passages on top of ids and scores: the part of searching every store shares.

A store answers ``search_ids`` and ``search_lexical_ids`` (ids and scores, best first) and
``passages_by_id``; ``search`` and ``search_lexical`` are those searches with the passages
built, the same on every backend. Mixed into ``LocalSearch`` and ``PostgresSearch``.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from lastword.store.protocol import Hit


class HitsFromIds:
    """``search`` and ``search_lexical`` from the store's id searches and ``passages_by_id``."""

    def search(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
    ) -> list[Hit]:
        """Top-k passages by cosine to a unit-norm query vector, best first."""
        return self._hits(*self.search_ids(query, k, exclude_doc_ids, kinds))  # type: ignore[attr-defined]

    def search_lexical(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
    ) -> list[Hit]:
        """Top-k passages by the backend's lexical score (higher is better), best first."""
        return self._hits(*self.search_lexical_ids(text, k, exclude_doc_ids, kinds))  # type: ignore[attr-defined]

    def _hits(self, ids: np.ndarray, scores: np.ndarray) -> list[Hit]:
        passages = self.passages_by_id(ids.tolist())  # type: ignore[attr-defined]
        return [
            Hit(passage=passages[pid], score=score)
            for pid, score in zip(ids.tolist(), scores.tolist(), strict=True)
        ]
