"""Retrieval quality and speed, side by side: dense, lexical (FTS5 BM25), fused, re-ranked.

- SciFact (BEIR protocol: 5,183 abstracts; qrels = each claim's cited abstracts): every knob of
  the fusion and the re-ranker is chosen on the 809 train claims; nDCG@10, recall@100 and MRR
  are reported on the 300 dev claims (the BEIR test set), chosen knobs untouched.
- PubMedQA PQA-L test half (500 questions over 1,000 abstracts): the question's own abstract
  at rank 1 and in the top 8 (k, what the gate and the generator see).
- p50/p99 of the retrieval step (question already embedded) at ~3k passages (PubMedQA) and
  ~13k passages (SciFact + PubMedQA in one index), for each mode.

The grid search runs on candidate lists computed once per claim (dense and lexical, 300 deep);
the chosen configuration is then run again through the product's own ``retrieve()`` on dev.
Indexes are built once and cached (bench/bench_indexes.py). Numbers from a busy 2-core machine.

    .venv/bin/python bench/retrieval.py [--cache DIR] [--subset N] [--speed]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # tests/: the reference path

import numpy as np

from bench_indexes import (
    CACHE,
    DATASETS,
    jsonl,
    pubmedqa_index,
    scifact_index,
    scifact_subset_index,
)
from lastword.embed.minilm import MiniLMEmbedder
from lastword.embed.protocol import EmbedderInfo, normalise
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.evaluate.datasets.scifact import corpus_record as scifact_record
from lastword.evaluate.retrieval import documents_in_order, score_rankings
from lastword.ingest import ingest_paths
from lastword.rank import RerankWeights, TermWeights, rerank, rrf, score_fusion, zscore_fusion
from lastword.retrieve import HybridTuning, retrieve, tuning_from
from lastword.settings import IngestSettings, RetrieveSettings
from lastword.store.local import LocalStore
from retrieval_speed import INT8, WHOLE, int8_pass, latency, paired

DEEP = 300


def qrels_of(claims: list[dict]) -> dict[str, dict[str, int]]:
    return {
        str(c["id"]): {str(d): 1 for d in c["cited_doc_ids"]} for c in claims if c["cited_doc_ids"]
    }


class Lists:
    """Dense and lexical candidates (300 deep) for every claim, and what re-ranking reads."""

    def __init__(self, store: LocalStore, embedder: MiniLMEmbedder, claims: list[dict]) -> None:
        self.store = store
        self.total, self.counts = store.lexicon()
        texts = [c["claim"] for c in claims]
        vectors = embedder.embed_queries(texts)
        self.items = []
        self.passages: dict[int, object] = {}
        for claim, vector in zip(claims, vectors, strict=True):
            dense = store.search(vector, DEEP)
            lexical = store.search_lexical(claim["claim"], DEEP)
            for hit in (*dense, *lexical):
                self.passages[hit.passage.passage_id] = hit.passage
            cosines = {h.passage.passage_id: h.score for h in dense}
            cosines.update(store.cosines(vector, [h.passage.passage_id for h in lexical]))
            self.items.append(
                (
                    str(claim["id"]),
                    claim["claim"],
                    [(h.passage.passage_id, h.score) for h in dense],
                    [(h.passage.passage_id, h.score) for h in lexical],
                    cosines,
                )
            )

    def docs(self, pids: list[int]) -> list[str]:
        return documents_in_order(self.passages[p].doc_id for p in pids)

    def rank(self, config: dict, candidates: int | None = None) -> dict[str, list[str]]:
        candidates = candidates or config.get("candidates", 50)
        out = {}
        for qid, text, dense, lexical, cosines in self.items:
            if config["mode"] == "dense":
                out[qid] = self.docs([p for p, _ in dense])
                continue
            if config["mode"] == "lexical":
                out[qid] = self.docs([p for p, _ in lexical])
                continue
            d, lex = dense[:candidates], lexical[:candidates]
            if config["fusion"] == "zscore":
                pool = {p: cosines[p] for p, _ in (*d, *lex)}
                fused = zscore_fusion(pool, dict(lex), config["w"])
            elif config["fusion"] == "rrf":
                fused = rrf([p for p, _ in d], [p for p, _ in lex], k=config.get("k", 60))
                top = max(fused.values())
                fused = {p: s / top for p, s in fused.items()}
            else:
                fused = score_fusion(dict(d), dict(lex), config["w"])
            order = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
            weights = config.get("rerank")
            if weights and (weights.coverage or weights.proximity):
                depth = config.get("depth", 40)
                texts = {
                    p: f"{self.passages[p].title}\n{self.passages[p].text}"
                    for p, _ in order[:depth]
                }
                terms = TermWeights.of(text, self.counts, self.total)
                order = rerank(order[:depth], texts, terms, weights) + order[depth:]
            out[qid] = self.docs([p for p, _ in order])
        return out


def line(name: str, lists: Lists, qrels, config: dict) -> float:
    scores = score_rankings(lists.rank(config), qrels, (10, 100))
    deep = score_rankings(lists.rank(config, candidates=DEEP), qrels, (100,))
    print(
        f"  {name:34} nDCG@10 {scores.ndcg_at_10:.4f}  recall@100 {deep.recall[100]:.4f}  "
        f"MRR {scores.mrr:.4f}"
    )
    return scores.ndcg_at_10


def tune(train: Lists, qrels) -> tuple[dict, dict, dict]:
    """The best RRF k; the best fusion (min-max or z-score), weight and candidate depth; then the
    best re-ranker on top of it: train claims only."""

    def ndcg(config):
        return score_rankings(train.rank(config), qrels, (10,)).ndcg_at_10

    fusions = [{"mode": "hybrid", "fusion": "rrf", "k": k} for k in (5, 10, 30, 60, 100)] + [
        {"mode": "hybrid", "fusion": fusion, "w": w, "candidates": c}
        for fusion in ("score", "zscore")
        for w in (0.3, 0.4, 0.5, 0.6, 0.7)
        for c in (30, 50, 100)
    ]
    results = [(ndcg(c), c) for c in fusions]
    for value, config in results:
        print(f"  train {config}: nDCG@10 {value:.4f}")
    best_fusion = max((r for r in results if r[1]["fusion"] != "rrf"), key=lambda r: r[0])[1]
    best_rrf = max((r for r in results if r[1]["fusion"] == "rrf"), key=lambda r: r[0])[1]
    grid = []
    for cov, prox, depth in itertools.product(
        (0.0, 0.1, 0.2, 0.3, 0.5), (0.0, 0.05, 0.1), (30, 40, 50)
    ):
        config = {**best_fusion, "rerank": RerankWeights(cov, prox), "depth": depth}
        grid.append((ndcg(config), config))
    value, best_rerank = max(grid, key=lambda r: r[0])
    print(f"  train best re-rank {best_rerank}: nDCG@10 {value:.4f}")
    return best_rrf, best_fusion, best_rerank


def product_ndcg(store, embedder, claims, qrels, tuning: HybridTuning) -> float:
    rankings = {}
    for claim in claims:
        found = retrieve(claim["claim"], embedder, store, 100, mode="hybrid", tuning=tuning)
        rankings[str(claim["id"])] = documents_in_order(p.doc_id for p in found.passages)
    return score_rankings(rankings, qrels).ndcg_at_10


def pubmedqa_ranks(index: Path, embedder, tuning: HybridTuning, data: Path) -> None:
    records, test_ids = load_pubmedqa(data)
    questions = [(p, records[p]["QUESTION"]) for p in sorted(test_ids)]
    with LocalStore.open(index) as store:
        for mode in ("dense", "lexical", "hybrid"):
            first = top8 = 0
            for pmid, question in questions:
                found = retrieve(question, embedder, store, 8, mode=mode, tuning=tuning)
                docs = [p.doc_id for p in found.passages]
                first += bool(docs) and docs[0] == pmid
                top8 += pmid in docs
            n = len(questions)
            print(
                f"  {mode:8} own abstract at rank 1: {first / n:.1%}   in the top 8: {top8 / n:.1%}"
            )


def merged_index(scifact: Path, pubmedqa: Path, cache: Path) -> Path:
    """SciFact and PubMedQA in one index (~13k passages), vectors copied, nothing re-embedded."""
    target = cache / "merged"
    if (target / "complete").exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(scifact, target, ignore=shutil.ignore_patterns("index.lock", "complete"))
    from lastword.store.protocol import DocumentRecord, NewPassage

    with (
        LocalStore.open(pubmedqa) as source,
        LocalStore.open_for_write(target, source.embedder) as out,
    ):
        conn = source._conn  # a bench reading its own cache
        for record in source.documents():
            rows = conn.execute(
                "SELECT page, position, char_start, char_end, text, vector FROM passages "
                "WHERE doc_id = ? ORDER BY position",
                (record.doc_id,),
            ).fetchall()
            passages = [NewPassage(r[0], r[1], r[2], r[3], r[4]) for r in rows]
            vectors = np.stack([np.frombuffer(r[5], dtype="<f4") for r in rows]).astype(np.float32)
            out.put_document(
                DocumentRecord(**{**record.__dict__, "doc_id": "pmqa-" + record.doc_id}),
                passages,
                vectors,
            )
        out.commit()
        out.refresh_matrix()
    (target / "complete").write_text("ok\n")
    return target


def speed(args: argparse.Namespace, embedder, dev_claims: list[dict]) -> int:
    """The shipped hybrid on SciFact dev (nDCG@10 must stay 0.751), the in-memory BM25 against
    the FTS5 query it replaces, and the latency at ~3k and ~13k passages."""
    from lastword.store import lexical

    scifact = scifact_index(args.data / "scifact", args.cache)
    pubmedqa = pubmedqa_index(args.data / "pubmedqa", args.cache)
    shipped = tuning_from(RetrieveSettings())
    qrels = qrels_of(dev_claims)
    with LocalStore.open(scifact) as store:
        print(f"SciFact dev ({len(qrels)} claims, {store.info().passages:,} passages):")
        print(f"  hybrid, shipped settings ({shipped}):")
        print(f"  nDCG@10 {product_ndcg(store, embedder, dev_claims, qrels, shipped):.4f}")
        differ = 0
        for claim in dev_claims:
            ids, scores = store.search_lexical_ids(claim["claim"], shipped.candidates)
            rows = lexical.search(store._conn, claim["claim"], shipped.candidates)
            differ += (ids.tolist(), scores.tolist()) != (
                [r[0] for r in rows],
                [r[1] for r in rows],
            )
        print(
            f"  lexical candidates, in-memory BM25 vs the FTS5 query: {differ} of "
            f"{len(dev_claims)} claims differ (ids, order or score)"
        )
        # The whole ranking against stop 19's path (tests/test_retrieve_identity.py): whole
        # passages for both candidate lists, FTS5's bm25() row by row, coverage by TOKEN.
        from tests.test_retrieve_identity import old_hybrid

        texts = [c["claim"] for c in dev_claims]
        vectors = embedder.embed_queries(texts)
        new = [
            [
                (p.passage_id, p.score)
                for p in retrieve(t, embedder, store, 100, mode="hybrid", tuning=shipped).passages
            ]
            for t in texts
        ]
        with LocalStore.open(scifact, WHOLE) as whole:
            whole._lexical_search = lambda *args: None  # the FTS5 query, as before
            old = [
                [(p.passage_id, s) for p, s in old_hybrid(t, v, whole, 100, shipped)]
                for t, v in zip(texts, vectors, strict=True)
            ]
        differ = sum(a != b for a, b in zip(new, old, strict=True))
        print(
            f"  hybrid top 100, this path (int8 pass: {store.int8_counts}) vs stop 19's (whole "
            f"product, FTS5 row by row, whole passages): {differ} of {len(texts)} claims differ "
            "(ids, order or cosine)"
        )
    print("Retrieval step latency (question embedded beforehand; busy shared 2-core machine):")
    merged = merged_index(scifact, pubmedqa, args.cache)
    int8_pass(merged, embedder, [c["claim"] for c in dev_claims])
    questions = [c["claim"] for c in dev_claims][:200]
    print("Paired, question by question (the two paths alternate; busy shared machine):")
    for index in (pubmedqa, merged):
        paired(index, embedder, questions, shipped)
    for index in (pubmedqa, merged):
        print(" the whole float32 product:")
        latency(index, embedder, questions, shipped, WHOLE, ("dense", "hybrid", "product"))
        print(" the int8 first pass:")
        latency(index, embedder, questions, shipped, INT8)
    return 0


class RandomVectors:
    """An embedder of random unit vectors: a lexical-only index, nothing to embed."""

    info = EmbedderInfo(name="random", model="random-8", dim=8)

    def embed_documents(self, texts):
        rng = np.random.default_rng(len(texts))
        return normalise(rng.normal(size=(len(texts), 8))).astype(np.float32)

    embed_queries = embed_documents


def lexical_full(args: argparse.Namespace, dev_claims: list[dict]) -> None:
    """Lexical retrieval over all 5,183 abstracts: BEIR's SciFact, train and dev claims."""
    index = args.cache / "scifact-lexical"
    if not (index / "complete").exists():
        corpus = args.cache / "scifact-lexical.jsonl"
        rows = (scifact_record(r) for r in jsonl(args.data / "scifact" / "corpus.jsonl"))
        corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        ingest_paths([corpus], index, RandomVectors(), IngestSettings())
        (index / "complete").write_text("ok\n")
    with LocalStore.open_for_write(index, RandomVectors.info):
        pass  # a changed tokenisation rebuilds the lexical table here
    train_claims = jsonl(args.data / "scifact" / "claims_train.jsonl")
    with LocalStore.open(index) as store:
        print(f"SciFact, lexical only, all {store.info().documents:,} abstracts (BEIR protocol):")
        for split, claims in (("train", train_claims), ("dev", dev_claims)):
            started = time.perf_counter()
            rankings = {
                str(c["id"]): documents_in_order(
                    h.passage.doc_id for h in store.search_lexical(c["claim"], DEEP)
                )
                for c in claims
            }
            ms = (time.perf_counter() - started) * 1000 / len(claims)
            scores = score_rankings(rankings, qrels_of(claims), (10, 100))
            print(f"  {split:5} ({len(claims)} claims): {scores.as_dict()}  {ms:.0f} ms a claim")


