"""Does hybrid retrieval change what the gate sees? PubMedQA test half, the shipped gate model.

Each of the 500 test questions is retrieved with its own abstract (answerable) and without it
(corpus ablation: unanswerable), in each retrieval mode, through ``Pipeline.inspect`` with the
shipped MiniLM gate (fitted on dense retrieval of the dev half). Printed per mode: the own
abstract at rank 1 and in the top 8, the gate's ROC AUC, and false accepts / answerable kept
at the shipped weak threshold. A gate must be calibrated on the ranking it actually sees: a
mode that moves these numbers needs its own fit (bench/gate_calibration_pubmedqa.py --mode).

    .venv/bin/python bench/gate_modes_pubmedqa.py [--limit N]    (numbers from a busy machine)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_indexes import CACHE, DATASETS, pubmedqa_index
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.evaluate.metrics import bootstrap_auc, false_accept_rate, kept_share
from lastword.pipeline import Pipeline
from lastword.settings import load_settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--modes", default="dense,hybrid")
    args = parser.parse_args()
    print("(numbers from a busy, shared 2-core machine)")
    records, test_ids = load_pubmedqa(DATASETS / "pubmedqa")
    questions = [(p, records[p]["QUESTION"]) for p in sorted(test_ids)][: args.limit]
    index = pubmedqa_index(DATASETS / "pubmedqa", CACHE)
    base = load_settings()
    for mode in args.modes.split(","):
        settings = base.model_copy(
            update={"retrieve": base.retrieve.model_copy(update={"mode": mode})}
        )
        started = time.perf_counter()
        pos, neg, first, top8 = [], [], 0, 0
        with Pipeline.open(settings, index) as pipeline:
            weak = pipeline.thresholds.weak
            for pmid, question in questions:
                found = pipeline.inspect(question)
                docs = [p.doc_id for p in found.passages]
                first += bool(docs) and docs[0] == pmid
                top8 += pmid in docs
                pos.append(found.gate.score)
                neg.append(pipeline.inspect(question, exclude_doc_ids={pmid}).gate.score)
        n = len(questions)
        auc = bootstrap_auc(pos, neg, seed=0)
        print(
            f"{mode:7} own abstract rank 1 {first / n:.1%}, top 8 {top8 / n:.1%}; gate AUC "
            f"{auc.describe()}; at weak {weak}: FAR {false_accept_rate(neg, weak):.1%}, kept "
            f"{kept_share(pos, weak):.1%}  ({n} questions, {time.perf_counter() - started:.0f}s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
