"""Benchmark: how close does each index's automatic gate calibration come to the best thresholds?

For one corpus at a time (``pubmedqa``, ``scifact``, ``papers``):

1. the index calibrates itself (``gate/auto.py``: its own titles and sentences, each asked with
   and without its document; no labels) and the time it took;
2. the labelled questions are scored by the same gate (shipped model; PubMedQA: each question
   with its abstract and again without it; SciFact: each dev claim with evidence, and again
   with its cited abstracts excluded; papers: the 50 answerable and 27 unanswerable questions),
   split into a dev and a test half;
3. printed per half: false accepts and answerable kept at the shipped weak threshold (PubMedQA
   dev), at the automatic one, and at the best one picked on the labelled dev half for the same
   2% target (the oracle a lab with labels would have); then at the automatic one with the
   gate's second way through below weak (``[gate] specific_floor`` / ``specific_reach``,
   ``gate/bands.py``), as the pipeline decides;
4. with ``--end-to-end``: every labelled question asked through the whole pipeline at the
   automatic thresholds (gate, the weak band's evidence check, the default extractive generator,
   the verifier): unanswerable ones answered (false accepts) and answerable ones answered, per
   half. This is what a user of the index sees; the gate alone is an upper bound on it.

Numbers from a busy, shared 2-core machine: the times are upper bounds.

    .venv/bin/python bench/auto_calibration.py CORPUS --index DIR [--per-half N] [--rows FILE]
        [--end-to-end [--show]]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate import metrics
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.gate.auto import VERSION, calibrate_index, shift_quantile, tail_of
from lastword.gate.bands import SpecificRule
from lastword.pipeline import Pipeline
from lastword.settings import GateSettings, Settings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
#: SciFact traps near or above the automatic weak threshold, read by hand against the top document
READINGS = Path(__file__).resolve().parent / "data" / "scifact_readings.json"

#: (question, documents to exclude, answerable, half)
Item = tuple[str, tuple[str, ...], bool, str]


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def pubmedqa_items(per_half: int, seed: int) -> list[Item]:
    records, test_ids = load_pubmedqa(DATA / "pubmedqa")
    items: list[Item] = []
    for half in ("dev", "test"):
        pmids = sorted(p for p in records if (p in test_ids) == (half == "test"))
        random.Random(seed).shuffle(pmids)
        for pmid in pmids[:per_half]:
            question = records[pmid]["QUESTION"]
            items += [(question, (), True, half), (question, (pmid,), False, half)]
    return items


def scifact_items(store: LocalStore, per_half: int) -> list[Item]:
    held = {d.doc_id for d in store.documents()}
    items: list[Item] = []
    counts = {"dev": 0, "test": 0}
    for claim in jsonl(DATA / "scifact" / "claims_dev.jsonl"):
        cited = tuple(str(d) for d in claim["cited_doc_ids"])
        if not claim["evidence"] or not cited or not set(cited) <= held:
            continue
        half = "dev" if int(claim["id"]) % 2 else "test"
        if counts[half] >= per_half:
            continue
        counts[half] += 1
        items += [(claim["claim"], (), True, half), (claim["claim"], cited, False, half)]
    return items


def papers_items() -> list[Item]:
    items: list[Item] = []
    for q in jsonl(DATA / "papers" / "questions.jsonl"):
        half = "dev" if int(q["id"][1:]) % 2 else "test"
        items.append((q["question"], (), q["kind"] == "answerable", half))
    return items


def labelled_items(args: argparse.Namespace, store: LocalStore) -> list[Item]:
    """The corpus's labelled questions, each with the documents to exclude and its half."""
    if args.corpus == "pubmedqa":
        return pubmedqa_items(args.per_half, args.seed)
    if args.corpus == "scifact":
        return scifact_items(store, args.per_half)
    return papers_items()


