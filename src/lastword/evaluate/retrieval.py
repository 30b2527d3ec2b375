"""Retrieval quality against relevance judgements: nDCG@k, recall@k, MRR (BEIR protocol).

A relevance file is BEIR's qrels TSV: ``query-id<TAB>corpus-id<TAB>score``, an optional header
line, a score > 0 meaning relevant (graded: the gain in nDCG). Passages are ranked; documents
are judged, so a document's rank is that of its best passage (each document counted once).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lastword.errors import InputError

Qrels = dict[str, dict[str, int]]


def load_qrels(path: Path) -> Qrels:
    """query id -> {document id: relevance}; only relevance > 0 is kept."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the relevance file {path}: {exc.strerror}") from None
    qrels: Qrels = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if number == 1 and fields[-1].strip().lower() == "score":
            continue  # BEIR's header: query-id corpus-id score
        if len(fields) != 3:
            raise InputError(
                f"{path}:{number}: expected query-id, corpus-id and score, got {len(fields)} fields"
            )
        query, doc, score = (f.strip() for f in fields)
        try:
            relevance = int(float(score))
        except ValueError:
            raise InputError(f"{path}:{number}: the score {score!r} is not a number") from None
        if relevance > 0:
            qrels.setdefault(query, {})[doc] = relevance
    if not qrels:
        raise InputError(f"{path} judges no document relevant to any query")
    return qrels


def documents_in_order(doc_ids: Iterable[str]) -> list[str]:
    """Passages' documents, best first, each once (its best passage's rank)."""
    return list(dict.fromkeys(doc_ids))


def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    dcg = sum(
        (2 ** relevant.get(doc, 0) - 1) / math.log2(rank + 2)
        for rank, doc in enumerate(ranking[:k])
    )
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum((2**rel - 1) / math.log2(rank + 2) for rank, rel in enumerate(ideal))
    return dcg / best if best else 0.0


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    if not relevant:
        return 0.0
    return len(set(ranking[:k]) & relevant.keys()) / len(relevant)


def reciprocal_rank(ranking: Sequence[str], relevant: Mapping[str, int]) -> float:
    for rank, doc in enumerate(ranking, start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0


@dataclass(frozen=True)
class RetrievalScores:
    queries: int
    ndcg_at_10: float
    recall: dict[int, float]
    mrr: float

    def as_dict(self) -> dict:
        return {
            "queries": self.queries,
            "ndcg@10": round(self.ndcg_at_10, 4),
            **{f"recall@{k}": round(v, 4) for k, v in self.recall.items()},
            "mrr": round(self.mrr, 4),
        }


def score_rankings(
    rankings: Mapping[str, Sequence[str]], qrels: Qrels, recall_ks: Sequence[int] = (10, 100)
) -> RetrievalScores:
    """Mean metrics over the judged queries (a judged query missing from ``rankings`` scores 0)."""
    queries = [q for q in qrels if qrels[q]]
    n = len(queries)
    if n == 0:
        raise InputError("no judged query to score")
    ranked = {q: list(rankings.get(q, ())) for q in queries}
    return RetrievalScores(
        queries=n,
        ndcg_at_10=sum(ndcg_at(ranked[q], qrels[q]) for q in queries) / n,
        recall={k: sum(recall_at(ranked[q], qrels[q], k) for q in queries) / n for k in recall_ks},
        mrr=sum(reciprocal_rank(ranked[q], qrels[q]) for q in queries) / n,
    )


def load_queries(path: Path) -> dict[str, str]:
    """BEIR queries.jsonl (``{"_id": ..., "text": ...}``) or a TSV of ``id<TAB>text``."""
    import json

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the queries file {path}: {exc.strerror}") from None
    queries: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
            qid, text = obj.get("_id", obj.get("id")), obj.get("text")
        else:
            qid, _, text = line.partition("\t")
        if qid is None or not isinstance(text, str) or not text.strip():
            raise InputError(f'{path}:{number}: a query needs an id ("_id") and a "text"')
        queries[str(qid)] = text.strip()
    if not queries:
        raise InputError(f"{path} holds no query")
    return queries


def document_aliases(documents: Iterable) -> dict[str, str]:
    """Every name a relevance file may use for a stored document -> its doc_id.

    The doc_id itself, the ``id`` a JSONL record carried (``metadata.id``), the path shown to
    users (``metadata.path``, relative to the ingest root), the source's file name and stem,
    and the title; a name shared by two documents is dropped (it would judge both).
    """
    seen: dict[str, set[str]] = {}
    for record in documents:
        names = {record.doc_id, record.title, Path(record.source).name, Path(record.source).stem}
        shown = record.metadata.get("path") if isinstance(record.metadata, dict) else None
        if shown:
            names |= {str(shown), Path(str(shown)).name, Path(str(shown)).stem}
        meta_id = record.metadata.get("id") if isinstance(record.metadata, dict) else None
        if meta_id:
            names.add(str(meta_id))
        for name in filter(None, names):
            seen.setdefault(name, set()).add(record.doc_id)
    aliases = {name: next(iter(ids)) for name, ids in seen.items() if len(ids) == 1}
    # A doc_id always names its own document, whatever else shares the name.
    aliases.update({record_id: record_id for ids in seen.values() for record_id in ids})
    return aliases


@dataclass(frozen=True)
class RetrievalEval:
    scores: RetrievalScores
    mode: str
    unknown_documents: int  # judged documents the index does not hold (they count as misses)
    rankings: dict[str, list[str]]


def evaluate_retrieval(
    queries: Mapping[str, str],
    qrels: Qrels,
    search: Callable[[str], Sequence[str]],
    aliases: Mapping[str, str],
    mode: str,
    recall_ks: Sequence[int] = (10, 100),
) -> RetrievalEval:
    """Rank each judged query's documents with ``search`` (question -> doc_ids, best first)."""
    missing = sorted(q for q in qrels if q not in queries)
    if missing:
        raise InputError(
            f"{len(missing)} judged queries have no text in the queries file "
            f"(first: {missing[0]!r})"
        )
    judged: Qrels = {}
    unknown = 0
    for qid, relevant in qrels.items():
        mapped = {}
        for doc, rel in relevant.items():
            if doc in aliases:
                mapped[aliases[doc]] = rel
            else:
                unknown += 1
                mapped[f"\0missing:{doc}"] = rel  # judged, never retrievable: a miss
        judged[qid] = mapped
    rankings = {qid: documents_in_order(search(queries[qid])) for qid in judged}
    return RetrievalEval(score_rankings(rankings, judged, recall_ks), mode, unknown, rankings)
