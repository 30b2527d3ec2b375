"""Step 2: embed the question and find the top-k passages by cosine similarity."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from lastword.embed.protocol import Embedder
from lastword.result import RetrievedPassage
from lastword.store.protocol import Store


@dataclass(frozen=True)
class Retrieval:
    passages: tuple[RetrievedPassage, ...]
    embed_ms: float
    retrieve_ms: float


def retrieve(
    question: str,
    embedder: Embedder,
    store: Store,
    k: int,
    exclude_doc_ids: Collection[str] = (),
    kinds: Collection[str] | None = None,
) -> Retrieval:
    """``kinds``: only passages of these kinds (``[retrieve] evidence_kinds``; None: all)."""
    started = time.perf_counter()
    query = embedder.embed_queries([question])[0]
    embedded = time.perf_counter()
    hits = store.search(query, k, exclude_doc_ids=exclude_doc_ids, kinds=kinds)
    done = time.perf_counter()
    passages = tuple(
        RetrievedPassage(
            n=n,
            passage_id=hit.passage.passage_id,
            doc_id=hit.passage.doc_id,
            title=hit.passage.title,
            page=hit.passage.page,
            score=round(hit.score, 6),
            text=hit.passage.text,
            metadata=hit.passage.metadata,
            kind=hit.passage.kind,
            flags=hit.passage.flags,
        )
        for n, hit in enumerate(hits, start=1)
    )
    return Retrieval(
        passages=passages,
        embed_ms=(embedded - started) * 1000,
        retrieve_ms=(done - embedded) * 1000,
    )