def subset(args: argparse.Namespace, embedder, dev_claims: list[dict]) -> int:
    """Dense vs lexical vs hybrid on the dev claims over a smaller SciFact haystack."""
    index = scifact_subset_index(args.subset, args.data / "scifact", args.cache)
    qrels = qrels_of(dev_claims)
    defaults = tuning_from(RetrieveSettings())
    with LocalStore.open(index) as store:
        dev = Lists(store, embedder, dev_claims)
        info = store.info()
        print(
            f"SciFact dev claims over {info.documents:,} abstracts ({info.passages:,} passages: "
            "every dev-cited one + random others; not the BEIR protocol):"
        )
        line("dense (MiniLM cosine)", dev, qrels, {"mode": "dense"})
        line("lexical (FTS5 BM25)", dev, qrels, {"mode": "lexical"})
        line("fused: RRF", dev, qrels, {"mode": "hybrid", "fusion": "rrf"})
        shipped = {
            "mode": "hybrid",
            "fusion": defaults.fusion,
            "w": defaults.lexical_weight,
            "candidates": defaults.candidates,
        }
        label = f"fused: {defaults.fusion}, w={defaults.lexical_weight} (shipped)"
        line(label, dev, qrels, shipped)
        reranked = {**shipped, "rerank": defaults.rerank, "depth": defaults.rerank_depth}
        line("re-ranked (shipped)", dev, qrels, reranked)
        print("  for reference only (chosen on nothing, read on dev):")
        for w in (0.3, 0.4, 0.6, 0.7):
            line(f"fused: {defaults.fusion}, w={w}", dev, qrels, {**shipped, "w": w})
        ndcg = product_ndcg(store, embedder, dev_claims, qrels, defaults)
        print(f"  the product's retrieve() with the shipped settings: nDCG@10 {ndcg:.4f}")
    print("PubMedQA test half (500 questions, 1,000 abstracts):")
    pubmedqa = pubmedqa_index(args.data / "pubmedqa", args.cache)
    pubmedqa_ranks(pubmedqa, embedder, defaults, args.data / "pubmedqa")
    print("Retrieval step latency (question embedded beforehand):")
    questions = [c["claim"] for c in dev_claims][:200]
    latency(pubmedqa, embedder, questions, defaults)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--data", type=Path, default=DATASETS)
    parser.add_argument(
        "--subset",
        type=int,
        default=0,
        help="Dense and hybrid over N abstracts only (dev-cited + random), for a busy machine.",
    )
    parser.add_argument(
        "--speed",
        action="store_true",
        help="Only the shipped hybrid's dev nDCG@10, BM25 identity and latency (no tuning).",
    )
    args = parser.parse_args()
    print("(numbers from a busy, shared 2-core machine)")
    dev_claims = [
        c for c in jsonl(args.data / "scifact" / "claims_dev.jsonl") if c["cited_doc_ids"]
    ]
    embedder = MiniLMEmbedder()
    if args.speed:
        return speed(args, embedder, dev_claims)
    lexical_full(args, dev_claims)
    if args.subset:
        return subset(args, embedder, dev_claims)
    scifact = scifact_index(args.data / "scifact", args.cache)
    pubmedqa = pubmedqa_index(args.data / "pubmedqa", args.cache)
    train_claims = [
        c for c in jsonl(args.data / "scifact" / "claims_train.jsonl") if c["cited_doc_ids"]
    ]
    train_qrels, dev_qrels = qrels_of(train_claims), qrels_of(dev_claims)

    with LocalStore.open(scifact) as store:
        started = time.perf_counter()
        train, dev = Lists(store, embedder, train_claims), Lists(store, embedder, dev_claims)
        seconds = time.perf_counter() - started
        print(f"candidate lists, {len(train_claims)} + {len(dev_claims)} claims: {seconds:.0f}s")
        print(f"SciFact train ({len(train_qrels)} claims): tuning")
        best_rrf, fusion, reranked = tune(train, train_qrels)
        print(f"SciFact dev ({len(dev_qrels)} claims, BEIR test set), knobs from train:")
        line("dense (MiniLM cosine)", dev, dev_qrels, {"mode": "dense"})
        line("lexical (FTS5 BM25)", dev, dev_qrels, {"mode": "lexical"})
        line(f"fused: RRF, k={best_rrf['k']}", dev, dev_qrels, best_rrf)
        name = f"fused: {fusion['fusion']}, w={fusion['w']}, {fusion['candidates']} each"
        line(name, dev, dev_qrels, fusion)
        line("re-ranked (coverage, proximity)", dev, dev_qrels, reranked)
        print(f"  (recall@100 from {DEEP}-deep candidate lists; nDCG@10 and MRR from 50-deep)")
        tuning = HybridTuning(
            candidates=reranked.get("candidates", 50),
            fusion=reranked["fusion"],
            lexical_weight=fusion["w"],
            rerank_depth=reranked["depth"],
            rerank=reranked["rerank"],
        )
        print(
            f"  the product's retrieve(), hybrid with {tuning}: nDCG@10 "
            f"{product_ndcg(store, embedder, dev_claims, dev_qrels, tuning):.4f}"
        )

    print("PubMedQA test half (500 questions, 1,000 abstracts):")
    pubmedqa_ranks(pubmedqa, embedder, tuning, args.data / "pubmedqa")
    print("Retrieval step latency (question embedded beforehand):")
    questions = [c["claim"] for c in dev_claims][:200]
    latency(pubmedqa, embedder, questions, tuning)
    latency(merged_index(scifact, pubmedqa, args.cache), embedder, questions, tuning)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
