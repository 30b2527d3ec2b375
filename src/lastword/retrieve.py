"""Steps 2-3: embed the question (2), then rank the passages (3).

Three modes (``[retrieve] mode``):

- ``dense`` (the default): cosine similarity of MiniLM (or the index's embedder) sentence vectors;
- ``lexical``: BM25 over the lexical index in the same SQLite file (``store/lexical.py``);
- ``hybrid``: the top ``candidates`` of each, fused (``rank.py``: standard scores over the
  pooled candidates by default, or min-max score fusion, or reciprocal-rank fusion), then the
  fused head re-ranked with local signals (term coverage, proximity). On SciFact (BEIR, dev
  claims) nDCG@10 0.751 against 0.643 dense and 0.688 lexical; docs/retrieval.md.

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
from lastword.rank import RerankWeights, TermWeights, rerank, rrf, score_fusion, zscore_fusion
from lastword.result import Passage, RetrievedPassage
from lastword.settings import RetrieveSettings
from lastword.store.protocol import Hit, Store

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
) -> Retrieval:
    tuning = tuning or HybridTuning()
    deep = max(k, BACKGROUND[1]) if context else k
    lists: dict[str, list[Hit]] = {}
    # ``kinds`` reaches the store only when set: a store without passage kinds takes no filter.
    where = {"exclude_doc_ids": exclude_doc_ids, **({"kinds": kinds} if kinds is not None else {})}
    stages: dict[str, float] = {}
    started = time.perf_counter()
    # Every mode embeds the question: the passages' scores are cosines, whatever the order.
    query = embedder.embed_queries([question])[0]
    embedded = time.perf_counter()

    if mode == "lexical":
        hits = lists["lexical"] = store.search_lexical(question, deep, **where)
        stages["lexical"] = (time.perf_counter() - embedded) * 1000
        hits = hits[:k]
        cosines = store.cosines(query, [h.passage.passage_id for h in hits])
        ranked = [(h.passage, cosines[h.passage.passage_id]) for h in hits]
    elif mode == "dense":
        hits = lists["dense"] = store.search(query, deep, **where)
        stages["dense"] = (time.perf_counter() - embedded) * 1000
        ranked = [(h.passage, h.score) for h in hits[:k]]
    else:
        ranked = _hybrid(question, query, store, k, where, tuning, stages, lists)
    background = lexical_docs = None
    if context:
        ran = time.perf_counter()
        dense = lists.get("dense") or store.search(query, BACKGROUND[1], **where)
        lexical = lists.get("lexical") or store.search_lexical(question, BACKGROUND[1], **where)
        background = tuple(h.score for h in dense[BACKGROUND[0] - 1 : BACKGROUND[1]])
        lexical_docs = tuple(dict.fromkeys(h.passage.doc_id for h in lexical))
        stages["context"] = (time.perf_counter() - ran) * 1000
    done = time.perf_counter()
    return Retrieval(
        passages=tuple(_passage(n, p, s) for n, (p, s) in enumerate(ranked, start=1)),
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
    lists: dict[str, list[Hit]],
) -> list[tuple[Passage, float]]:
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stages[stage] = (now - clock) * 1000
        clock = now

    dense = lists["dense"] = store.search(query, tuning.candidates, **where)
    lap("dense")
    lexical = lists["lexical"] = store.search_lexical(question, tuning.candidates, **where)
    lap("lexical")
    passages = {h.passage.passage_id: h.passage for h in (*dense, *lexical)}
    cosines = {h.passage.passage_id: h.score for h in dense}
    if tuning.fusion == "zscore":
        # Standard scores need every candidate's cosine: fetch the lexical-only ones now.
        missing = [pid for pid in passages if pid not in cosines]
        cosines.update(store.cosines(query, missing))
        bm25 = {h.passage.passage_id: h.score for h in lexical}
        fused = zscore_fusion(cosines, bm25, tuning.lexical_weight)
    elif tuning.fusion == "rrf":
        fused = rrf([h.passage.passage_id for h in dense], [h.passage.passage_id for h in lexical])
        top = max(fused.values(), default=1.0)
        fused = {pid: score / top for pid, score in fused.items()}
    else:
        bm25 = {h.passage.passage_id: h.score for h in lexical}
        fused = score_fusion(cosines, bm25, tuning.lexical_weight)
    order = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    lap("fuse")
    if tuning.rerank.coverage or tuning.rerank.proximity:
        head, tail = order[: tuning.rerank_depth], order[tuning.rerank_depth :]
        total, counts = store.lexicon()
        texts = {pid: f"{passages[pid].title}\n{passages[pid].text}" for pid, _ in head}
        order = rerank(head, texts, TermWeights.of(question, counts, total), tuning.rerank) + tail
        lap("rerank")
    chosen = [pid for pid, _ in order[:k]]
    missing = [pid for pid in chosen if pid not in cosines]
    if missing:
        cosines.update(store.cosines(query, missing))
    return [(passages[pid], cosines[pid]) for pid in chosen]