def rates(pos: list[float], neg: list[float], weak: float) -> str:
    far = metrics.false_accept_rate(neg, weak)
    accepted = metrics.accepted_count(neg, weak)
    return f"FA {accepted:>3}/{len(neg):<3} {far:6.1%}  kept {metrics.kept_share(pos, weak):6.1%}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=("pubmedqa", "scifact", "papers"))
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--per-half", type=int, default=100, help="Questions per half (max).")
    parser.add_argument("--queries", type=int, default=120, help="[gate] auto_queries.")
    parser.add_argument("--target", type=float, default=0.02, help="[gate] auto_target_far.")
    parser.add_argument("--rows", type=Path, help="Keep (or reuse) every score here (JSON).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("dense", "hybrid", "lexical"), default="dense")
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="Also ask every labelled question through the whole pipeline at the automatic "
        "thresholds and count what it answers.",
    )
    parser.add_argument(
        "--show",
        action="store_true",
        help="With --end-to-end: print each false accept, its top document and its answer.",
    )
    args = parser.parse_args()
    print("numbers from a busy, shared 2-core machine (times are upper bounds)")
    settings = Settings(
        gate=GateSettings(auto=False, auto_queries=args.queries, auto_target_far=args.target),
        retrieve={"mode": args.mode},
    )
    embedder = MiniLMEmbedder()
    embedder.embed_queries(["warm-up"])
    saved = json.loads(args.rows.read_text()) if args.rows and args.rows.exists() else {}
    with Pipeline(settings, LocalStore.open(args.index), embedder) as pipeline:
        store = pipeline.store
        info = store.info()
        print(
            f"{args.corpus}: {info.documents} documents, {info.passages} passages; "
            f"{args.mode} ranking"
        )
        key = f"auto-{args.queries}-{args.seed}-v{VERSION}"
        if key not in saved:
            started = time.perf_counter()
            auto = calibrate_index(store, embedder, settings, seed=args.seed)
            saved[key] = {
                "weak": auto.weak,
                "strong": auto.strong,
                "describe": auto.describe(),
                "seconds": time.perf_counter() - started,
                "scores": auto.scores,
                "kinds": auto.kinds,
                "rule": auto.rule,
                "tail": auto.tail,
            }
        auto_row = saved[key]
        print(f"automatic: {auto_row['describe']} (wall {auto_row['seconds']:.1f}s)")
        # The unanswerable sentences' tail, whichever rule was used: on PubMedQA with the
        # shipped thresholds this is the reference tail (gate/auto.py REFERENCE_TAIL).
        tail = tail_of(
            [
                score
                for score, kind in zip(
                    auto_row["scores"]["unanswerable"], auto_row["kinds"], strict=True
                )
                if kind == "sentence"
            ],
            shift_quantile(args.mode),
        )
        quantile = shift_quantile(args.mode)
        print(
            f"unanswerable sentences' gate score, {quantile:.0%} quantile (Harrell-Davis on "
            f"the log-odds, from the stored scores rounded to 1e-4): {tail:.4f}; as "
            f"calibrated: {auto_row['tail']}"
        )
        if "labelled" not in saved:
            items = labelled_items(args, store)
            started = time.perf_counter()
            labelled = []
            for question, excluded, answerable, half in items:
                gate = pipeline.inspect(question, exclude_doc_ids=excluded).gate
                labelled.append((gate.score, answerable, half, gate.specific))
            saved["labelled"] = labelled
            saved["labelled_seconds"] = time.perf_counter() - started
        if args.rows:
            args.rows.write_text(json.dumps(saved))
    shipped = settings.thresholds_for("minilm")
    shipped_weak = shipped.weak
    halves = {
        half: (
            [row[0] for row in saved["labelled"] if row[1] and row[2] == half],
            [row[0] for row in saved["labelled"] if not row[1] and row[2] == half],
        )
        for half in ("dev", "test")
    }
    dev_pos, dev_neg = halves["dev"]
    oracle = metrics.threshold_for_false_accept_rate(dev_pos, dev_neg, args.target)
    print(f"labelled: {len(saved['labelled'])} gate runs in {saved['labelled_seconds']:.0f}s")
    for half, (pos, neg) in halves.items():
        auc = metrics.roc_auc(pos, neg)
        print(f"  {half}: {len(pos)} answerable, {len(neg)} unanswerable; gate AUC {auc:.3f}")
        for name, weak in (
            ("shipped (PubMedQA dev)", shipped_weak),
            ("automatic (this index)", auto_row["weak"]),
            (f"oracle ({args.target:.0%} on labelled dev)", oracle),
        ):
            print(f"    {name:28} weak {weak:.4f}  {rates(pos, neg, weak)}")
        floor = settings.gate.specific_floor
        rows = [row for row in saved["labelled"] if row[2] == half]
        if not settings.gate.specific_reach or any(len(row) < 4 for row in rows):
            continue  # rows kept before the specific signal was recorded
        rule = SpecificRule(floor, settings.gate.specific_reach)
        auto = shipped.model_copy(update={"weak": auto_row["weak"], "strong": 1.0})
        through = [
            (row[0] >= auto.weak or rule.lets_through(row[0], row[3], auto), row[1]) for row in rows
        ]
        neg = [t for t, a in through if not a]
        pos = [t for t, a in through if a]
        print(
            f"    {'automatic + specific rule':28} weak {auto.weak:.4f}  FA {sum(neg):>3}/"
            f"{len(neg):<3} {sum(neg) / len(neg):6.1%}  kept {sum(pos) / len(pos):6.1%}  "
            f"(floor {floor}, reach {rule.reach}: down to {rule.low(auto.weak):.4f})"
        )
    if args.end_to_end:
        end_to_end(args, settings, embedder, auto_row)
    return 0


