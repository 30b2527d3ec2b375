"""How much does an index's automatic gate threshold move when its corpus changes a little?

The automatic calibration (``gate/auto.py``) reads its thresholds off the gate scores of the
index's own sentences asked without their document. Stop 21 found that removing 3 running-header
passages of 1,206 moved the papers index's weak threshold 0.8683 -> 0.8741 and flipped a question.

For each perturbation (remove ``k`` random passages; add ``k`` passages taken from another
corpus's index, each appended to a random document; ``k`` = 3, 10, 30; several seeds) a copy of
the index is edited through the store (no re-embedding: the passages keep their vectors), then
calibrated for real: the queries of both sampling schemes are retrieved and scored by the gate
(one pass over their union), and the thresholds are computed by each design:

- ``v1``: the previous calibration (one shuffled stream of queries over all documents; the
  tail a sample quantile, ``np.quantile``);
- ``v1+hd``: the same queries, the tail a Harrell-Davis quantile of the scores' log-odds;
- ``v1+boot``: the same queries, the tail the median of 500 bootstrap sample quantiles;
- ``v2`` (shipped): per-document hashed sampling, the Harrell-Davis tail (``auto.tail_of``).

Printed per design: weak and strong on the unedited index, and their spread (max - min, and the
largest move from the unedited value) over the edits. The tail's spread in log-odds does not
depend on the reference. Numbers from a busy, shared 2-core machine.

    .venv/bin/python bench/gate_jitter.py --index COPY --donor OTHER_INDEX [--k 3 10 30]
        [--seeds 1 2 3] [--mode hybrid] [--out FILE.json]

``--out`` keeps every perturbation's scores and is read back (resume; re-print).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from lastword.embed.minilm import MiniLMEmbedder
from lastword.gate import auto
from lastword.gate.auto import (
    MAX_PER_DOCUMENT,
    REFERENCE_TAIL,
    SyntheticQuery,
    gate_scores,
    harrell_davis,
    logit,
    shift_quantile,
    sigmoid,
    synthetic_queries,
    tail_of,
)
from lastword.retrieve import tuning_from
from lastword.settings import GateSettings, Settings
from lastword.store.local import LocalStore
from lastword.store.protocol import NewPassage

#: the PubMedQA reference tails and quantiles the previous calibration (v1) shipped with
V1_REFERENCE = {("minilm", "dense"): 0.0763, ("minilm", "hybrid"): 0.0466}
V1_QUANTILE = {"dense": 0.85, "hybrid": 0.80}


def legacy_queries(store, limit: int, seed: int, kinds) -> list[SyntheticQuery]:
    """The v1 sampling (stop 21's ``synthetic_queries``): one random stream over the corpus."""
    from lastword.evaluate.datasets.titles import usable_title

    rng = random.Random(seed)
    documents = list(store.documents())
    rng.shuffle(documents)
    documents = documents[:limit]
    per_document = min(MAX_PER_DOCUMENT, max(1, math.ceil(limit / max(1, len(documents)))))
    queries: list[SyntheticQuery] = []
    for i, document in enumerate(documents):
        own: list[SyntheticQuery] = []
        if usable_title(document) and (per_document > 1 or i % 2 == 0):
            own.append(SyntheticQuery(" ".join(document.title.split()), document.doc_id, "title"))
        sentences = auto._sentences(auto._evidence_text(store, document.doc_id, kinds))
        rng.shuffle(sentences)
        for sentence in sentences[: per_document - len(own)]:
            own.append(SyntheticQuery(sentence, document.doc_id, "sentence"))
        queries.extend(own)
    return queries[:limit]


def perturb(index: Path, donor: Path | None, op: str, k: int, seed: int) -> None:
    """Remove ``k`` random passages of ``index``, or append ``k`` of ``donor``'s to random
    documents of it; committed like an ingest."""
    rng = random.Random(seed)
    with LocalStore.open_for_write(index, MiniLMEmbedder().info) as store:
        documents = {d.doc_id: d for d in store.documents()}
        doc_ids = sorted(documents)
        if op == "remove":
            exported = {d: store.export_document(d) for d in doc_ids}
            every = [(d, i) for d in doc_ids for i in range(len(exported[d][0]))]
            chosen = rng.sample(every, k)
            for doc_id in {d for d, _ in chosen}:
                drop = {i for d, i in chosen if d == doc_id}
                passages, vectors = exported[doc_id]
                keep = [i for i in range(len(passages)) if i not in drop]
                refs = store.references([doc_id]).get(doc_id, [])
                store.put_document(
                    documents[doc_id], [passages[i] for i in keep], vectors[keep], refs
                )
        else:
            assert donor is not None
            with LocalStore.open(donor) as source:
                donors = sorted(d.doc_id for d in source.documents())
                picked = []
                while len(picked) < k:
                    passages, vectors = source.export_document(rng.choice(donors))
                    if passages:
                        i = rng.randrange(len(passages))
                        picked.append((passages[i], vectors[i]))
            for passage, vector in picked:
                doc_id = rng.choice(doc_ids)
                passages, vectors = store.export_document(doc_id)
                last = max((p.position for p in passages), default=-1)
                added = NewPassage(
                    page=passage.page,
                    position=last + 1,
                    char_start=passage.char_start,
                    char_end=passage.char_end,
                    text=passage.text,
                    kind="body",
                )
                refs = store.references([doc_id]).get(doc_id, [])
                store.put_document(
                    documents[doc_id],
                    [*passages, added],
                    np.vstack([vectors, vector[None, :]]),
                    refs,
                )
        store.commit()


def score_run(index: Path, settings: Settings, embedder, seed: int) -> dict:
    """Both schemes' queries on ``index``, scored in one pass over their union."""
    started = time.perf_counter()
    kinds = settings.retrieve.evidence_kinds
    limit = settings.gate.auto_queries
    with LocalStore.open(index) as store:
        chosen = {
            "v1": legacy_queries(store, limit, seed, kinds),
            "v2": synthetic_queries(store, limit, seed, kinds),
        }
        union = list(dict.fromkeys(q for qs in chosen.values() for q in qs))
        shipped = settings.thresholds_for(store.embedder.name)
        tuning = tuning_from(settings.retrieve)
        pos, neg = gate_scores(
            union, store, embedder, shipped, settings.retrieve.mode, tuning, kinds
        )
        passages = store.info().passages
    scored = {q: (p, n) for q, p, n in zip(union, pos, neg, strict=True)}
    run = {"passages": passages, "seconds": time.perf_counter() - started}
    for scheme, queries in chosen.items():
        run[scheme] = {
            "negatives": [scored[q][1] for q in queries if q.kind == "sentence"],
            "queries": [[q.doc_id, q.text[:80]] for q in queries],
        }
    return run


def bootstrap_quantile(values: list[float], q: float, draws: int = 500) -> float:
    rng = np.random.default_rng(0)
    x = np.asarray(values)
    samples = rng.choice(x, size=(draws, len(x)), replace=True)
    return float(np.median(np.quantile(samples, q, axis=1)))


def thresholds(run: dict, design: str, mode: str, reference: float | None) -> tuple:
    """(tail, weak, strong) of one design on one run."""
    q = shift_quantile(mode) if design == "v2" else V1_QUANTILE[mode]
    shipped = Settings(retrieve={"mode": mode}).thresholds_for("minilm")
    if design == "v2":
        negatives = run["v2"]["negatives"]
        tail = tail_of(negatives, q)
        ref = REFERENCE_TAIL[("minilm", mode)] if reference is None else reference
    else:
        negatives = run["v1"]["negatives"]
        if design == "v1":
            tail = float(np.quantile(negatives, q))
        elif design == "v1+hd":
            tail = sigmoid(harrell_davis([logit(s) for s in negatives], q))
        else:
            tail = bootstrap_quantile(negatives, q)
        ref = V1_REFERENCE[("minilm", mode)] if reference is None else reference
    shift = logit(tail) - logit(ref)
    weak = sigmoid(logit(shipped.weak) + shift)
    strong = max(sigmoid(logit(shipped.strong) + shift), weak)
    return tail, weak, strong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="Never edited: copied.")
    parser.add_argument("--donor", type=Path, help="Another index to take added passages from.")
    parser.add_argument("--k", type=int, nargs="+", default=[3, 10, 30])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--ops", nargs="+", default=["remove", "add"])
    parser.add_argument("--mode", choices=("dense", "hybrid"), default="hybrid")
    parser.add_argument("--queries", type=int, default=120, help="[gate] auto_queries.")
    parser.add_argument("--base-only", action="store_true", help="Only the unedited index.")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    print("numbers from a busy, shared 2-core machine (times are upper bounds)")
    settings = Settings(
        gate=GateSettings(auto=False, auto_queries=args.queries), retrieve={"mode": args.mode}
    )
    # every passage's token vectors kept across the edits: an unedited passage is not re-run
    embedder = MiniLMEmbedder(token_cache_size=50_000)
    saved = json.loads(args.out.read_text()) if args.out and args.out.exists() else {}
    plan = [("base", 0, 0)] + [
        (op, k, seed)
        for op in args.ops
        if op == "remove" or args.donor
        for k in args.k
        for seed in args.seeds
        if not args.base_only
    ]
    for op, k, seed in plan:
        key = "base" if op == "base" else f"{op}-{k}-{seed}"
        if key in saved:
            continue
        with tempfile.TemporaryDirectory(prefix="lw-jitter-") as tmp:
            copy = Path(tmp) / "index"
            shutil.copytree(args.index, copy, ignore=shutil.ignore_patterns("index.lock"))
            if op != "base":
                perturb(copy, args.donor, op, k, seed)
            saved[key] = score_run(copy, settings, embedder, seed=0)
        changed = ""
        if key != "base":
            moved = {
                scheme: len(
                    {tuple(q) for q in saved["base"][scheme]["queries"]}
                    - {tuple(q) for q in saved[key][scheme]["queries"]}
                )
                for scheme in ("v1", "v2")
            }
            changed = f"queries changed: v1 {moved['v1']}, v2 {moved['v2']}"
        print(f"{key}: {saved[key]['passages']} passages, {saved[key]['seconds']:.0f}s {changed}")
        if args.out:
            args.out.write_text(json.dumps(saved))
    print(f"\n{args.index.name}, {args.mode} ranking, {args.queries} queries; spread over edits")
    designs = ("v1", "v1+hd", "v1+boot", "v2")
    for design in designs:
        tail, weak, strong = thresholds(saved["base"], design, args.mode, None)
        n = len(saved["base"]["v2" if design == "v2" else "v1"]["negatives"])
        print(
            f"unedited, {design}: tail {tail:.4f} ({n} sentences) weak {weak:.4f} "
            f"strong {strong:.4f}"
        )
    header = f"{'design':8} {'base weak':>9} {'strong':>7} | "
    print(header + "edit     k  weak range (max move)   strong range   logit(tail) range")
    for design in designs:
        base = thresholds(saved["base"], design, args.mode, None)
        for op in args.ops:
            for k in args.k:
                runs = [saved[f"{op}-{k}-{s}"] for s in args.seeds if f"{op}-{k}-{s}" in saved]
                if not runs:
                    continue
                got = [thresholds(r, design, args.mode, None) for r in runs]
                weaks, strongs = [g[1] for g in got], [g[2] for g in got]
                tails = [logit(g[0]) for g in got] + [logit(base[0])]
                move = max(abs(w - base[1]) for w in weaks)
                print(
                    f"{design:8} {base[1]:9.4f} {base[2]:7.4f} | {op:7} {k:3}  "
                    f"{min(weaks):.4f}-{max(weaks):.4f} ({move:.4f})   "
                    f"{min(strongs):.4f}-{max(strongs):.4f}   "
                    f"{max(tails) - min(tails):.3f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
