"""Benchmark: the retrieval gate on PubMedQA PQA-L with corpus ablation, end to end.

Builds the corpus (all 1,000 abstracts) and the eval set of one split (default: the test half,
500 questions as scenarios plus the same 500 as traps with their abstract excluded: 1,000
items), ingests it into a temporary index with MiniLM, runs every item through
``Pipeline.ask`` with the extractive generator, and prints: ROC AUC of the top score with a
bootstrap interval, false-accept rate and answered share at the shipped thresholds (on the
gate score, which is what the gate reads), the zero-false-accept point, a threshold for a 5%
and a 2% false-accept rate, phantoms (must be 0) and the mean time per question. The same
figures follow for each recorded signal (``top_score``, ``gate.margin``, ``gate.coverage``,
``gate.maxsim``).

    .venv/bin/python bench/eval_pubmedqa.py [--split test] [--out results.json] [--report DIR]
        [--index DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from eval_runs import console, run_items
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.calibrate import SHIPPED_COLUMN, calibrate, labelled_scores
from lastword.evaluate.datasets.pubmedqa import build_pubmedqa
from lastword.evaluate.evalset import load_evalset
from lastword.evaluate.records import Results
from lastword.ingest import ingest_paths
from lastword.settings import load_settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def print_calibration(document: Results, column: str) -> None:
    pos, neg, missing = labelled_scores(document.items, column)
    if not pos or not neg:
        print(f"\n[{column}] not recorded in these results ({missing} items without it)")
        return
    five = calibrate(document, column=column, target_far=0.05)
    two = calibrate(document, column=column, target_far=0.02)
    print(f"\n[{column}]  {five.positives} answerable vs {five.negatives} ablated traps")
    print(f"ROC AUC (95% bootstrap)               {five.auc.describe()}")
    if column == SHIPPED_COLUMN:
        print(
            f"shipped thresholds                    weak {five.shipped_weak:.3f}, "
            f"strong {five.shipped_strong:.3f}"
        )
        print(f"false-accept rate at shipped weak     {five.far_at_shipped.describe(True)}")
        print(f"answerable kept at shipped weak       {five.kept_at_shipped.describe(True)}")
    print(
        f"zero-false-accept threshold           {five.zero_fa_threshold:.4f}: keeps "
        f"{five.zero_fa_kept.describe(True)}"
    )
    for cal in (five, two):
        print(
            f"threshold for FAR <= {cal.target_far:.0%}             "
            f"{cal.target_threshold:.4f}: keeps {cal.target_kept.describe(True)}, "
            f"FAR {cal.target_far_achieved.describe(True)}"
        )


def print_outcomes(document: Results) -> None:
    items, scenarios, traps = document.items, document.scenarios, document.traps
    answered = sum(i.result.status == "answered" for i in scenarios)
    false_accepts = sum(i.result.status == "answered" for i in traps)
    phantoms = sum(len(i.result.phantoms) for i in items)
    fired: dict[str, int] = {}
    for item in items:
        key = f"{item.kind}:{item.fired or item.result.status}"
        fired[key] = fired.get(key, 0) + 1
    run = document.run
    print("\n[outcomes of the full pipeline at the shipped thresholds]")
    print(
        f"scenarios answered                    {answered}/{len(scenarios)}"
        f" ({answered / max(1, len(scenarios)):.1%})"
    )
    print(
        f"traps answered (false accepts)        {false_accepts}/{len(traps)}"
        f" ({false_accepts / max(1, len(traps)):.1%})"
    )
    print(f"who decided                           {dict(sorted(fired.items()))}")
    print(f"phantoms                              {phantoms}")
    print(f"mean time per question                {run.mean_ms_per_item or 0.0:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--split", choices=("dev", "test"), default="test")
    parser.add_argument("--out", type=Path, help="Keep the results JSON here.")
    parser.add_argument("--report", type=Path, help="Also build the HTML report here.")
    parser.add_argument("--limit", type=int, help="Only the first N questions (quick check).")
    parser.add_argument(
        "--index", type=Path, help="Keep the index here (ingest is incremental: reruns skip it)."
    )
    args = parser.parse_args()
    if not (args.data / "ori_pqal.json").is_file():
        print(f"PubMedQA not found at {args.data}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="lastword-eval-bench-") as scratch:
        work = Path(scratch)
        # With a kept index, keep the corpus file at a stable path too, so a rerun skips ingest.
        data_dir = args.index.with_name(args.index.name + "-data") if args.index else work / "data"
        built = build_pubmedqa(args.data, args.split, True, data_dir)
        evalset = load_evalset(built.evalset)
        if args.limit:
            keep = {i.metadata["pmid"] for i in evalset.items[: 2 * args.limit]}
            evalset = evalset.model_copy(
                update={"items": tuple(i for i in evalset.items if i.metadata["pmid"] in keep)}
            )
        console.print(f"{built.documents} abstracts; {len(evalset.items)} items ({args.split})")

        started = time.perf_counter()
        index = args.index or work / "index"
        report = ingest_paths([built.corpus], index, MiniLMEmbedder(), load_settings().ingest)
        console.print(
            f"ingested {report.passages_embedded} passages in {time.perf_counter() - started:.1f}s"
        )
        out = args.out or work / "results.json"
        started = time.perf_counter()
        document = run_items(load_settings(), index, evalset, out)
        wall = time.perf_counter() - started

        run = document.run
        print(f"PubMedQA PQA-L {args.split} half with corpus ablation: {len(evalset.items)} items")
        print(
            f"embedder {run.embedder.model}; generator {run.generator}; "
            f"{run.index.passages} passages; wall {wall:.0f}s"
        )
        print_outcomes(document)
        for column in (SHIPPED_COLUMN, "top_score", "gate.margin", "gate.coverage", "gate.maxsim"):
            print_calibration(document, column)
        if args.report:
            from lastword.evaluate.report import build_report

            files = build_report(out, args.report)
            print(f"\nreport: {files.html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
