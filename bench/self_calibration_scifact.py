"""Benchmark: calibrating the gate without labels, from the corpus's own titles, on SciFact.

The shipped gate was fitted on PubMedQA. On SciFact its thresholds do not transfer (6.4% false
accepts at the shipped weak threshold). A lab has no labelled questions; it has titles. This
measures whether ``eval dataset titles`` + ``eval calibrate [--refit]`` on the titles alone
places the threshold where the *expert-written, labelled* SciFact claims need it.

Steps: build SciFact dev (5,183 abstracts; 188 claims with evidence as scenarios, each again as
a trap with its cited abstracts excluded), ingest it with MiniLM, build a title set from the
index (``--titles`` documents, each a scenario and an ablated trap), run both sets through
``Pipeline.ask``, then print, for a target false-accept rate of 2% and 5%, the false-accept
rate and the share of answerable claims kept on the labelled claims when the threshold is:

- shipped: the PubMedQA-fitted model and thresholds, untouched;
- titles, thresholds: the shipped model, weak threshold chosen on the title set;
- titles, refit: the model refitted on the title set, weak threshold chosen there;
- oracle: the shipped model, threshold chosen on the labelled claims themselves (reference).

Last, the 2% refit is written to a settings file with ``write_thresholds`` and the labelled
claims are run again under it, end to end, to show the product does what the arithmetic says.

    .venv/bin/python bench/self_calibration_scifact.py [--index DIR] [--titles 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from eval_runs import console, run_items
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate import metrics
from lastword.evaluate.calibrate import (
    calibrate,
    labelled_scores,
    model_score,
    write_thresholds,
)
from lastword.evaluate.datasets.scifact import build_scifact
from lastword.evaluate.datasets.titles import build_title_set
from lastword.evaluate.evalset import load_evalset
from lastword.evaluate.records import Results, parse_results
from lastword.evaluate.refit import refit_gate_model
from lastword.ingest import ingest_paths
from lastword.settings import GateModel, load_settings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def rates(document: Results, weak: float, model: GateModel | None = None) -> tuple[str, str]:
    """(false-accept rate, answerable kept) on the labelled items at ``weak``."""
    scorer = partial(model_score, model) if model else None
    pos, neg, _ = labelled_scores(document.items, scorer=scorer)
    far = metrics.wilson_interval(metrics.accepted_count(neg, weak), len(neg))
    kept = metrics.wilson_interval(metrics.accepted_count(pos, weak), len(pos))
    return far.describe(percent=True), kept.describe(percent=True)


def cosine_only(document: Results) -> Results:
    """A copy as an embedder without token vectors would have recorded it: no maxsim, and the
    gate score is the top cosine."""
    copy = document.to_json()
    for item in copy["items"]:
        gate = item["result"].get("gate")
        if gate:
            gate.update(maxsim=None, score=gate["top_score"])
    return parse_results(copy)


def row(name: str, weak: float, far_kept: tuple[str, str]) -> None:
    print(f"{name:34} {weak:>8.4f}  {far_kept[0]:>22}  {far_kept[1]:>22}")


def outcomes(document: Results) -> str:
    items, scenarios, traps = document.items, document.scenarios, document.traps
    answered = sum(i.result.status == "answered" for i in scenarios)
    false_accepts = sum(i.result.status == "answered" for i in traps)
    phantoms = sum(len(i.result.phantoms) for i in items)
    return (
        f"traps answered {false_accepts}/{len(traps)} ({false_accepts / len(traps):.1%}), "
        f"claims answered {answered}/{len(scenarios)} ({answered / len(scenarios):.1%}), "
        f"phantoms {phantoms}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "scifact")
    parser.add_argument("--index", type=Path, help="Keep the index here (reruns skip ingest).")
    parser.add_argument("--titles", type=int, default=300, help="Documents in the title set.")
    parser.add_argument("--seed", type=int, default=0, help="The title sample's seed.")
    args = parser.parse_args()
    if not (args.data / "corpus.jsonl").is_file():
        print(f"SciFact not found at {args.data}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="lastword-selfcal-bench-") as scratch:
        work = Path(scratch)
        data_dir = args.index.with_name(args.index.name + "-data") if args.index else work / "data"
        built = build_scifact(args.data, "dev", True, data_dir)
        index = args.index or work / "index"
        started = time.perf_counter()
        shipped = load_settings()
        report = ingest_paths([built.corpus], index, MiniLMEmbedder(), shipped.ingest)
        console.print(
            f"ingested {report.passages_embedded} passages in {time.perf_counter() - started:.1f}s"
        )
        with LocalStore.open(index) as store:
            used, total = build_title_set(store, work / "titles.jsonl", args.titles, args.seed)
        titles = run_items(
            shipped, index, load_evalset(work / "titles.jsonl"), work / "t.json", "titles"
        )
        labelled = run_items(shipped, index, load_evalset(built.evalset), work / "l.json", "claims")

        print("SciFact dev, corpus ablation; gate calibrated on the corpus's own titles")
        print(
            f"title set: {used} of {total} documents' titles, each with and without its "
            f"document ({2 * used} items); labelled: {len(labelled['items'])} claims items"
        )
        print(f"labelled run at the shipped thresholds: {outcomes(labelled)}")
        model = refit_gate_model(titles.items)
        print(f"model refitted on the titles: {model.model_dump()}")
        title_auc = calibrate(titles).auc
        refit_auc = calibrate(titles, refit=model).auc
        print(
            f"title set ROC AUC: shipped model {title_auc.describe() if title_auc else 'n/a'}, "
            f"refitted {refit_auc.describe() if refit_auc else 'n/a'} (in-sample)"
        )
        for name, doc, fit in (("shipped", labelled, None), ("refitted", labelled, model)):
            auc = calibrate(doc, refit=fit).auc
            print(f"labelled claims ROC AUC, {name} model: {auc.describe() if auc else 'n/a'}")

        header = (
            f"{'threshold chosen by':34} {'weak':>8}  {'FAR on claims':>22}  {'claims kept':>22}"
        )
        shipped_weak = labelled.run.thresholds.weak
        print(f"\n{header}")
        row("shipped (PubMedQA dev, 2%)", shipped_weak, rates(labelled, shipped_weak))
        for target in (0.02, 0.05):
            print(f"-- target false-accept rate {target:.0%}")
            for name, source, fit in (
                ("titles, thresholds only", titles, None),
                ("titles, refit + threshold", titles, model),
                ("oracle (claims, shipped model)", labelled, None),
                ("oracle (claims, refitted model)", labelled, model),
            ):
                cal = calibrate(source, target_far=target, refit=fit)
                assert cal.target_threshold is not None
                row(name, cal.target_threshold, rates(labelled, cal.target_threshold, fit))

        # An embedder without token vectors (the API ones) records no maxsim and ships a
        # cosine-only gate: the same runs, seen that way.
        titles_cos, labelled_cos = cosine_only(titles), cosine_only(labelled)
        model_cos = refit_gate_model(titles_cos.items)
        shipped_auc, refit_cos_auc = (
            calibrate(labelled_cos).auc,
            calibrate(labelled_cos, refit=model_cos).auc,
        )
        print(
            f"\nas a cosine-only embedder: refitted on titles {model_cos.model_dump()}; claims ROC "
            f"AUC cosine {shipped_auc.describe() if shipped_auc else 'n/a'}, refitted "
            f"{refit_cos_auc.describe() if refit_cos_auc else 'n/a'}"
        )
        for target in (0.02, 0.05):
            print(f"-- target false-accept rate {target:.0%}")
            for name, source, fit in (
                ("titles, cosine threshold", titles_cos, None),
                ("titles, refit + threshold", titles_cos, model_cos),
                ("oracle (claims, cosine)", labelled_cos, None),
                ("oracle (claims, refitted model)", labelled_cos, model_cos),
            ):
                cal = calibrate(source, target_far=target, refit=fit)
                assert cal.target_threshold is not None
                row(name, cal.target_threshold, rates(labelled_cos, cal.target_threshold, fit))

        # End to end: the refit written to a settings file as `eval calibrate --refit --write`
        # would, and the claims run again under it.
        refit_two = calibrate(titles, target_far=0.02, refit=model)
        strong, weak = refit_two.chosen()
        config = work / "lastword.toml"
        write_thresholds(config, "minilm", strong, weak, "bench", model=model.model_dump())
        again = run_items(
            load_settings(config),
            index,
            load_evalset(built.evalset),
            work / "l2.json",
            "claims again",
        )
        print(f"\nclaims run again under the title refit (weak {weak:.4f}): {outcomes(again)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
