"""Benchmark: approximate search designs at 1M over a local store built by store_scale.py.

Reads a local index that ``bench/store_scale.py`` built (``--cache``: its matrix, ids, IVF lists
``ivf-<gen>.np?`` and hnswlib graph ``hnsw-<gen>.bin``) and PubMedQA's 300 real questions, and
measures, against exact search over the same rows:

- ``ceiling P,...``: the IVF lists alone, the share of the exact top 8 inside the P best cells
  (what any scan of those cells could find, at best) and the rows in them;
- ``walk P:EF:EXPAND:CAND,...``: hnswlib's bottom layer entered from the P best IVF cells
  (``bench/ann_walk.py``, a prototype kept out of the store), the best CAND re-scored exactly;
- ``faiss KIND:NPROBE:CAND,...``: faiss IVF over the same 2,003 centroids with compressed codes
  (``pq48``: PQ48x4 fast-scan, 24 B a row; ``pq96``: PQ96x4 fast-scan; ``rbq``: RaBitQ fast
  scan; ``sq8``: 8-bit scalar), NPROBE cells, the best CAND re-scored exactly against the
  matrix. Built once (``--work``) and reused; needs ``pip install faiss-cpu``.

Each row prints p50/p99 wall time and p50 CPU time of one search (the thread's own clock: on
a shared machine wall time is mostly waiting for a core), recall@8 against exact search, the
share of questions whose own abstract is in the top 8, QPS with 8 client threads and the load
average. Every result is a set of matrix rows re-scored exactly, as the local store returns.

    python bench/ann_designs.py --cache /tmp/s18/scale1m --ceiling 32,128,256 \\
        --walk 2:32:8:32 --faiss pq48:128:128,pq96:128:256
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one query, one core: before numpy loads

import numpy as np

from lastword.store import ivf

# bench-only prototype beside this file: the walk lost at 1M (docs/scale.md)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import ann_walk as walk

K = 8
FAISS_SPECS = {
    "pq48": "IVF{n},PQ48x4fs",
    "pq96": "IVF{n},PQ96x4fs",
    "rbq": "IVF{n},RaBitQfs",
    "sq8": "IVF{n},SQ8",
}


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


class Corpus:
    """The store's matrix, the IVF lists and the questions, with the exact top 8 of each."""

    def __init__(self, directory: Path, queries: int, work: Path) -> None:
        generation = int(next(directory.glob("ids-*.npy")).stem.split("-")[1])
        self.directory, self.generation = directory, generation
        self.matrix = np.asarray(np.load(directory / f"vectors-{generation}.npy", mmap_mode="r"))
        self.ids = np.load(directory / f"ids-{generation}.npy")
        cache = directory.parent
        saved = np.load(cache / "pubmedqa-minilm.npz")
        meta = json.loads((cache / "pubmedqa-minilm.json").read_text())
        self.questions = saved["questions"][:queries].astype(np.float32)
        self.pmids = meta["pmids"][:queries]
        # the real rows are the last ones, grouped by document as store_scale added them
        grouped: dict[str, list[int]] = {}
        for row, doc in enumerate(meta["doc_ids"]):
            grouped.setdefault(doc, []).append(row)
        first_real = len(self.ids) - len(meta["doc_ids"])
        self.doc_of_row = {
            first_real + i: doc
            for i, doc in enumerate(doc for doc, rows in grouped.items() for _ in rows)
        }
        work.mkdir(parents=True, exist_ok=True)
        truth_path = work / f"truth-{directory.name}-{queries}.npy"
        if truth_path.is_file():
            self.truth = np.load(truth_path)
        else:
            self.truth = exact_top(self.matrix, self.questions)
            np.save(truth_path, self.truth)
        self.lists = ivf.load(directory, generation, self.matrix)
        if self.lists is None:
            raise SystemExit(f"no IVF lists of generation {generation} in {directory}")

    def score(self, label: str, search, clients: int = 8) -> None:
        """Time ``search(query) -> matrix rows (best first)`` over every question."""
        search(self.questions[0])
        busy = load()
        wall, cpu, recalls, own = [], [], [], 0
        for q, vector in enumerate(self.questions):
            started, clock = time.perf_counter(), time.thread_time()
            rows = search(vector)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - clock) * 1000)
            recalls.append(len(set(rows.tolist()) & set(self.truth[q].tolist())) / K)
            own += any(self.doc_of_row.get(int(r)) == self.pmids[q] for r in rows)
        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(search, list(self.questions) * 2))
        qps = 2 * len(self.questions) / (time.perf_counter() - started)
        print(
            f"{label:28} {np.percentile(wall, 50):8.3f} {np.percentile(wall, 99):8.3f} "
            f"{np.percentile(cpu, 50):8.3f} {np.mean(recalls):9.4f} "
            f"{own / len(self.questions):8.1%} "
            f"{qps:7.0f} {busy:>5}",
            flush=True,
        )

    def rescore(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The best K of ``rows`` by their exact score, best first."""
        rows = np.sort(rows[rows >= 0])
        scores = self.matrix[rows] @ query
        return rows[np.argsort(-scores, kind="stable")[:K]]


def exact_top(matrix: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Matrix rows of each query's exact top K, best first (100k rows at a time)."""
    scores = np.empty((len(queries), 0), dtype=np.float32)
    rows = np.empty((len(queries), 0), dtype=np.int64)
    for start in range(0, len(matrix), 100_000):
        block = queries @ matrix[start : start + 100_000].T
        top = np.argpartition(-block, K, axis=1)[:, :K]
        scores = np.concatenate([scores, np.take_along_axis(block, top, 1)], axis=1)
        rows = np.concatenate([rows, top + start], axis=1)
    order = np.argsort(-scores, axis=1)[:, :K]
    return np.take_along_axis(rows, order, 1)


def ceiling(corpus: Corpus, probes: list[int]) -> None:
    """Recall@8 of a perfect scan of the P best cells, and the rows those cells hold."""
    lists = corpus.lists
    sizes = np.diff(lists.offsets)
    cell_of = np.empty(len(corpus.matrix), dtype=np.int64)
    cell_of[lists.rows] = np.repeat(np.arange(len(sizes)), sizes)
    cells = corpus.questions @ lists.centroids.T
    order = np.argsort(-cells, axis=1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(order.shape[1])[None, :], axis=1)
    needed = np.take_along_axis(rank, cell_of[corpus.truth], axis=1)
    for p in probes:
        scanned = np.mean([sizes[order[q, :p]].sum() for q in range(len(order))])
        print(
            f"ivf ceiling {p:>4} cells: recall@8 {np.mean(needed < p):.4f}, "
            f"{scanned:,.0f} rows in them"
        )


def walks(corpus: Corpus, specs: list[str]) -> None:
    level0 = walk.load_level0(
        corpus.directory / f"hnsw-{corpus.generation}.bin", corpus.matrix.shape[1], corpus.ids
    )
    if level0 is None:
        print("walk: no readable hnswlib graph")
        return
    for spec in specs:
        probes, ef, expand, candidates = (int(x) for x in spec.split(":"))

        def search(query, probes=probes, ef=ef, expand=expand, candidates=candidates):
            rows, scores = walk.seeds(corpus.lists, query, probes)
            found, _ = walk.walk(
                level0, query, rows, scores, ef=ef, expand=expand, candidates=candidates
            )
            return corpus.rescore(found, query)

        corpus.score(f"walk {spec}", search)


def faiss_index(corpus: Corpus, kind: str, work: Path):
    import faiss

    path = work / f"{kind}-{corpus.directory.name}.faiss"
    if path.is_file():
        return faiss.read_index(str(path))
    centroids = corpus.lists.centroids
    spec = FAISS_SPECS[kind].format(n=len(centroids))
    index = faiss.index_factory(corpus.matrix.shape[1], spec, faiss.METRIC_INNER_PRODUCT)
    index.quantizer.add(centroids)  # the store's own cells: the quantizer needs no training
    started = time.perf_counter()
    sample = corpus.matrix[np.random.default_rng(0).choice(len(corpus.matrix), 100_000, False)]
    index.train(np.ascontiguousarray(sample))
    for start in range(0, len(corpus.matrix), 100_000):
        block = np.ascontiguousarray(corpus.matrix[start : start + 100_000])
        index.add_with_ids(block, np.arange(start, start + len(block), dtype=np.int64))
    faiss.write_index(index, str(path))
    print(
        f"faiss {spec}: built in {time.perf_counter() - started:.0f}s (load {load()}), "
        f"{path.stat().st_size / 2**20:,.0f} MB on disk"
    )
    return index


def faiss_runs(corpus: Corpus, specs: list[str], work: Path) -> None:
    import faiss

    faiss.omp_set_num_threads(1)
    built: dict[str, object] = {}
    for spec in specs:
        kind, nprobe, candidates = spec.split(":")
        if kind not in built:
            faiss.omp_set_num_threads(2)
            built[kind] = faiss_index(corpus, kind, work)
            faiss.omp_set_num_threads(1)
        index = built[kind]
        params = faiss.SearchParametersIVF(nprobe=int(nprobe))

        def search(query, index=index, params=params, candidates=int(candidates)):
            _, labels = index.search(query[None], candidates, params=params)
            return corpus.rescore(labels[0], query)

        corpus.score(f"faiss {spec}", search)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="store_scale.py's --cache.")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lastword-ann-designs"))
    parser.add_argument("--ceiling", default="", help="IVF cells, comma list.")
    parser.add_argument("--walk", default="", help="PROBES:EF:EXPAND:CANDIDATES, comma list.")
    parser.add_argument("--faiss", default="", help="KIND:NPROBE:CANDIDATES, comma list.")
    parser.add_argument("--haystack", choices=("uniform", "matched"), default="uniform")
    args = parser.parse_args()
    suffix = "" if args.haystack == "uniform" else f"-{args.haystack}"
    corpus = Corpus(args.cache / f"local-{args.size}{suffix}", args.queries, args.work)
    print(
        f"{len(corpus.ids):,} rows, {len(corpus.questions)} PubMedQA questions; load average "
        f"{load()} on {os.cpu_count()} cores shared with other work: wall times are upper bounds"
    )
    if args.ceiling:
        ceiling(corpus, [int(x) for x in args.ceiling.split(",")])
    print(
        f"{'design':28} {'p50 ms':>8} {'p99 ms':>8} {'cpu p50':>8} {'recall@8':>9} "
        f"{'own top8':>8} {'QPS x8':>7} {'load':>5}"
    )
    if args.walk:
        walks(corpus, args.walk.split(","))
    if args.faiss:
        faiss_runs(corpus, args.faiss.split(","), args.work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
