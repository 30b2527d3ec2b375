"""Calibrate MiniLM's retrieval gate on PubMedQA dev by corpus ablation; score the test half.

Every PubMedQA question is asked twice over one index of all 1,000 abstracts: with its own
abstract (answerable) and with it excluded from retrieval (unanswerable: same question, its
evidence gone). Gates are compared side by side:

- cosine:   the top cosine score alone;
- each other signal alone (margin, coverage, maxsim), as a logistic model of it and the top score;
- the previous shipped gate (top, margin, coverage) and the full one (plus maxsim), and the full
  one with each signal left out, so what each signal adds can be read off;

every model fitted on the dev half only.

Thresholds are chosen on the dev half (weak: false accepts <= --weak-far; strong: <= --strong-far)
and the test half is scored at them, untouched by any choice.

    .venv/bin/python bench/gate_calibration_pubmedqa.py [--index DIR] [--data DIR]
        [--mode hybrid|dense|lexical] [--rows FILE]

``--mode`` is the retrieval the gate sees (default: the settings' ``[retrieve] mode``): a gate
must be calibrated on the ranking it actually sees. ``--rows`` keeps every retrieval's signals
in a JSON file, read back instead of retrieving again when it exists.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_indexes import probing
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.calibrate import SIGNAL_FIELDS
from lastword.evaluate.datasets.pubmedqa import corpus_record, load_pubmedqa
from lastword.evaluate.metrics import (
    bootstrap_auc,
    false_accept_rate,
    kept_share,
    threshold_for_false_accept_rate,
    wilson_interval,
    zero_false_accept_threshold,
)
from lastword.gate.fit import fit_gate_model
from lastword.gate.signals import combined_score
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.settings import (
    GATE_FEATURES,
    IngestSettings,
    load_settings,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def signals(pipeline: Pipeline, questions: list[tuple[str, str]]) -> list[tuple[dict, bool]]:
    """({signal: value}, answerable) for each question, with and without its paper."""
    rows = []
    for pmid, question in questions:
        for ablated in (False, True):
            gate = pipeline.inspect(question, exclude_doc_ids={pmid} if ablated else ()).gate
            values = {name: getattr(gate, field) or 0.0 for name, field in SIGNAL_FIELDS.items()}
            rows.append((values, not ablated))
    return rows


def report(name: str, split: str, pos: list, neg: list, weak: float, strong: float) -> None:
    auc = bootstrap_auc(pos, neg, seed=0)
    accepted = sum(s >= weak for s in neg)
    far = wilson_interval(accepted, len(neg))
    zero = zero_false_accept_threshold(pos, neg)
    print(
        f"{name:15}{split:6}AUC {auc.describe()}  "
        f"weak {weak:.3f}: FAR {far.describe(percent=True)} kept {kept_share(pos, weak):.1%}  "
        f"strong {strong:.3f}: FAR {false_accept_rate(neg, strong):.1%} "
        f"kept {kept_share(pos, strong):.1%}  zero-FA {zero:.3f} keeps {kept_share(pos, zero):.1%}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--index", type=Path, help="An index of the PubMedQA corpus to reuse.")
    parser.add_argument("--mode", choices=("hybrid", "dense", "lexical"))
    parser.add_argument("--rows", type=Path, help="Signals of every retrieval, kept (JSON).")
    parser.add_argument("--weak-far", type=float, default=0.02)
    parser.add_argument("--strong-far", type=float, default=0.005)
    args = parser.parse_args()
    records, test_ids = load_pubmedqa(args.data)
    dev = [(p, r["QUESTION"]) for p, r in records.items() if p not in test_ids]
    test = [(p, r["QUESTION"]) for p, r in records.items() if p in test_ids]

    if args.rows and args.rows.exists():
        saved = json.loads(args.rows.read_text())
        dev_rows = [(s, a) for s, a in saved["dev"]]
        test_rows = [(s, a) for s, a in saved["test"]]
        print(f"signals read from {args.rows} (mode {saved['mode']})")
        return evaluate(args, dev_rows, test_rows)
    with tempfile.TemporaryDirectory(prefix="lastword-gate-") as scratch:
        index = args.index
        if index is None:
            corpus = Path(scratch) / "pubmedqa.jsonl"
            corpus.write_text(
                "".join(json.dumps(corpus_record(p, r)) + "\n" for p, r in records.items())
            )
            index = Path(scratch) / "index"
            ingest_paths([corpus], index, MiniLMEmbedder(), IngestSettings())
        started = time.perf_counter()
        settings = probing(load_settings(), args.mode)
        with Pipeline.open(settings, index) as pipeline:
            dev_rows, test_rows = signals(pipeline, dev), signals(pipeline, test)
        seconds = time.perf_counter() - started
    mode = settings.retrieve.mode
    count = len(dev_rows) + len(test_rows)
    print(f"{count} retrievals ({mode}) with every signal in {seconds:.1f}s")
    if args.rows:
        args.rows.write_text(json.dumps({"mode": mode, "dev": dev_rows, "test": test_rows}))
    return evaluate(args, dev_rows, test_rows)


def evaluate(args: argparse.Namespace, dev_rows: list, test_rows: list) -> int:

    gates: dict[str, tuple[str, ...]] = {
        "cosine": ("top",),
        **{f"top+{name}": ("top", name) for name in GATE_FEATURES[1:]},
        "previous": ("top", "margin", "coverage"),
        **{f"all-{name}": tuple(f for f in GATE_FEATURES if f != name) for name in GATE_FEATURES},
        "combined": GATE_FEATURES,
    }
    for name, features in gates.items():
        if features == ("top",):
            score = lambda s: s["top"]  # noqa: E731  # the raw cosine, as shipped without a model
        else:
            model = fit_gate_model(
                [[s[f] for f in features] for s, _ in dev_rows],
                [a for _, a in dev_rows],
                features,
            )
            score = lambda s, model=model: combined_score(model, s)  # noqa: E731
            if name == "combined":
                print(f"combined model fitted on dev: {model.model_dump()}")
        dev_pos = [score(s) for s, a in dev_rows if a]
        dev_neg = [score(s) for s, a in dev_rows if not a]
        weak = threshold_for_false_accept_rate(dev_pos, dev_neg, args.weak_far)
        strong = threshold_for_false_accept_rate(dev_pos, dev_neg, args.strong_far)
        for split, rows in (("dev", dev_rows), ("test", test_rows)):
            pos = [score(s) for s, a in rows if a]
            neg = [score(s) for s, a in rows if not a]
            report(name, split, pos, neg, weak, strong)
        test_pos = [score(s) for s, a in test_rows if a]
        test_neg = [score(s) for s, a in test_rows if not a]
        at_2 = threshold_for_false_accept_rate(test_pos, test_neg, 0.02)
        oracle = kept_share(test_pos, at_2)
        print(f"{name:15}test  (oracle, for reference) kept at FAR<=2%: {oracle:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
