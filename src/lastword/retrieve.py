"""Steps 2-3: embed the question (2), then rank the passages (3).

Three modes (``[retrieve] mode``):

- ``dense``: cosine similarity of MiniLM (or the index's embedder) sentence vectors;
- ``lexical``: BM25 over the lexical index in the same SQLite file (``store/lexical.py``);
- ``hybrid`` (the default): the top ``candidates`` of each, fused (``rank.py``: standard
  scores over the pooled candidates by default, or min-max score fusion, or reciprocal-rank
  fusion), then the fused head re-ranked with local signals (term coverage, proximity). On
  SciFact (BEIR, dev claims) nDCG@10 0.751 against 0.643 dense and 0.688 lexical;
  docs/retrieval.md.

Whatever the order, every passage's ``score`` is its cosine similarity to the question: the
number readers and the gate know. Each stage's time is reported.

With ``context=True`` retrieval also keeps what the gate's corpus-relative signals read
(``gate/transfer.py``): the dense cosines at ranks 9 to 50 (``background``) and the lexical top
documents (``lexical_docs``), from the candidate lists it ran, or from one more search when the
mode did not run that list.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from lastword.embed.protocol import Embedder
from lastword.rank import RerankWeights, TermWeights, rerank, rrf, score_fusion, zscore_order
from lastword.result import Passage, RetrievedPassage
from lastword.scope import Scope
from lastword.settings import RetrieveSettings
from lastword.store.protocol import Store

Mode = Literal["hybrid", "dense", "lexical"]
Fusion = Literal["zscore", "rrf", "score"]


@dataclass(frozen=True)
class Retrieval:
    passages: tuple[RetrievedPassage, ...]
    embed_ms: float
    retrieve_ms: float
    #: each stage's milliseconds: dense, lexical, fuse, rerank (those that ran)
    stages_ms: dict[str, float] = field(default_factory=dict)
    #: with ``context``: the dense cosines at ranks 9 to 50 (the question's own background)
    background: tuple[float, ...] | None = None
    #: with ``context``: the lexical top documents, best first
    lexical_docs: tuple[str, ...] | None = None


#: dense ranks (1-based, inclusive) whose cosines are the question's background
BACKGROUND = (9, 50)


@dataclass(frozen=True)
class HybridTuning:
    """The hybrid ranking's knobs; defaults chosen on SciFact train claims (bench/retrieval.py)."""

    candidates: int = 100
    fusion: Fusion = "zscore"
    lexical_weight: float = 0.5
    rerank_depth: int = 40
    rerank: RerankWeights = field(default_factory=RerankWeights)


#: the re-ranker's weights, fitted on SciFact's train claims (bench/retrieval.py)
RERANK = RerankWeights(coverage=0.3, proximity=0.0)


def tuning_from(settings: RetrieveSettings) -> HybridTuning:
    return HybridTuning(
        candidates=settings.candidates,
        fusion=settings.fusion,
        lexical_weight=settings.lexical_weight,
        rerank=RERANK if settings.rerank else RerankWeights(),
    )


#: one candidate list: (passage ids, scores), best first
Candidates = tuple[np.ndarray, np.ndarray]


def _passage(n: int, p: Passage, score: float) -> RetrievedPassage:
    return RetrievedPassage(
        n=n,
        passage_id=p.passage_id,
        doc_id=p.doc_id,
        title=p.title,
        page=p.page,
        score=round(score, 6),
        text=p.text,
        metadata=p.metadata,
        kind=getattr(p, "kind", "body"),
        flags=getattr(p, "flags", ()),
    )


