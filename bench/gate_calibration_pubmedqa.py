"""Measure MiniLM's retrieval-gate thresholds on the PubMedQA dev half by corpus ablation.

For each dev question, the top cosine score is taken twice over one index of all 1,000
abstracts: with the question's own abstract (answerable) and with it excluded from retrieval
(unanswerable: the same question, its evidence gone). The weak threshold is the lowest that
keeps the false-accept rate at or under --weak-far; the strong one at or under --strong-far.
The test half is then scored at those thresholds, untouched by the choice.

    .venv/bin/python bench/gate_calibration_pubmedqa.py [--index DIR] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.datasets.pubmedqa import corpus_record, load_pubmedqa
from lastword.evaluate.metrics import (
    bootstrap_auc,
    false_accept_rate,
    kept_share,
    threshold_for_false_accept_rate,
    wilson_interval,
    zero_false_accept_threshold,
)
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.settings import IngestSettings, load_settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def top_scores(pipeline: Pipeline, questions: list[tuple[str, str]]) -> tuple[list, list]:
    answerable, unanswerable = [], []
    for pmid, question in questions:
        answerable.append(pipeline.inspect(question).top_score)
        unanswerable.append(pipeline.inspect(question, exclude_doc_ids={pmid}).top_score)
    return answerable, unanswerable


def describe(label: str, pos: list[float], neg: list[float], weak: float, strong: float) -> None:
    auc = bootstrap_auc(pos, neg, seed=0)
    far = false_accept_rate(neg, weak)
    accepted = sum(s >= weak for s in neg)
    ci = wilson_interval(accepted, len(neg))
    print(f"[{label}] {len(pos)} answerable, {len(neg)} ablated")
    print(
        f"  ROC AUC of top score          {auc.estimate:.3f}  (95% CI {auc.low:.3f}-{auc.high:.3f})"
    )
    print(
        f"  at weak={weak:.3f}: false accepts {far:.1%} (95% CI {ci.low:.1%}-{ci.high:.1%}), "
        f"answerable kept {kept_share(pos, weak):.1%}"
    )
    print(
        f"  at strong={strong:.3f}: false accepts {false_accept_rate(neg, strong):.1%}, "
        f"answerable strong {kept_share(pos, strong):.1%}"
    )
    zero = zero_false_accept_threshold(pos, neg)
    print(f"  zero-false-accept threshold   {zero:.3f}, keeps {kept_share(pos, zero):.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--index", type=Path, help="An index of the PubMedQA corpus to reuse.")
    parser.add_argument("--weak-far", type=float, default=0.05)
    parser.add_argument("--strong-far", type=float, default=0.01)
    args = parser.parse_args()
    records, test_ids = load_pubmedqa(args.data)
    dev = [(p, r["QUESTION"]) for p, r in records.items() if p not in test_ids]
    test = [(p, r["QUESTION"]) for p, r in records.items() if p in test_ids]

    with tempfile.TemporaryDirectory(prefix="lastword-gate-") as scratch:
        index = args.index
        if index is None:
            corpus = Path(scratch) / "pubmedqa.jsonl"
            corpus.write_text(
                "".join(json.dumps(corpus_record(p, r)) + "\n" for p, r in records.items())
            )
            index = Path(scratch) / "index"
            ingest_paths([corpus], index, MiniLMEmbedder(), IngestSettings())
        with Pipeline.open(load_settings(), index) as pipeline:
            dev_pos, dev_neg = top_scores(pipeline, dev)
            test_pos, test_neg = top_scores(pipeline, test)

    weak = threshold_for_false_accept_rate(dev_pos, dev_neg, args.weak_far)
    strong = threshold_for_false_accept_rate(dev_pos, dev_neg, args.strong_far)
    print(
        f"chosen on dev: weak={weak:.3f} (FAR <= {args.weak_far:.0%}), "
        f"strong={strong:.3f} (FAR <= {args.strong_far:.0%})"
    )
    describe("dev", dev_pos, dev_neg, weak, strong)
    describe("test", test_pos, test_neg, weak, strong)
    return 0


if __name__ == "__main__":
    sys.exit(main())
