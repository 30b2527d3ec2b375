"""Benchmark: HNSW recall when the real passages are inserted last into a graph of filler.

Why the 1M store_scale graph misses the PubMedQA passages: hnswlib directly, N filler unit
vectors plus the 3,358 real PubMedQA passages (MiniLM, from store_scale's cache), 300 real
questions, recall@8 of the top ``--candidates`` re-scored exactly (as the local store does),
for filler-first, shuffled and real-first insertion, at two (M, ef_construction) settings,
and once with filler shaped like the real vectors (their mean and covariance).

    python bench/ann_insert_order.py [--size 50000] [--cache /tmp/lastword-scale]

Needs the cache written by ``bench/store_scale.py`` (pubmedqa-minilm.npz). Say how busy the
machine was: build times depend on it, recall does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import hnswlib
import numpy as np

K = 8


def unit(rows: np.ndarray) -> np.ndarray:
    rows = rows.astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def recall(filler, real, queries, order: str, m: int, efc: int, ef: int, candidates: int, rng):
    data = np.concatenate([filler, real])
    labels = np.arange(len(data))
    truth = np.argsort(-(queries @ data.T), axis=1)[:, :K]
    if order == "filler first":
        idx = labels
    elif order == "real first":
        idx = np.concatenate([labels[len(filler) :], labels[: len(filler)]])
    else:
        idx = rng.permutation(labels)
    graph = hnswlib.Index(space="ip", dim=data.shape[1])
    graph.init_index(len(data), M=m, ef_construction=efc)
    started = time.perf_counter()
    graph.add_items(data[idx], idx)
    took = time.perf_counter() - started
    graph.set_ef(max(ef, candidates))
    found, _ = graph.knn_query(queries, k=candidates)
    shares = []
    for q, row in enumerate(found):
        top = row[np.argsort(-(data[row] @ queries[q]))[:K]]
        shares.append(len(set(top) & set(truth[q])) / K)
    return float(np.mean(shares)), took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50_000, help="Filler rows.")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "lastword-scale"
    )
    parser.add_argument("--ef", type=int, default=128)
    parser.add_argument("--candidates", type=int, default=64)
    args = parser.parse_args()
    saved = np.load(args.cache / "pubmedqa-minilm.npz")
    real, queries = unit(saved["passages"]), unit(saved["questions"][:300])
    rng = np.random.default_rng(0)
    isotropic = unit(rng.normal(size=(args.size, real.shape[1])))
    shaped = unit(rng.multivariate_normal(real.mean(0), np.cov(real.T), size=args.size))
    print(f"{args.size:,} filler + {len(real):,} real PubMedQA rows, {len(queries)} questions")
    runs = [
        (isotropic, "isotropic", order, m, efc)
        for m, efc in ((8, 32), (16, 64))
        for order in ("filler first", "shuffled", "real first")
    ] + [(shaped, "shaped", "filler first", 8, 32)]
    for filler, name, order, m, efc in runs:
        share, took = recall(filler, real, queries, order, m, efc, args.ef, args.candidates, rng)
        print(
            f"{name:10} {order:13} M={m:<3} ef_construction={efc:<4} ef={args.ef} "
            f"candidates={args.candidates}: recall@8 {share:.3f} (build {took:.0f}s, "
            f"load average {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
