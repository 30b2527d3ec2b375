"""Benchmark: search at scale: local exact, local HNSW or IVF, and pgvector side by side.

The corpus: the real PubMedQA PQA-L passages (ingested and embedded with MiniLM by the real
ingest, cached) first, then synthetic unit vectors up to --size x 384 (--haystack: uniform on
the sphere, or matched to the real passages' mean and covariance). The queries: PubMedQA's
real questions. For every backend it prints p50/p99 of ``Store.search(q, 8)`` (one client),
recall@8 against exact search over the same rows, the share of questions whose own abstract is
in the top 8, and queries/s with --clients concurrent clients. pgvector runs on a throwaway
PostgreSQL 18 + pgvector 0.8 (lastword.store.devserver), possibly at a smaller --pg-size: its
HNSW build over 1M rows on 2 shared cores takes far longer than hnswlib's. Built indexes are
kept in --cache and reused by the next run of the same size.

    python bench/store_scale.py [--size 1000000] [--pg-size 200000] [--queries 300]
    python bench/store_scale.py --size 1000000 --pg-size 1000000 \
        --ann 128:64,64:32,32:16 --pg-ef 40,100,200     # query-time settings side by side
    python bench/store_scale.py --ann-kind ivf --ivf 8,16,32 \
        --pg-index ivfflat --pg-probes 5,10,20          # inverted lists, local and pgvector
    python bench/store_scale.py --ann-kind ivfpq --ivfpq 64:128,128:256 --pg-size 0
                                                    # inverted lists of 4-bit codes (faiss)
    python bench/store_scale.py --ann-codes sq8 --ann 128:64,160:64 --pg-size 0
                                                    # the graph over 8-bit codes (faiss)

Every row prints the load average when it was measured, and each backend its build time and
its size on disk and in memory.

Targets (issue 15): local ANN p50 <= 1 ms with recall@8 >= 0.98; pgvector p50 <= 10 ms with
recall@8 >= 0.95. Numbers are from whatever machine runs it: say how busy it was.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.settings import IngestSettings, StoreSettings
from lastword.store.local import LocalStore
from lastword.store.protocol import DocumentRecord, NewPassage, Store

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
DIM = 384
K = 8
SYNTHETIC_PER_DOC = 500


def rss_mb() -> float:
    """This process's resident memory (MB): mapped matrix pages it touched plus its heap."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def size_mb(path: Path) -> float:
    return path.stat().st_size / 2**20 if path.is_file() else 0.0


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def pubmedqa(cache: Path, data: Path):
    """(passage vectors, their doc ids, their texts), (question pmids, question vectors)."""
    path = cache / "pubmedqa-minilm.npz"
    if path.is_file():
        saved = np.load(path, allow_pickle=False)
        meta = json.loads((cache / "pubmedqa-minilm.json").read_text())
        return (saved["passages"], meta["doc_ids"], meta["texts"]), (
            meta["pmids"],
            saved["questions"],
        )
    from lastword.embed.minilm import MiniLMEmbedder
    from lastword.evaluate.datasets.pubmedqa import corpus_record, load_pubmedqa
    from lastword.ingest import ingest_paths

    records, _ = load_pubmedqa(data)
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory(prefix="lastword-scale-") as scratch:
        corpus = Path(scratch) / "pubmedqa.jsonl"
        with corpus.open("w", encoding="utf-8") as handle:
            for pmid, record in records.items():
                handle.write(json.dumps(corpus_record(pmid, record)) + "\n")
        ingest_paths([corpus], Path(scratch) / "index", embedder, IngestSettings())
        with LocalStore.open(Path(scratch) / "index") as store:
            rows = store._conn.execute("SELECT doc_id, text, vector FROM passages ORDER BY id")
            doc_ids, texts, vectors = [], [], []
            for doc_id, text, blob in rows:
                doc_ids.append(doc_id)
                texts.append(text)
                vectors.append(np.frombuffer(blob, dtype="<f4"))
    pmids = list(records)
    questions = embedder.embed_queries([records[p]["QUESTION"] for p in pmids])
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, passages=np.stack(vectors), questions=questions)
    meta = {"doc_ids": doc_ids, "texts": texts, "pmids": pmids}
    (cache / "pubmedqa-minilm.json").write_text(json.dumps(meta))
    return (np.stack(vectors), doc_ids, texts), (pmids, questions)


