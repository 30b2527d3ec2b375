"""The gate read on each of the first few documents of the ranking, not only the first (stop 24).

Every gate signal reads the *top* document. When retrieval puts the answering document second
or third, the gate scores a neighbour: on PubMedQA test the shipped hybrid gate's AUC is 0.979
over all 500 answerable questions but 0.991 over the 486 whose own abstract is ranked first;
on SciFact's 300 dev claims 0.734, and 0.831 over the 192 whose cited abstract is first.

This bench scores each of the first ``K`` distinct documents among the top 8 as if it were
first (the ranking reordered so that document's passages lead; the shipped hybrid model and
signals, the same retrieval, ``Gate.run``) and keeps the best, for K = 1 (the shipped gate),
2 and 3. K is chosen on PubMedQA dev and SciFact's train claims; reported on PubMedQA test
and SciFact's dev claims (``bench/auto_calibration.py``'s DEV/TEST halves, and all 300).
Busy, shared 2-core machine.

    .venv/bin/python bench/gate_bestdoc.py collect --pubmedqa PQA_INDEX --scifact SF_INDEX \\
        --cache F [--sets ...]
    .venv/bin/python bench/gate_bestdoc.py report --cache F [--more F2 ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auto_calibration import papers_items
from gate_veto import WEAK, corpus_sets
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.metrics import roc_auc
from lastword.gate import DEPTH
from lastword.pipeline import Pipeline
from lastword.retrieve import retrieve
from lastword.settings import GateSettings, Settings
from lastword.store.local import LocalStore

KS = (1, 2, 3)


def led_by(passages, doc: str) -> list:
    """The ranking with ``doc``'s passages first, the rest in their order."""
    return [p for p in passages if p.doc_id == doc] + [p for p in passages if p.doc_id != doc]


def per_document(pipeline: Pipeline, question: str, excluded) -> list[float]:
    """The gate score with each of the first ``max(KS)`` distinct documents leading."""
    pipeline.gate.prepare(question)
    found = retrieve(
        question,
        pipeline.embedder,
        pipeline.store,
        DEPTH,
        excluded,
        mode=pipeline.settings.retrieve.mode,
        kinds=pipeline.settings.retrieve.evidence_kinds,
        tuning=pipeline.retrieve_tuning,
        context=pipeline.gate.needs_context,
    )
    docs: list[str] = []
    for passage in found.passages[:DEPTH]:
        if passage.doc_id not in docs:
            docs.append(passage.doc_id)
    return [
        pipeline.gate.run(question, led_by(found.passages, doc), found).signals.score
        for doc in docs[: max(KS)]
    ]


def collect(args: argparse.Namespace) -> None:
    saved = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    settings = Settings(gate=GateSettings(auto=False), retrieve={"mode": "hybrid"})
    embedder = MiniLMEmbedder()
    corpora = (("pubmedqa", args.pubmedqa), ("scifact", args.scifact), ("papers", args.papers))
    for corpus, index in corpora:
        if index is None:
            continue
        with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
            if corpus == "papers":
                sets = {"papers": papers_items}
                with Pipeline(
                    Settings(retrieve={"mode": "hybrid"}), LocalStore.open(index), embedder
                ) as auto:
                    saved["papers weak"] = auto.thresholds.weak  # the index's automatic one
            else:
                sets = corpus_sets(corpus, pipeline, args.limit)
            for name, make in sets.items():
                if name in saved or name not in args.sets:
                    continue
                started = time.perf_counter()
                saved[name] = []
                for question, excluded, answerable, half in make():
                    scores = per_document(pipeline, question, excluded)
                    row = {"question": question, "answerable": answerable, "half": half}
                    saved[name].append({**row, "scores": scores})
                    if len(saved[name]) % 100 == 0:
                        print(f"  {name}: {len(saved[name])}", flush=True)
                print(f"{name}: {len(saved[name])} asks in {time.perf_counter() - started:.0f}s")
                args.cache.write_text(json.dumps(saved))


def report(args: argparse.Namespace) -> None:
    saved = {}
    for path in [args.cache, *args.more]:
        saved.update(json.loads(path.read_text()))
    print("best gate score over the first K documents; at each corpus's automatic weak")
    weak_of = {**WEAK, "papers": saved.pop("papers weak", None)}
    for name, rows in saved.items():
        corpus = name.split()[0]
        groups = {name: rows}
        if name == "papers":
            groups = {
                f"papers {h.upper()}": [r for r in rows if r["half"] == h] for h in ("dev", "test")
            }
        if name == "scifact dev":
            groups = {
                f"scifact {h.upper()}": [r for r in rows if r["half"] == h] for h in ("dev", "test")
            }
            groups["scifact dev (both halves)"] = rows
        for label, group in groups.items():
            cells = []
            for k in KS:
                pos = [max(r["scores"][:k]) for r in group if r["answerable"]]
                neg = [max(r["scores"][:k]) for r in group if not r["answerable"]]
                weak = weak_of[corpus]
                fa = sum(s >= weak for s in neg)
                kept = sum(s >= weak for s in pos)
                cells.append(
                    f"K={k}: AUC {roc_auc(pos, neg):.4f} FA {fa}/{len(neg)} kept {kept}/{len(pos)}"
                )
            print(f"  {label:26} " + " | ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("collect", "report"))
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--more", type=Path, nargs="*", default=[])
    parser.add_argument("--pubmedqa", type=Path)
    parser.add_argument("--scifact", type=Path)
    parser.add_argument("--papers", type=Path, help="a copy of the papers' index")
    parser.add_argument(
        "--limit", type=int, default=500, help="PubMedQA questions per half (sorted by id)"
    )
    parser.add_argument(
        "--sets",
        nargs="+",
        default=["pubmedqa dev", "pubmedqa test", "scifact dev", "scifact train"],
    )
    args = parser.parse_args()
    print("numbers from a busy, shared 2-core machine (times are upper bounds)")
    collect(args) if args.stage == "collect" else report(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
