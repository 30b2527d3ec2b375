"""Benchmark: the store's hnswlib graph searched by faiss, over float32 rows or 8-bit codes.

A 1M HNSW search is memory-bound: each distance reads a 1,536-byte float32 row at a random
address. This bench converts a saved hnswlib graph (the store's ``hnsw-<gen>.bin``) into a
faiss ``IndexHNSWFlat`` (the same rows, float32) and an ``IndexHNSWSQ`` (the same links, rows
as 8-bit scalar codes, 384 bytes a row, trained on a sample) without building anything, then
measures, question by question, interleaved:

- hnswlib's own search (the shipped path's index call),
- faiss's walk over the same graph with float32 rows (proof the conversion is right: same
  recall at the same ef; and whether faiss's walk is itself faster),
- faiss's walk over 8-bit codes, its candidates re-scored exactly against the matrix,

each with wall time, thread CPU time and recall@8 against an exact top 8 over the matrix.

    python bench/ann_sq8.py --store /tmp/s21/scale32/local-1000000 --work /tmp/s24/hnsw \
        --questions /tmp/s18/scale1m/pubmedqa-minilm.npz --ef 64,96,128,192
    python bench/ann_sq8.py --store /tmp/s24/hnsw/cache/local-1000000 --work /tmp/s24/hnsw \
        --questions /tmp/s18/scale1m/pubmedqa-minilm.npz --ef 128,144,160 \
        --kinds store-float32,store-sq8,store-sq4      # Store.search, the three side by side
    python bench/ann_sq8.py ... --kinds store-sq4 --ef 128 --candidates 32 --stages
        # where a Store.search goes: walk, re-score, passages, reading

Numbers are from whatever machine runs it: every row prints the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from lastword.store import ann, graph_codes

K = 8


def exact_truth(matrix: np.ndarray, queries: np.ndarray, cache: Path) -> np.ndarray:
    """Matrix rows of the exact top K for each query (cached: a 1M product takes a while)."""
    if cache.is_file():
        saved = np.load(cache)
        if saved.shape == (len(queries), K):
            return saved
    top = []
    for start in range(0, len(queries), 100):
        scores = np.asarray(matrix) @ queries[start : start + 100].T
        top.append(np.argpartition(-scores, K, axis=0)[:K].T)
    truth = np.concatenate(top)
    np.save(cache, truth)
    return truth


def convert(graph: Path, kind: str, cached: Path):
    """The faiss index of ``graph`` with rows as ``kind``, written to ``cached``."""
    import faiss

    start, cpu = time.perf_counter(), time.process_time()
    index = graph_codes.from_hnswlib(graph, codes=kind)
    print(
        f"{kind}: converted in {time.perf_counter() - start:.1f} s wall, "
        f"{time.process_time() - cpu:.1f} s CPU",
        flush=True,
    )
    faiss.write_index(index, str(cached))
    return index


def open_stores(directory: Path, kinds: list[str], candidates: int) -> dict:
    """``store-<codes>`` kinds: the store at ``directory`` read with ``[store] ann_codes``
    ``<codes>``, searched through ``Store.search`` (its graph or codes written by a writer)."""
    from lastword.settings import StoreSettings
    from lastword.store.local import LocalStore

    stores = {}
    for kind in kinds:
        codes = kind.removeprefix("store-")
        settings = StoreSettings(ann_codes=codes, ann_candidates=candidates)
        store = LocalStore.open(directory, settings)
        store.search(np.ones(store.embedder.dim, dtype=np.float32) / 20, K)  # loads the graph
        if (codes == "float32") == isinstance(store._graph, graph_codes.CodedGraph):
            raise SystemExit(
                f"{directory} has no {codes} codes for its generation: write them first "
                f"(bench/store_scale.py --cache ... --ann-codes {codes})"
            )
        stores[kind] = store
    return stores


def stages(store, queries: np.ndarray, candidates: int, rounds: int = 3) -> None:
    """Where one ``Store.search(q, 8)`` over a coded graph goes, stage by stage: thread CPU
    medians (``time.thread_time_ns``) of the same calls ``Store.search`` makes, in its order;
    the first pass meets each question's rows for the first time, as bench/store_scale.py does."""
    graph, ids = store._graph, store._ids
    matrix = np.asarray(store._matrix)
    clock = time.thread_time_ns
    names = ("reading", "walk", "rescore", "ids", "passages", "total")
    for round_ in range(rounds):
        spent: dict[str, list[float]] = {name: [] for name in names}
        for q in queries:
            t0 = clock()
            with store.reading():
                t1 = clock()
                labels = graph_codes.neighbours(graph, q, candidates)
                t2 = clock()
                rows, scores = ann.rescore(labels[labels >= 0], matrix, ids, q, K)
                t3 = clock()
                found = ids[rows].astype(np.int64), np.asarray(scores, dtype=np.float64)
                t4 = clock()
                store._hits(*found)
                t5 = clock()
            t6 = clock()
            for name, ns in zip(
                names, (t1 - t0 + t6 - t5, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t0), strict=True
            ):
                spent[name].append(ns / 1e6)
        print(
            ("first pass, each question new" if round_ == 0 else "again, the same questions")
            + " (thread CPU p50 ms): "
            + ", ".join(f"{name} {np.median(spent[name]):.3f}" for name in names)
            + f"; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )


def timed(fn):
    wall, cpu = time.perf_counter(), time.thread_time()
    result = fn()
    return result, time.perf_counter() - wall, time.thread_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="A local store directory.")
    parser.add_argument("--work", type=Path, required=True, help="Where converted indexes go.")
    parser.add_argument("--questions", type=Path, required=True, help="npz with 'questions'.")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="First question used (0: the 300 tuned on; 300: held-out questions 300-599).",
    )
    parser.add_argument("--ef", default="64,96,128,192", help="efSearch values.")
    parser.add_argument("--candidates", type=int, default=64, help="Re-scored exactly (SQ8).")
    parser.add_argument(
        "--kinds",
        default="hnswlib,flat,sq8,sq8-bounded",
        help="Comma list: hnswlib, or faiss's row format (flat, fp16, sq8, sq6, sq4, pq48, pq96, "
        "pq192) with -bounded for faiss's bounded queue, or store-float32 / store-sq8 / "
        "store-sq4: Store.search on the --store read with that [store] ann_codes",
    )
    parser.add_argument(
        "--small-pages",
        action="store_true",
        help="Leave faiss's arrays on 4 KB pages (the store asks for 2 MB pages; hnswlib's "
        "memory gets them only with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 set at start).",
    )
    parser.add_argument("--repeat", type=int, default=1, help="Passes over the questions.")
    parser.add_argument(
        "--stages",
        action="store_true",
        help="For each store-<codes> kind over codes: where Store.search's time goes (the walk, "
        "the exact re-score, the 8 passages, the reading around them), then stop.",
    )
    args = parser.parse_args()
    import faiss

    faiss.omp_set_num_threads(1)
    kinds = args.kinds.split(",")
    graphs = sorted(args.store.glob("hnsw-*.bin"))
    if not graphs:
        print(f"no hnsw-*.bin in {args.store}", file=sys.stderr)
        return 2
    graph = graphs[-1]
    gen = graph.stem.split("-")[1]
    matrix = np.load(args.store / f"vectors-{gen}.npy", mmap_mode="r")
    ids = np.load(args.store / f"ids-{gen}.npy")
    chosen = slice(args.first, args.first + args.queries)
    queries = np.load(args.questions)["questions"][chosen].astype(np.float32)
    args.work.mkdir(parents=True, exist_ok=True)
    cache = args.work / f"truth-{gen}-{args.first}-{len(queries)}.npy"
    truth = exact_truth(matrix, queries, cache)
    truth_ids = [set(ids[row].tolist()) for row in truth]
    print(
        f"graph {graph} ({graph.stat().st_size / 2**30:.2f} GiB), {len(ids):,} rows, "
        f"questions {args.first}-{args.first + len(queries) - 1}; "
        f"GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')!r}; "
        f"faiss {faiss.__version__} ({faiss.get_compile_options()}); "
        f"load {os.getloadavg()[0]:.1f} (2 shared cores: a busy machine)",
        flush=True,
    )
    indexes = {}
    stores = open_stores(args.store, [k for k in kinds if k.startswith("store-")], args.candidates)
    for kind in dict.fromkeys(k.split("-")[0] for k in kinds if k != "hnswlib" and k not in stores):
        cached = args.work / f"hnsw{kind}-{gen}.faiss"
        if cached.is_file():
            indexes[kind] = faiss.read_index(str(cached))
            print(f"{kind}: read {cached}", flush=True)
        else:
            indexes[kind] = convert(graph, kind, cached)
        if not args.small_pages:
            started = time.perf_counter()
            graph_codes.on_huge_pages(indexes[kind])  # as the store's reader does
            print(f"  on 2 MB pages in {time.perf_counter() - started:.1f} s", flush=True)
    if args.stages:
        for kind, store in stores.items():
            if isinstance(store._graph, graph_codes.CodedGraph):
                store._graph.ef = int(args.ef.split(",")[0])
                print(f"{kind}, ef {store._graph.ef}, {args.candidates} candidates:", flush=True)
                stages(store, queries, args.candidates)
        return 0
    hnsw = None
    if "hnswlib" in kinds:
        import hnswlib

        hnsw = hnswlib.Index(space="ip", dim=matrix.shape[1])
        hnsw.load_index(str(graph))
        hnsw.set_num_threads(1)

    coded = {kind: graph_codes.CodedGraph(index, 64) for kind, index in indexes.items()}

    def run(kind: str, ef: int, q: np.ndarray) -> np.ndarray:
        """Passage ids of the top K for one question."""
        if kind in stores:
            store = stores[kind]
            if isinstance(store._graph, graph_codes.CodedGraph):
                store._graph.ef = ef
            else:
                store._graph.set_ef(ef)
            return np.array([h.passage.passage_id for h in store.search(q, K)])
        if kind == "hnswlib":
            hnsw.set_ef(ef)
            labels, _ = hnsw.knn_query(q.reshape(1, -1), k=args.candidates)
            labels = labels[0].astype(np.int64)
        else:
            graph = coded[kind.split("-")[0]]  # made once: as the store holds it
            graph.ef = ef
            bounded = kind.endswith("bounded")
            labels = graph_codes.neighbours(graph, q, args.candidates, bounded=bounded)
        found = ann.rescore(labels[labels >= 0], matrix, ids, q, K)
        return np.empty(0, dtype=np.int64) if found is None else ids[found[0]]

    # warm: one pass over every question with each index (pages of the graph, codes, matrix)
    for kind in kinds:
        for q in queries:
            run(kind, 64, q)
    print(f"warmed; load {os.getloadavg()[0]:.1f}", flush=True)
    efs = [int(e) for e in args.ef.split(",")]
    results: dict[tuple[str, int], dict[str, list[float]]] = {}
    for _ in range(args.repeat):
        for i, q in enumerate(queries):  # interleaved: every kind and ef on the same question
            for ef in efs:
                for kind in kinds:
                    found, wall, cpu = timed(lambda kind=kind, ef=ef, q=q: run(kind, ef, q))
                    row = results.setdefault((kind, ef), {"wall": [], "cpu": [], "recall": []})
                    row["wall"].append(wall)
                    row["cpu"].append(cpu)
                    row["recall"].append(len(set(found.tolist()) & truth_ids[i]) / K)
    print(
        f"\n{len(queries)} questions x {args.repeat}, candidates {args.candidates} re-scored "
        f"exactly; load {os.getloadavg()[0]:.1f} at the end (shared machine)"
    )
    print("| index | ef | p50 ms | thread CPU p50 ms | p99 ms | recall@8 |")
    print("|---|---|---|---|---|---|")
    for (kind, ef), row in sorted(results.items(), key=lambda item: (item[0][1], item[0][0])):
        print(
            f"| {kind} | {ef} | {np.median(row['wall']) * 1000:.3f} | "
            f"{np.median(row['cpu']) * 1000:.3f} | {np.percentile(row['wall'], 99) * 1000:.2f} | "
            f"{np.mean(row['recall']):.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