class Haystack:
    """How the synthetic part is drawn.

    ``uniform``: unit vectors uniform on the sphere. Nothing in them is near anything, so
    every query's neighbours are the 3,358 real passages, spread thin through a million
    mutually orthogonal points: the worst case for a graph or for k-means cells, and not
    what a million real passages look like.

    ``matched``: unit vectors drawn from a Gaussian with the mean and covariance of the real
    passages' MiniLM vectors, so the synthetic rows sit where real ones do (mean pairwise
    cosine 0.11 against the real passages' 0.12) and compete with them for the top 8.
    """

    kind = "uniform"
    mean: np.ndarray | None = None
    factor: np.ndarray | None = None

    @classmethod
    def match(cls, vectors: np.ndarray) -> None:
        data = np.asarray(vectors, dtype=np.float64)
        cls.kind = "matched"
        cls.mean = data.mean(axis=0)
        covariance = np.cov(data, rowvar=False) + 1e-8 * np.eye(data.shape[1])
        cls.factor = np.linalg.cholesky(covariance).T

    @classmethod
    def suffix(cls) -> str:
        return "" if cls.kind == "uniform" else f"-{cls.kind}"


def synthetic(start: int, stop: int) -> np.ndarray:
    """Rows start..stop of the synthetic part: unit vectors, the same on every run."""
    rng = np.random.default_rng(start)
    block = rng.normal(size=(stop - start, DIM))
    if Haystack.kind == "matched":
        block = Haystack.mean + block @ Haystack.factor
    block = block.astype(np.float32)
    return block / np.linalg.norm(block, axis=1, keepdims=True)


def _document(doc_id: str, rows: list[str], block: np.ndarray):
    added = datetime(2026, 1, 1, tzinfo=UTC).isoformat()
    record = DocumentRecord(doc_id, doc_id, doc_id, f"h-{doc_id}", None, len(rows), added, {})
    new = [NewPassage(None, i, 0, len(t), t) for i, t in enumerate(rows)]
    return record, new, np.ascontiguousarray(block, dtype=np.float32)


def synthetic_documents(size: int):
    """The synthetic part, SYNTHETIC_PER_DOC unit vectors a document, the same on every run."""
    for start in range(0, size, SYNTHETIC_PER_DOC):
        n = min(SYNTHETIC_PER_DOC, size - start)
        words = [f"synthetic passage {start + i} of a filler document" for i in range(n)]
        yield _document(
            f"synthetic-{start // SYNTHETIC_PER_DOC}", words, synthetic(start, start + n)
        )


def real_documents(real):
    """The PubMedQA part: documents, passages and MiniLM vectors as the real ingest made them."""
    vectors, doc_ids, texts = real
    order: dict[str, list[int]] = {}
    for row, doc_id in enumerate(doc_ids):
        order.setdefault(doc_id, []).append(row)
    for doc_id, rows in order.items():
        yield _document(doc_id, [texts[r] for r in rows], vectors[rows])


def fill(store: Store, documents, label: str) -> int:
    started, done = time.perf_counter(), 0
    have = store.document_hashes()
    for record, passages, vectors in documents:
        if record.doc_id in have:
            continue
        store.put_document(record, passages, vectors)
        done += len(passages)
        if done % 100_000 < len(passages):
            store.commit()
            print(
                f"  {label}: {done:,} rows loaded, {time.perf_counter() - started:.0f}s", flush=True
            )
    store.commit()
    print(f"  {label}: {done:,} rows loaded in {time.perf_counter() - started:.0f}s", flush=True)
    return done


def info() -> EmbedderInfo:
    return EmbedderInfo(name="minilm", model="sentence-transformers/all-MiniLM-L6-v2", dim=DIM)


