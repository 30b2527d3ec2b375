"""Benchmark: ingest the PubMedQA PQA-L corpus and retrieve for its 1,000 questions.

Prints ingest throughput (passages/s), the share of questions whose own abstract is in the
top 8, and retrieve latency p50/p99, side by side with a plain numpy baseline (the same matrix
loaded in RAM, product + argpartition, on the same single BLAS thread the store sets for the
process) in the same run.

    .venv/bin/python bench/ingest_pubmedqa.py [--data ../shared/datasets/pubmedqa] [--k 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.datasets.pubmedqa import corpus_record, load_pubmedqa
from lastword.ingest import ingest_paths
from lastword.settings import IngestSettings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = np.asarray(samples_ms)
    return float(np.percentile(ordered, 50)), float(np.percentile(ordered, 99))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3, help="Timed passes over the questions.")
    args = parser.parse_args()
    if not (args.data / "ori_pqal.json").is_file():
        print(f"PubMedQA not found at {args.data}", file=sys.stderr)
        return 2

    records, _ = load_pubmedqa(args.data)
    embedder = MiniLMEmbedder()
    embedder.embed_queries(["warm-up"])  # model load is not ingest time

    with tempfile.TemporaryDirectory(prefix="lastword-bench-") as scratch:
        corpus = Path(scratch) / "pubmedqa.jsonl"
        with corpus.open("w", encoding="utf-8") as handle:
            for pmid, record in records.items():
                handle.write(json.dumps(corpus_record(pmid, record)) + "\n")
        index = Path(scratch) / "index"

        report = ingest_paths([corpus], index, embedder, IngestSettings())
        print(f"documents           {len(report.added):>10}")
        print(f"passages            {report.passages_embedded:>10}")
        print(f"ingest wall         {report.seconds:>9.1f}s")
        print(f"ingest rate         {report.passages_embedded / report.seconds:>9.1f} passages/s")
        print(f"embed-only rate     {report.passages_per_second:>9.1f} passages/s")

        questions = [(pmid, record["QUESTION"]) for pmid, record in records.items()]
        started = time.perf_counter()
        query_vectors = embedder.embed_queries([q for _, q in questions])
        embed_s = time.perf_counter() - started
        single_embed_ms = []
        for _, question in questions[:100]:
            t = time.perf_counter()
            embedder.embed_queries([question])
            single_embed_ms.append((time.perf_counter() - t) * 1000)

        with LocalStore.open(index) as store:
            store.search(query_vectors[0], args.k)  # map the matrix before timing
            matrix_ram = np.array(np.load(next(index.glob("vectors-*.npy"))))
            ids_ram = np.load(next(index.glob("ids-*.npy")))
            id_to_doc = {p: d for p, d in store._conn.execute("SELECT id, doc_id FROM passages")}

            store_ms, numpy_ms, hits_at_k, numpy_hits = [], [], 0, 0
            for repeat in range(args.repeats):
                for (pmid, _), vector in zip(questions, query_vectors, strict=True):
                    t = time.perf_counter()
                    hits = store.search(vector, args.k)
                    store_ms.append((time.perf_counter() - t) * 1000)

                    t = time.perf_counter()
                    scores = matrix_ram @ vector
                    top = np.argpartition(-scores, args.k - 1)[: args.k]
                    top = top[np.argsort(-scores[top])]
                    numpy_ms.append((time.perf_counter() - t) * 1000)

                    if repeat == 0:
                        hits_at_k += any(h.passage.doc_id == pmid for h in hits)
                        numpy_hits += any(id_to_doc[int(ids_ram[r])] == pmid for r in top)

    n = len(questions)
    s50, s99 = percentiles(store_ms)
    n50, n99 = percentiles(numpy_ms)
    print(f"questions           {n:>10}")
    recall, baseline = hits_at_k / n, numpy_hits / n
    print(f"own abstract top-{args.k}   {recall:>10.1%}   (numpy baseline {baseline:.1%})")
    print(f"query embed         {statistics.median(single_embed_ms):>9.1f} ms p50 (one question)")
    print(f"query embed batch   {embed_s / n * 1000:>9.2f} ms per question")
    print(f"{'':20}{'lastword':>12}{'numpy':>12}{'ratio':>8}")
    print(f"{'retrieve p50 (ms)':20}{s50:>12.3f}{n50:>12.3f}{s50 / n50:>8.2f}")
    print(f"{'retrieve p99 (ms)':20}{s99:>12.3f}{n99:>12.3f}{s99 / n99:>8.2f}")
    print("lastword's retrieve includes fetching the k passages' text and metadata from SQLite;")
    print("numpy is the bare product + partial sort over the same matrix held in RAM.")
    print("Both run on one BLAS thread: the store limits numpy's pool once for the process.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
