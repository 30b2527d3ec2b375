"""Benchmark: filtered search (a Scope: collections, years, a reader) beside unfiltered search.

For each backend (local exact, local HNSW, pgvector HNSW) it prints p50/p99 of
``Store.search_ids(q, 8)`` without a scope and with each scope, and the recall@8 of every
filtered search against the exact search over the same scope (the local exact store's).

The corpus is synthetic (speed, not relevance): documents of --per-doc unit vectors around a
document centre (so neighbours exist, as in real text), years 2000-2024, and two collections:
``small`` (10% of the documents, read by user:alice) and ``half`` (50%). The queries are
perturbed rows of the corpus. Scopes measured:

    collection=small   10% of the passages: scored exactly over the scope's rows
    collection=half    50%: the graph walk admits only the scope's passages (hnswlib filter)
    years 2020..2024   20%, on the documents' metadata
    reader alice       the documents alice may see (small, and every unrestricted one)

Targets (issue 30): recall@8 of filtered ANN >= 0.98 against exact filtered search; filtered
p50 <= 2x unfiltered p50.

    python bench/filters.py --size 12000                 # local exact, HNSW and pgvector
    python bench/filters.py --size 1000000 --per-doc 100 --pg-size 0   # local only at 1M
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.scope import Reader, Scope, make_scope
from lastword.settings import StoreSettings
from lastword.store import open_store
from lastword.store.protocol import DocumentRecord, NewPassage, Store

DIM = 384
K = 8
INFO = EmbedderInfo(name="minilm", model="sentence-transformers/all-MiniLM-L6-v2", dim=DIM)


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def corpus(size: int, per_doc: int, seed: int = 7):
    """(record, passages, vectors) per document, the same on every run."""
    rng = np.random.default_rng(seed)
    added = datetime(2026, 1, 1, tzinfo=UTC).isoformat()
    for start in range(0, size, per_doc):
        d = start // per_doc
        n = min(per_doc, size - start)
        centre = rng.normal(size=DIM)
        centre /= np.linalg.norm(centre)
        rows = centre + rng.normal(scale=0.06, size=(n, DIM))
        rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
        doc = f"doc-{d}"
        meta = {"year": 2000 + d % 25, "authors": [f"Author {d % 7}"], "tags": [f"t{d % 3}"]}
        record = DocumentRecord(doc, doc, doc, f"h-{doc}", None, n, added, meta)
        texts = [f"passage {start + i} of document {d}" for i in range(n)]
        passages = [NewPassage(None, i, 0, len(t), t) for i, t in enumerate(texts)]
        yield record, passages, rows


def collections_of(documents: int) -> dict[str, list[str]]:
    return {
        "small": [f"doc-{d}" for d in range(documents) if d % 10 == 0],
        "half": [f"doc-{d}" for d in range(documents) if d % 2 == 1],
    }


def build(store: Store, size: int, per_doc: int) -> np.ndarray:
    """Fill ``store``; returns the vectors of every row (for the queries)."""
    started, rows = time.perf_counter(), []
    for i, (record, passages, vectors) in enumerate(corpus(size, per_doc)):
        store.put_document(record, passages, vectors)
        if i % 200 == 199:
            store.commit()
        if len(rows) < 2000:
            rows.append(vectors[0])
    store.commit()
    documents = (size + per_doc - 1) // per_doc
    for name, docs in collections_of(documents).items():
        store.add_to_collection(name, docs)
    store.set_readers("small", ["user:alice"])
    store.set_readers("half", ["user:bob"])
    store.commit()
    print(f"  {size:,} rows loaded in {time.perf_counter() - started:.0f}s", flush=True)
    return np.array(rows)


def queries(rows: np.ndarray, n: int) -> np.ndarray:
    rng = np.random.default_rng(11)
    picked = rows[rng.integers(0, len(rows), size=n)]
    noisy = picked + rng.normal(scale=0.05, size=picked.shape)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


SCOPES: dict[str, Scope | None] = {
    "unfiltered": None,
    "collection=small (10%)": make_scope(collections=["small"]),
    "collection=half (50%)": make_scope(collections=["half"]),
    "years 2020..2024 (20%)": make_scope(years="2020..2024"),
    "reader alice": Scope(reader=Reader("alice")),
}


def timed(store: Store, qs: np.ndarray, scope: Scope | None) -> tuple[list[list[int]], np.ndarray]:
    store.search_ids(qs[0], K, scope=scope)  # the scope's rows resolved once per generation
    found, times = [], []
    for q in qs:
        started = time.perf_counter()
        ids, _ = store.search_ids(q, K, scope=scope)
        times.append((time.perf_counter() - started) * 1000)
        found.append(ids.tolist())
    return found, np.array(times)


def report(label: str, store: Store, qs: np.ndarray, truth: dict[str, list[list[int]]]) -> dict:
    out = {}
    base = None
    for name, scope in SCOPES.items():
        found, times = timed(store, qs, scope)
        recall = np.mean(
            [len(set(f) & set(t)) / max(len(t), 1) for f, t in zip(found, truth[name], strict=True)]
        )
        p50, p99 = np.percentile(times, 50), np.percentile(times, 99)
        base = p50 if scope is None else base
        ratio = f"{p50 / base:4.2f}x" if base else "  -  "
        print(
            f"  {label:<14} {name:<24} p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  {ratio} "
            f"recall@8 {recall:.3f}  (load {load()})",
            flush=True,
        )
        out[name] = (p50, p99, recall)
    return out


def exact_truth(directory: Path, qs: np.ndarray) -> dict[str, list[list[int]]]:
    settings = StoreSettings(ann_min_passages=10**12, int8_min_passages=10**12)
    with open_store(settings, directory) as store:
        return {name: timed(store, qs, scope)[0] for name, scope in SCOPES.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=12_000, help="Passages.")
    parser.add_argument("--per-doc", type=int, default=20, help="Passages per document.")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--pg-size", type=int, default=None, help="pgvector rows (0: skip).")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "lw-filters")
    parser.add_argument("--ann-m", type=int, default=32)
    parser.add_argument("--ann-ef-construction", type=int, default=100)
    parser.add_argument("--ann-ef", type=int, default=64, help="HNSW ef_search.")
    parser.add_argument("--pg-ef", type=int, default=100, help="pgvector hnsw.ef_search.")
    args = parser.parse_args()
    print(f"filtered search, {args.size:,} passages, {args.queries} queries, load {load()}")

    directory = args.cache / f"local-{args.size}-{args.per_doc}"
    ann = StoreSettings(
        ann_min_passages=1,
        ann_m=args.ann_m,
        ann_ef_construction=args.ann_ef_construction,
        ann_ef_search=args.ann_ef,
    )
    if not (directory / "index.sqlite").is_file():
        with open_store(
            ann.model_copy(update={"ann_min_passages": 10**12}), directory, write_as=INFO
        ) as store:
            build(store, args.size, args.per_doc)
            store.refresh_derived()
        started = time.perf_counter()
        with open_store(ann, directory, write_as=INFO) as store:
            store.refresh_derived()  # the graph
        print(f"  HNSW graph built in {time.perf_counter() - started:.0f}s", flush=True)
    rows = np.array([v[0] for _, _, v in corpus(min(args.size, 40_000), args.per_doc)])
    qs = queries(rows, args.queries)
    truth = exact_truth(directory, qs)
    results = {}
    exact = StoreSettings(ann_min_passages=10**12)
    with open_store(exact, directory) as store:
        results["local exact"] = report("local exact", store, qs, truth)
    with open_store(ann, directory) as store:
        results["local HNSW"] = report("local HNSW", store, qs, truth)

    pg_size = args.size if args.pg_size is None else args.pg_size
    if pg_size:
        if pg_size != args.size:
            print("  (pgvector at another size is not compared: give --pg-size = --size)")
        else:
            from lastword.store.devserver import fresh_schema, running_postgres

            with running_postgres(args.cache / "postgres") as dsn:
                pg = StoreSettings(
                    backend="postgres",
                    dsn=dsn,
                    schema_name=fresh_schema(),
                    pg_ef_search=args.pg_ef,
                )
                started = time.perf_counter()
                with open_store(pg, directory, write_as=INFO) as store:
                    store.drop_vector_index()
                    build(store, args.size, args.per_doc)
                    store.create_vector_index()
                    store.commit()
                print(f"  pgvector loaded and indexed in {time.perf_counter() - started:.0f}s")
                with open_store(pg, directory) as store:
                    results["pgvector HNSW"] = report("pgvector HNSW", store, qs, truth)

    print("\ntargets: filtered ANN recall@8 >= 0.98, filtered p50 <= 2x unfiltered p50")
    for backend, rows_ in results.items():
        base = rows_["unfiltered"][0]
        for name, (p50, _, recall) in rows_.items():
            if name == "unfiltered":
                continue
            ok = recall >= 0.98 and p50 <= 2 * base
            print(
                f"  {'ok  ' if ok else 'MISS'} {backend:<14} {name:<24} "
                f"{p50 / base:4.2f}x, recall {recall:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