def build_local(cache: Path, real, size: int, settings: StoreSettings) -> Path:
    """The local index: ``size`` synthetic rows (graph or lists built), then the real ones
    added. The lists are trained again over every row once the real ones are in (as a
    corpus that grows does past ``ivf.RETRAIN_SHARE``), so they are not a tail scanned exactly."""
    directory = cache / f"local-{size}{Haystack.suffix()}"
    print(f"local index at {directory}", flush=True)
    with LocalStore.open_for_write(directory, info(), settings) as store:
        store.settings = settings.model_copy(update={"ann_min_passages": 10**12})
        fill(store, synthetic_documents(size), "local synthetic")
        started = time.perf_counter()
        store.refresh_derived()
        print(f"  matrix + lexicon written in {time.perf_counter() - started:.0f}s", flush=True)
        store.settings = settings.model_copy(update={"ann_min_passages": 1})
        started = time.perf_counter()
        store.refresh_derived()
        took = time.perf_counter() - started
        cells = f"{settings.ivf_lists or 'about 2 x sqrt(N)'} cells"
        what = {
            "ivf": f"IVF lists ({cells})",
            "ivfpq": f"IVF-PQ codes ({cells}, faiss fast scan)",
        }.get(
            settings.ann,
            f"HNSW graph (M={settings.ann_m}, ef_construction={settings.ann_ef_construction})",
        )
        print(f"  {what} ready in {took:.0f}s, load average {load()}", flush=True)
        if real is not None and fill(store, real_documents(real), "local PubMedQA"):
            started = time.perf_counter()
            if settings.ann == "ivf":
                for old in directory.glob("ivf-*"):
                    old.unlink()  # train over every row, real ones included
            # (ivfpq: every generation is built afresh over every row)
            store.refresh_derived()
            took = time.perf_counter() - started
            print(f"  matrix + {what} updated for the PubMedQA rows in {took:.0f}s")
        elif real is not None and settings.ann == "ivf" and not list(directory.glob("ivf-*.npz")):
            store.refresh_derived()
    files = {
        name: sum(size_mb(p) for p in directory.glob(pattern))
        for name, pattern in (
            ("index.sqlite", "index.sqlite*"),
            ("matrix", "vectors-*.npy"),
            ("ids", "ids-*.npy"),
            ("lexicon", "lexicon-*.json"),
            ("HNSW graph", "hnsw-*.bin"),
            ("HNSW codes", "hnswsq?-*.faiss"),
            ("IVF lists", "ivf-*.np?"),
            ("IVF-PQ codes", "ivfpq-*.faiss"),
        )
    }
    print("  local sizes on disk: " + ", ".join(f"{k} {v:,.0f} MB" for k, v in files.items()))
    return directory


def build_pg_index(store, settings: StoreSettings) -> None:
    started = time.perf_counter()
    store._main.execute("SET maintenance_work_mem = '3GB'")
    store._main.execute("SET max_parallel_maintenance_workers = 1")
    what = (
        f"ivfflat (lists={settings.pg_lists or '2 x sqrt(rows)'})"
        if settings.pg_index == "ivfflat"
        else f"HNSW (m={settings.pg_m}, ef_construction={settings.pg_ef_construction})"
    )
    print(f"  building the pgvector {what} index (load average {load()})", flush=True)
    store.create_vector_index()
    store.commit()
    took = time.perf_counter() - started
    print(f"  pgvector {what} built in {took:.0f}s, load average {load()}", flush=True)