def end_to_end(args: argparse.Namespace, settings: Settings, embedder, auto_row: dict) -> None:
    """Every labelled question through ``Pipeline.ask`` at the automatic thresholds."""
    with LocalStore.open(args.index) as store:
        items = labelled_items(args, store)
        name = store.embedder.name
    shipped = settings.thresholds_for(name)
    automatic = shipped.model_copy(update={"weak": auto_row["weak"], "strong": auto_row["strong"]})
    chosen = settings.model_copy(
        update={"gate": settings.gate.model_copy(update={"thresholds": {name: automatic}})}
    )
    counts: dict[tuple[str, bool], list[int]] = {}
    accepted: list[tuple[str, str, object]] = []
    deciders: dict[tuple[str, bool], dict[str, int]] = {}
    started = time.perf_counter()
    with Pipeline(chosen, LocalStore.open(args.index), embedder) as pipeline:
        assert pipeline.thresholds.weak == automatic.weak, pipeline.thresholds_source
        for question, excluded, answerable, half in items:
            result = pipeline.ask(question, exclude_doc_ids=excluded)
            answered = result.status == "answered"
            tally = counts.setdefault((half, answerable), [0, 0])
            tally[0] += answered
            tally[1] += 1
            if answered and not answerable:
                accepted.append((half, question, result))
            if not answered:
                who = result.decided_by or result.status
                seen = deciders.setdefault((half, answerable), {})
                seen[str(who)] = seen.get(str(who), 0) + 1
    print(
        f"end to end at the automatic thresholds (weak {automatic.weak:.4f}, strong "
        f"{automatic.strong:.4f}; {len(items)} asks in {time.perf_counter() - started:.0f}s):"
    )
    for half in ("dev", "test"):
        fa, neg = counts.get((half, False), [0, 0])
        kept, pos = counts.get((half, True), [0, 0])
        print(
            f"  {half}: false accepts {fa}/{neg} ({fa / max(neg, 1):.1%}); answerable answered "
            f"{kept}/{pos} ({kept / max(pos, 1):.1%}); refused by: unanswerable "
            f"{deciders.get((half, False), {})}, answerable {deciders.get((half, True), {})}"
        )
    if args.show:
        show(accepted, args.corpus)


def show(accepted: list[tuple[str, str, object]], corpus: str) -> None:
    """Each false accept with what it was answered from, to be read: is that other document
    really about the question (a limit of the trap's labels) or a near miss? SciFact's are
    matched against the readings made by hand in ``data/scifact_readings.json``."""
    readings = {}
    if corpus == "scifact":
        data = json.loads(READINGS.read_text(encoding="utf-8"))
        readings = {r["claim"]: r for r in data["readings"] if r["set"] == "dev"}
    tally: dict[tuple[str, str], int] = {}
    for half, question, result in accepted:
        top = result.passages[0] if result.passages else None
        print(f"  false accept ({half}, gate {result.gate.score:.4f}): {question}")
        reading = readings.get(question)
        if reading and (top is None or reading["doc_id"] != top.doc_id):
            reading = None  # read against another document: the ranking has changed since
        if top is not None:
            print(f"    top document {top.doc_id}: {top.title}")
        print(f"    answer: {(result.answer or '')[:400]}")
        if reading:
            print(f'    read by hand: {reading["reading"]}: "{reading["quote"]}"')
        kind = reading["reading"].split(":")[0] if reading else "not read"
        tally[(half, kind)] = tally.get((half, kind), 0) + 1
    if readings:
        print(f"  read by hand ({READINGS.name}): {dict(sorted(tally.items()))}")


if __name__ == "__main__":
    sys.exit(main())
