"""The retrieval step's latency for bench/retrieval.py --speed: p50/p99 wall and CPU per mode,
and the store's int8 first pass against the whole float32 product (store/int8.py).

Numbers from a busy, shared 2-core machine: the load is printed next to every latency.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

from lastword.retrieve import HybridTuning, retrieve
from lastword.settings import RetrieveSettings, StoreSettings
from lastword.store.local import LocalStore

WHOLE = StoreSettings(int8_min_passages=10**9)
EVIDENCE = RetrieveSettings().evidence_kinds
INT8 = StoreSettings(int8_min_passages=1)


def int8_pass(index: Path, embedder, claims: list[str]) -> None:
    """The int8 pass against the whole product, for the dense top k the product asks for."""
    vectors = embedder.embed_queries(claims)
    with LocalStore.open(index, INT8) as fast, LocalStore.open(index, WHOLE) as whole:
        passages = whole.info().passages
        for k in (8, 50, 100, 400):
            differ = 0
            for vector in vectors:
                a, b = fast.search_ids(vector, k), whole.search_ids(vector, k)
                differ += (a[0].tolist(), a[1].tolist()) != (b[0].tolist(), b[1].tolist())
            print(
                f"  {passages:,} passages, dense top {k}: int8 pass vs the whole product: "
                f"{differ} of {len(claims)} claims differ (ids, order or score)"
            )
        print(f"  int8 pass: {fast.int8_counts} (proved: its pool held the top k)")


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def latency(
    index: Path,
    embedder,
    questions: list[str],
    tuning: HybridTuning,
    settings: StoreSettings | None = None,
    modes: tuple[str, ...] = ("dense", "lexical", "hybrid", "product"),
) -> None:
    """p50/p99 of the retrieval step, wall clock and this thread's CPU time, with the load.

    BLAS runs on one thread (``threadpoolctl``; the store limits it too): on this shared 2-core
    machine a multi-threaded pool stalls a matrix-vector product by 7-9 ms. CPU time is what
    the step costs whatever the other processes do; wall time is what a user waits here.
    """
    vectors = dict(zip(questions, embedder.embed_queries(questions), strict=True))

    class Cached:  # the question is embedded already: time the retrieval step alone
        def embed_queries(self, texts):
            return [vectors[t] for t in texts]

    settings = settings or StoreSettings()
    with threadpool_limits(limits=1, user_api="blas"), LocalStore.open(index, settings) as store:
        passages = store.info().passages
        first = "int8 pass" if passages >= settings.int8_min_passages else "whole product"
        started = time.perf_counter()
        store.search_ids(vectors[questions[0]], 1)  # the matrix (and the int8 pass) loaded
        print(
            f"  {passages:6,} passages  dense search by {first}; first search "
            f"{(time.perf_counter() - started) * 1000:.0f} ms (loads the matrix, builds the pass)"
        )
        started = time.perf_counter()
        store.search_lexical_ids(questions[0], 1)  # the postings: loaded, or built and saved
        print(
            f"  {passages:6,} passages  lexical postings ready in "
            f"{(time.perf_counter() - started) * 1000:.0f} ms (first lexical search)"
        )
        for name in modes:
            # "product": hybrid as the pipeline asks for it, evidence kinds and gate context
            mode = "hybrid" if name == "product" else name
            extra = {"kinds": EVIDENCE, "context": True} if name == "product" else {}
            for question in questions[:3]:
                retrieve(question, Cached(), store, 8, mode=mode, tuning=tuning, **extra)
            wall, cpu, stages = [], [], {}
            load = os.getloadavg()[0]
            for question in questions:
                started, used = time.perf_counter(), time.thread_time()
                found = retrieve(question, Cached(), store, 8, mode=mode, tuning=tuning, **extra)
                cpu.append((time.thread_time() - used) * 1000)
                wall.append((time.perf_counter() - started) * 1000)
                for stage, ms in found.stages_ms.items():
                    stages.setdefault(stage, []).append(ms)
            load = (load + os.getloadavg()[0]) / 2
            (w50, w99), (c50, c99) = _percentiles(wall), _percentiles(cpu)
            print(
                f"  {passages:6,} passages  {name:8} wall p50 {w50:6.2f} ms  p99 {w99:6.2f} ms  "
                f"CPU p50 {c50:6.2f} ms  p99 {c99:6.2f} ms  load {load:4.1f}  "
                f"({len(wall)} questions)"
            )
            print(
                "      stage p50 (wall): "
                + ", ".join(f"{s} {statistics.median(v):.2f}" for s, v in stages.items())
            )
        if store.int8_counts["proved"] or store.int8_counts["whole"]:
            print(f"      int8 pass: {store.int8_counts}")
        held = store.held_rows_bytes()
        print(
            f"      passage rows held in memory: {held / 1e6:.1f} MB"
            if held
            else "      passage rows read from SQLite (over rows_in_memory_max_passages)"
        )


def paired(index: Path, embedder, questions: list[str], tuning: HybridTuning) -> None:
    """The whole product and the int8 pass on the same questions, alternating question by
    question (two readers of one index, both warm), so that the machine's load drifts alike
    for both: p50 of each one's CPU and wall time, and of the per-question difference."""
    vectors = dict(zip(questions, embedder.embed_queries(questions), strict=True))

    class Cached:
        def embed_queries(self, texts):
            return [vectors[t] for t in texts]

    with (
        threadpool_limits(limits=1, user_api="blas"),
        LocalStore.open(index, WHOLE) as whole,
        LocalStore.open(index, INT8) as fast,
    ):
        passages = whole.info().passages
        for name in ("hybrid", "product"):
            extra = {"kinds": EVIDENCE, "context": True} if name == "product" else {}
            times: dict[str, tuple[list[float], list[float]]] = {
                "whole": ([], []),
                "int8": ([], []),
            }
            load = os.getloadavg()[0]
            for rounds in range(2):  # the first round warms both
                for question in questions:
                    for label, store in (("whole", whole), ("int8", fast)):
                        started, used = time.perf_counter(), time.thread_time()
                        found = retrieve(
                            question, Cached(), store, 8, mode="hybrid", tuning=tuning, **extra
                        )
                        assert found.passages
                        if rounds:
                            times[label][0].append((time.perf_counter() - started) * 1000)
                            times[label][1].append((time.thread_time() - used) * 1000)
            load = (load + os.getloadavg()[0]) / 2
            saved = [a - b for a, b in zip(times["whole"][1], times["int8"][1], strict=True)]
            print(
                f"  {passages:6,} passages  {name:7} paired, {len(questions)} questions, load "
                f"{load:4.1f}: whole product wall / CPU p50 "
                f"{statistics.median(times['whole'][0]):5.2f} / "
                f"{statistics.median(times['whole'][1]):5.2f} ms; int8 pass "
                f"{statistics.median(times['int8'][0]):5.2f} / "
                f"{statistics.median(times['int8'][1]):5.2f} ms; CPU saved per question p50 "
                f"{statistics.median(saved):5.2f} ms"
            )