def build_postgres(dsn: str, real, size: int, settings: StoreSettings) -> StoreSettings:
    from lastword.store.postgres import PostgresStore
    from lastword.store.postgres_extras import built_precision, wanted_precision

    settings = settings.model_copy(
        update={
            "backend": "postgres",
            "dsn": dsn,
            "schema_name": (
                f"scale_{size}_ivfflat"
                if settings.pg_index == "ivfflat"
                else f"scale_{size}_m{settings.pg_m}_ef{settings.pg_ef_construction}"
            )
            + Haystack.suffix().replace("-", "_"),
        }
    )
    print(f"pgvector schema {settings.schema_name}", flush=True)
    last = f"synthetic-{(size - 1) // SYNTHETIC_PER_DOC}"
    with PostgresStore.open_for_write(dsn, info(), settings) as store:
        index = f"{settings.schema_name}.passages_embedding"
        built = store._main.execute("SELECT to_regclass(%s)", (index,)).fetchone()[0]
        store.commit()
        # A new schema comes with its (empty) HNSW index: load the synthetic rows with the index
        # dropped and build it once over them. An interrupted load resumes where it stopped.
        if last not in store.document_hashes() or built is None:
            store.drop_vector_index()
            store.commit()
            fill(store, synthetic_documents(size), "pgvector synthetic")
            # ivfflat lists are trained once, over every row, after the real ones are in
            if settings.pg_index == "hnsw" or real is None:
                build_pg_index(store, settings)
        if real is not None:
            added = fill(store, real_documents(real), "pgvector PubMedQA")  # into the live index
            built = store._main.execute("SELECT to_regclass(%s)", (index,)).fetchone()[0]
            store.commit()
            definition = store._main.execute(
                "SELECT pg_get_indexdef(to_regclass(%s))", (index,)
            ).fetchone()[0]
            store.commit()
            lists = f"lists='{settings.pg_lists}'"
            other_lists = settings.pg_lists and lists not in (definition or "").replace(" ", "")
            precision = built_precision(store._main, settings.schema_name)
            other_precision = precision != wanted_precision(store._main, settings)
            store.commit()
            if settings.pg_index == "ivfflat" and (
                added or built is None or other_lists or other_precision
            ):
                build_pg_index(store, settings)
            store.refresh_derived()
        table = f"{settings.schema_name}.passages"
        sizes = store._main.execute(
            "SELECT pg_relation_size(%s), pg_total_relation_size(%s), pg_relation_size(%s), "
            "current_setting('shared_buffers'), "
            "(SELECT extversion FROM pg_extension WHERE extname = 'vector'), version()",
            (table, table, index),
        ).fetchone()
        store.commit()
    mb = 2**20
    print(
        f"  pgvector sizes: passages table {sizes[0] / mb:,.0f} MB, with its indexes and TOAST "
        f"{sizes[1] / mb:,.0f} MB, of which the vector index {sizes[2] / mb:,.0f} MB; "
        f"shared_buffers {sizes[3]}; pgvector {sizes[4]}; {sizes[5].split(' on ')[0]}",
        flush=True,
    )
    return settings


def prewarm(dsn: str, schema: str) -> None:
    """Read the vector index, the table and its key into shared_buffers (``pg_prewarm``), as a
    server that has been answering for a while holds them: timings without cold reads."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        started = time.perf_counter()
        pages = 0
        toast = conn.execute(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = %s::regclass",
            (f"{schema}.passages",),
        ).fetchone()[0]  # long rows' vectors and texts (the real passages') are kept there
        relations = [f"{schema}.{name}" for name in ("passages_embedding", "passages")]
        relations += [f"{schema}.{name}" for name in ("passages_pkey", "documents_pkey")]
        relations += [toast, f"{toast}_index"]
        for relation in relations:
            pages += conn.execute("SELECT pg_prewarm(%s)", (relation,)).fetchone()[0]
        buffers = conn.execute("SELECT current_setting('shared_buffers')").fetchone()[0]
        held = conn.execute(
            "SELECT setting::bigint FROM pg_settings WHERE name = 'shared_buffers'"
        ).fetchone()[0]  # in 8 kB pages
    print(
        f"  pg_prewarm: {pages * 8 / 1024:,.0f} MB read into shared_buffers ({buffers}) in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )
    if pages > held:
        print(
            "  WARNING: shared_buffers is smaller than what was read: searches will still read "
            "pages from the OS. Raise it (ALTER SYSTEM SET shared_buffers = '6GB', then restart "
            "the server in --cache/postgres) before timing.",
            flush=True,
        )


@contextlib.contextmanager
def pg_server(args):
    """The DSN of --pg-dsn (left running), or of the bench's own server in --cache/postgres."""
    if args.pg_dsn:
        yield args.pg_dsn
        return
    from lastword.store.devserver import running_postgres

    with running_postgres(args.cache / "postgres") as dsn:
        yield dsn