def retrieve(
    question: str,
    embedder: Embedder,
    store: Store,
    k: int,
    exclude_doc_ids: Collection[str] = (),
    mode: Mode = "dense",
    kinds: Collection[str] | None = None,
    tuning: HybridTuning | None = None,
    context: bool = False,
    scope: Scope | None = None,
) -> Retrieval:
    """The top k passages for ``question``; ``scope`` (collections, years, authors, tags,
    documents, the reader) reaches every search the store runs, dense and lexical alike."""
    tuning = tuning or HybridTuning()
    deep = max(k, BACKGROUND[1]) if context else k
    lists: dict[str, Candidates] = {}
    # ``kinds`` reaches the store only when set: a store without passage kinds takes no filter.
    where = {"exclude_doc_ids": exclude_doc_ids, **({"kinds": kinds} if kinds is not None else {})}
    if scope is not None and scope.restricted:
        where["scope"] = scope
    stages: dict[str, float] = {}
    started = time.perf_counter()
    # Every mode embeds the question: the passages' scores are cosines, whatever the order.
    query = embedder.embed_queries([question])[0]
    embedded = time.perf_counter()

    with store.reading():  # one generation for every part of this retrieval, read once
        # Candidates are ids and scores; passages are built for the k returned only.
        if mode == "lexical":
            ids, _ = lists["lexical"] = store.search_lexical_ids(question, deep, **where)
            stages["lexical"] = (time.perf_counter() - embedded) * 1000
            chosen = ids[:k].tolist()
            cosines = store.cosines(query, chosen)
            ranked = [(pid, cosines[pid]) for pid in chosen]
        elif mode == "dense":
            ids, scores = lists["dense"] = store.search_ids(query, deep, **where)
            stages["dense"] = (time.perf_counter() - embedded) * 1000
            ranked = list(zip(ids[:k].tolist(), scores[:k].tolist(), strict=True))
        else:
            ranked = _hybrid(question, query, store, k, where, tuning, stages, lists)
        background = lexical_docs = None
        if context:
            ran = time.perf_counter()
            dense = lists.get("dense")
            if dense is None or not len(dense[0]):
                dense = store.search_ids(query, BACKGROUND[1], **where)
            lexical = lists.get("lexical")
            if lexical is None or not len(lexical[0]):
                lexical = store.search_lexical_ids(question, BACKGROUND[1], **where)
            background = tuple(dense[1][BACKGROUND[0] - 1 : BACKGROUND[1]].tolist())
            docs = store.passage_docs(lexical[0].tolist())
            lexical_docs = tuple(dict.fromkeys(docs[pid] for pid in lexical[0].tolist()))
            stages["context"] = (time.perf_counter() - ran) * 1000
        fetched = time.perf_counter()
        passages = store.passages_by_id([pid for pid, _ in ranked])
        stages["passages"] = (time.perf_counter() - fetched) * 1000
    done = time.perf_counter()
    return Retrieval(
        passages=tuple(_passage(n, passages[pid], s) for n, (pid, s) in enumerate(ranked, start=1)),
        embed_ms=(embedded - started) * 1000,
        retrieve_ms=(done - embedded) * 1000,
        stages_ms=stages,
        background=background,
        lexical_docs=lexical_docs,
    )


def _hybrid(
    question: str,
    query: np.ndarray,
    store: Store,
    k: int,
    where: dict,
    tuning: HybridTuning,
    stages: dict[str, float],
    lists: dict[str, Candidates],
) -> list[tuple[int, float]]:
    """(passage id, cosine) of the first k in the hybrid order."""
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stages[stage] = (now - clock) * 1000
        clock = now

    dense_ids, dense_scores = lists["dense"] = store.search_ids(query, tuning.candidates, **where)
    lap("dense")
    lexical_ids, lexical_scores = lists["lexical"] = store.search_lexical_ids(
        question, tuning.candidates, **where
    )
    lap("lexical")
    # The pool in candidate order (dense, then lexical-only): the fusions sum in that order.
    dense_list = dense_ids.tolist()
    cosines = dict(zip(dense_list, dense_scores.tolist(), strict=True))
    bm25 = dict(zip(lexical_ids.tolist(), lexical_scores.tolist(), strict=True))
    if tuning.fusion == "zscore":
        # Standard scores need every candidate's cosine: the lexical-only ones by matrix row.
        only = [pid for pid in bm25 if pid not in cosines]  # (np.isin: 10x slower at 100)
        found = store.cosines(query, only)
        cosines.update(found)
        pool = [*dense_list, *(pid for pid in only if pid in found)]
        order = zscore_order(
            np.array(pool, dtype=np.int64),
            np.array([cosines[pid] for pid in pool], dtype=np.float64),
            np.array([bm25.get(pid, 0.0) for pid in pool], dtype=np.float64),
            tuning.lexical_weight,
        )
    else:
        if tuning.fusion == "rrf":
            fused = rrf(dense_ids.tolist(), lexical_ids.tolist())
            top = max(fused.values(), default=1.0)
            fused = {pid: score / top for pid, score in fused.items()}
        else:
            fused = score_fusion(cosines, bm25, tuning.lexical_weight)
        order = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    lap("fuse")
    if tuning.rerank.coverage or tuning.rerank.proximity:
        head, tail = order[: tuning.rerank_depth], order[tuning.rerank_depth :]
        total, counts = store.lexicon()
        texts = store.passage_texts([pid for pid, _ in head])  # the head only, one query
        order = rerank(head, texts, TermWeights.of(question, counts, total), tuning.rerank) + tail
        lap("rerank")
    chosen = [pid for pid, _ in order[:k]]
    missing = [pid for pid in chosen if pid not in cosines]  # lexical-only, not fused by z-score
    if missing:
        cosines.update(store.cosines(query, missing))
    return [(pid, cosines[pid]) for pid in chosen]