def exact_truth(real, size: int, queries: np.ndarray) -> list[set[int]]:
    """Row numbers (synthetic rows first, then the real ones) of every query's exact top k."""
    tops: list[list[tuple[float, int]]] = [[] for _ in queries]
    for start in range(0, size, 100_000):
        stop = min(size, start + 100_000)
        rows = np.concatenate(
            [
                synthetic(s, min(s + SYNTHETIC_PER_DOC, size))
                for s in range(start, stop, SYNTHETIC_PER_DOC)
            ]
        )
        scores = queries @ rows.T
        for q, row_scores in enumerate(scores):
            top = np.argpartition(-row_scores, K)[:K]
            tops[q] += [(float(row_scores[i]), start + int(i)) for i in top]
    order = list(real_documents(real))
    real_rows = np.concatenate([block for _, _, block in order])
    scores = queries @ real_rows.T
    for q, row_scores in enumerate(scores):
        top = np.argpartition(-row_scores, K)[:K]
        tops[q] += [(float(row_scores[i]), size + int(i)) for i in top]
    return [{row for _, row in sorted(c, key=lambda t: -t[0])[:K]} for c in tops]


def server_pid(store: Store) -> int | None:
    """The PostgreSQL backend that answers this thread's searches, when it runs here."""
    fetch = getattr(store, "_fetch", None)
    if fetch is None:
        return None
    pid = int(fetch("SELECT pg_backend_pid()")[0][0])
    return pid if Path(f"/proc/{pid}/stat").is_file() else None


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(store: Store, pmids, queries, truth_rows, row_of, clients: int, label: str):
    before = rss_mb()
    store.search(queries[0], K)  # map the matrix / load the graph before timing
    opened = rss_mb() - before
    busy = load()
    backend = server_pid(store)  # one client thread: one connection, one backend
    server_before = process_cpu(backend) if backend else 0.0
    latencies, cpu, recalls, own = [], [], [], 0
    for q, vector in enumerate(queries):
        t, clock = time.perf_counter(), time.thread_time()
        hits = store.search(vector, K)
        latencies.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - clock) * 1000)
        found = {row_of(h) for h in hits}
        recalls.append(len(found & truth_rows[q]) / K)
        own += any(h.passage.doc_id == pmids[q] for h in hits)
    server = (
        f", server CPU {(process_cpu(backend) - server_before) / len(queries) * 1000:.2f} ms/query"
        if backend
        else ""
    )
    work = list(queries) * 2
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(lambda v: store.search(v, K), work))
    qps = len(work) / (time.perf_counter() - started)
    p50, p99 = np.percentile(latencies, 50), np.percentile(latencies, 99)
    grown = rss_mb() - before
    print(
        f"  {label}: p50 {p50:.3f} ms (its thread's CPU {np.percentile(cpu, 50):.3f} ms{server}), "
        f"recall@8 {np.mean(recalls):.3f}, QPS {qps:.0f}; "
        f"bench process memory +{opened:,.0f} MB at the first search, +{grown:,.0f} MB after "
        f"all (load average {busy} -> {load()})",
        flush=True,
    )
    cpu50 = float(np.percentile(cpu, 50))
    return label, p50, cpu50, p99, float(np.mean(recalls)), own / len(queries), qps, busy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--size", type=int, default=1_000_000, help="Synthetic rows in the local store."
    )
    parser.add_argument(
        "--pg-size", type=int, default=100_000, help="Synthetic rows in pgvector (0: skip)."
    )
    parser.add_argument("--queries", type=int, default=300, help="PubMedQA questions timed.")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "lastword-scale"
    )
    parser.add_argument("--skip", default="", help="Comma list: local-exact,local-ann,pgvector")
    parser.add_argument(
        "--ann",
        default="",
        help="Local HNSW query settings to measure, EF:CANDIDATES,... ([store] ann_ef_search and "
        "ann_candidates; default: the settings' values).",
    )
    parser.add_argument(
        "--ann-kind", choices=("hnsw", "ivf", "ivfpq"), default="hnsw", help="Local [store] ann."
    )
    parser.add_argument(
        "--ivfpq",
        default="",
        help="Local IVF-PQ settings to measure, PROBES:CANDIDATES,... ([store] ivfpq_probes and "
        "ivfpq_candidates; with --ann-kind ivfpq).",
    )
    parser.add_argument(
        "--ivf", default="", help="Local IVF probes to measure, comma list ([store] ivf_probes)."
    )
    parser.add_argument("--ivf-lists", type=int, help="Local IVF cells ([store] ivf_lists).")
    parser.add_argument(
        "--pg-index", choices=("hnsw", "ivfflat"), default="hnsw", help="[store] pg_index."
    )
    parser.add_argument(
        "--pg-probes", default="", help="pgvector ivfflat.probes to measure, comma list."
    )
    parser.add_argument("--pg-lists", type=int, help="pgvector ivfflat lists ([store] pg_lists).")
    parser.add_argument(
        "--pg-precision",
        choices=("auto", "half", "full"),
        help="[store] pg_precision: the pgvector index over halfvec copies (half) or the "
        "float32 vectors (full); an existing index of the other precision is rebuilt.",
    )
    parser.add_argument(
        "--pg-prewarm",
        action="store_true",
        help="pg_prewarm the vector index and table before timing (shared_buffers must hold "
        "them: the bench's server is set to 6GB).",
    )
    parser.add_argument(
        "--pg-candidates", type=int, help="[store] pg_candidates (re-scored, half precision)."
    )
    parser.add_argument(
        "--pg-dsn",
        help="An already running PostgreSQL with pgvector to use (left running), instead of "
        "the bench's own server in --cache/postgres.",
    )
    parser.add_argument(
        "--ann-codes",
        choices=("float32", "sq8", "sq4"),
        help="Local HNSW [store] ann_codes: the graph walked by hnswlib over float32 rows, or by "
        "faiss over 8- or 4-bit codes (converted from the existing graph, not built again).",
    )
    parser.add_argument("--ann-m", type=int, help="Local HNSW M at build ([store] ann_m).")
    parser.add_argument(
        "--ann-ef-construction", type=int, help="Local HNSW ef_construction at build."
    )
    parser.add_argument("--pg-m", type=int, help="pgvector HNSW m at build ([store] pg_m).")
    parser.add_argument(
        "--pg-ef-construction", type=int, help="pgvector HNSW ef_construction at build."
    )
    parser.add_argument(
        "--pg-ef",
        default="",
        help="pgvector hnsw.ef_search values to measure, comma list (default: [store] "
        "pg_ef_search).",
    )
    parser.add_argument(
        "--haystack",
        choices=("uniform", "matched"),
        default="uniform",
        help="The synthetic rows: uniform on the sphere (no structure), or drawn from a Gaussian "
        "with the real passages' mean and covariance (kept in their own cache and schema).",
    )
    parser.add_argument(
        "--build-only",
        action="store_true",
        help="Build the synthetic part of the indexes into --cache and stop (no PubMedQA needed).",
    )
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a busy machine "
        "makes every number slower; recall does not depend on it)"
    )
    built = {
        "ann": args.ann_kind,
        "ivf_lists": args.ivf_lists,
        "pg_index": args.pg_index,
        "pg_lists": args.pg_lists,
        "ann_m": args.ann_m,
        "ann_codes": args.ann_codes,
        "ann_ef_construction": args.ann_ef_construction,
        "pg_m": args.pg_m,
        "pg_ef_construction": args.pg_ef_construction,
        "pg_precision": args.pg_precision,
        "pg_candidates": args.pg_candidates,
    }
    settings = StoreSettings(**{k: v for k, v in built.items() if v is not None})
    if args.haystack == "matched":
        # The Gaussian is fitted on the real passages, so they are embedded (or read) first.
        Haystack.match(pubmedqa(args.cache, args.data)[0][0])
        print("synthetic rows: a Gaussian with the real passages' mean and covariance")
    else:
        print("synthetic rows: uniform on the sphere")
    if args.build_only:
        if {"local-exact", "local-ann"} - skip:
            build_local(args.cache, None, args.size, settings)
        if args.pg_size and "pgvector" not in skip:
            with pg_server(args) as dsn:
                build_postgres(dsn, None, args.pg_size, settings)
        return 0
    real, (pmids, questions) = pubmedqa(args.cache, args.data)
    pmids, questions = pmids[: args.queries], questions[: args.queries]
    n_real = len(real[0])
    print(f"PubMedQA: {n_real:,} real passages, {len(pmids)} questions as queries")
    results = []

    if {"local-exact", "local-ann"} - skip:
        directory = build_local(args.cache, real, args.size, settings)
        truth = exact_truth(real, args.size, questions)
        ids = np.load(next(directory.glob("ids-*.npy")))
        row_of = {int(pid): row for row, pid in enumerate(ids)}
        runs = [("local-exact", {"ann_min_passages": 10**12})]
        for pair in filter(None, args.ann.split(",")):
            ef, candidates = (int(x) for x in pair.split(":"))
            runs.append(
                (f"ann {ef}:{candidates}", {"ann_ef_search": ef, "ann_candidates": candidates})
            )
        for probes in filter(None, args.ivf.split(",")):
            runs.append((f"ivf probes={probes}", {"ivf_probes": int(probes)}))
        for pair in filter(None, args.ivfpq.split(",")):
            probes, candidates = (int(x) for x in pair.split(":"))
            runs.append(
                (
                    f"ivfpq {probes}:{candidates}",
                    {"ivfpq_probes": probes, "ivfpq_candidates": candidates},
                )
            )
        if not args.ann and not args.ivf and not args.ivfpq:
            runs.append(("local-ann", {}))
        for label, overrides in runs:
            if ("local-exact" if label == "local-exact" else "local-ann") in skip:
                continue
            with LocalStore.open(directory, settings.model_copy(update=overrides)) as store:
                results.append(
                    (
                        args.size + n_real,
                        *measure(
                            store,
                            pmids,
                            questions,
                            truth,
                            lambda h: row_of[h.passage.passage_id],
                            args.clients,
                            label,
                        ),
                    )
                )

    if args.pg_size and "pgvector" not in skip:
        from lastword.store.postgres import PostgresStore

        with pg_server(args) as dsn:
            pg_settings = build_postgres(dsn, real, args.pg_size, settings)
            truth = exact_truth(real, args.pg_size, questions)
            if args.pg_index == "ivfflat":
                values = [int(x) for x in args.pg_probes.split(",") if x] or [pg_settings.pg_probes]
                variants = [(f"pgvector probes={p}", {"pg_probes": p}) for p in values]
            else:
                values = [int(x) for x in args.pg_ef.split(",") if x] or [pg_settings.pg_ef_search]
                variants = [(f"pgvector ef={ef}", {"pg_ef_search": ef}) for ef in values]
            if args.pg_prewarm:
                prewarm(dsn, pg_settings.schema_name)
            for label, update in variants:
                ef_settings = pg_settings.model_copy(update=update)
                with PostgresStore.open(dsn, ef_settings) as store:
                    first = int(store._fetch(f"SELECT MIN(id) FROM {store._t('passages')}")[0][0])
                    results.append(
                        (
                            args.pg_size + n_real,
                            *measure(
                                store,
                                pmids,
                                questions,
                                truth,
                                lambda h, first=first: h.passage.passage_id - first,
                                args.clients,
                                label,
                            ),
                        )
                    )

    print()
    print(
        f"{'backend':13}{'rows':>11}{'p50 ms':>9}{'cpu p50':>9}{'p99 ms':>9}{'recall@8':>10}"
        f"{'own top8':>10}{f'QPS x{args.clients}':>10}{'load':>6}"
    )
    for size, label, p50, cpu50, p99, recall, own, qps, busy in results:
        print(
            f"{label:13}{size:>11,}{p50:>9.3f}{cpu50:>9.3f}{p99:>9.3f}{recall:>10.3f}"
            f"{own:>10.1%}{qps:>10.0f}{busy:>6}"
        )
    print("latency: one client, Store.search(q, 8) including fetching the 8 passages' rows;")
    print("cpu p50: the searching thread's own CPU time (waiting for a core does not count);")
    print("recall@8: overlap with exact search over the same rows; own top8: the question's own")
    print(f"PubMedQA abstract among the 8 hits; QPS: {args.clients} client threads, one process;")
    print("load: the 1-minute load average when the row was measured (2 cores shared).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
