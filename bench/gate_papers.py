"""Benchmark: the retrieval gate on the real papers, question by question (issues 11 and 12).

Asks every question of the papers set (``$LASTWORD_DATASETS/papers``) twice in one pass: the gate
on the index's own thresholds records its signals and score, and the same question is answered
with the gate open (weak = -1), so what the generator and verifier would do past the gate is
known for every question. Any gate rule is then replayed over those records without asking
again: a question counts as answered when the rule lets it through *and* the open-gate answer
was given; right when that answer is right (``bench/papers.py``'s grading).

Prints, per question, each signal and its share of the logistic score (which one drags a
refused answerable question down), each signal's AUC on the papers' DEV and TEST halves, and
the end-to-end figures (correct, false accepts, phantoms) per half for the gate rules compared.

    python bench/gate_papers.py --index DIR [--records OUT.json] [--from OUT.json]

``--index`` is reused as is (copy it first: ``bench/papers.py --index`` builds one). DEV =
odd-numbered questions (tune only on these); TEST = even. Numbers on a shared, busy machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.metrics import roc_auc
from lastword.gate.bands import SpecificRule
from lastword.gate.decide import Gate
from lastword.pipeline import Pipeline
from lastword.result import Status
from lastword.settings import SPECIFIC_FLOOR, SPECIFIC_REACH, GateModel, Settings, Thresholds
from lastword.store.local import LocalStore
from papers import DEFAULT_DATA, ReferencePages, grade, id_number, load_jsonl

#: the GateSignals fields replayed (None where the model did not compute one)
SIGNALS = ("score", "top_score", "coverage", "maxsim", "placed", "rare", "agreement", "specific")


def record(index: Path, data: Path) -> dict[str, Any]:
    """Gate signals and the open-gate answer for every question."""
    questions = load_jsonl(data / "questions.jsonl")
    refs = ReferencePages(data)
    settings = Settings()
    embedder = MiniLMEmbedder()
    rows = []
    with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
        gated = pipeline.thresholds
        open_gate = Thresholds(
            strong=1.0, weak=-1.0, model=gated.model, ranking=gated.ranking, evidence="open"
        )
        # the same signals, a gate that lets everything through: what the answer side does
        pipeline.thresholds = open_gate
        name = pipeline.index_info.embedder.name
        pipeline.gate = Gate(open_gate, pipeline.store, embedder, name, pipeline.gate.specific)
        for question in questions:
            result = pipeline.ask(question["question"])
            row = grade(question, result, refs)
            row["half"] = "dev" if id_number(question) % 2 else "test"
            row["signals"] = result.gate.model_dump() if result.gate else {}
            row["answered_open"] = result.status is Status.ANSWERED
            rows.append(row)
    return {
        "thresholds": {"weak": gated.weak, "strong": gated.strong},
        "model": gated.model.model_dump() if gated.model else None,
        "rows": rows,
    }


def replay(rows: list[dict[str, Any]], passes) -> dict[str, dict[str, int]]:
    """End-to-end figures per half when the gate lets through the rows ``passes(row)`` holds."""
    out = {}
    for half in ("all", "dev", "test"):
        chosen = [r for r in rows if half == "all" or r["half"] == half]
        ans = [r for r in chosen if r["kind"] == "answerable"]
        una = [r for r in chosen if r["kind"] == "unanswerable"]
        out[half] = {
            "correct": sum(bool(passes(r) and r["correct"]) for r in ans),
            "answerable": len(ans),
            "gate_refused": sum(not passes(r) for r in ans),
            "false_accepts": sum(bool(passes(r) and r["answered_open"]) for r in una),
            "gate_passed_unanswerable": sum(bool(passes(r)) for r in una),
            "unanswerable": len(una),
            "phantoms": sum(r["phantoms"] for r in chosen if passes(r)),
        }
    return out


def signal_aucs(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    aucs: dict[str, dict[str, float]] = {}
    for name in SIGNALS:
        for half in ("dev", "test"):
            pos = [
                r["signals"].get(name)
                for r in rows
                if r["half"] == half and r["kind"] == "answerable"
            ]
            neg = [
                r["signals"].get(name)
                for r in rows
                if r["half"] == half and r["kind"] == "unanswerable"
            ]
            if any(v is None for v in pos + neg):
                continue
            aucs.setdefault(name, {})[half] = round(roc_auc(pos, neg), 3)
    return aucs


def print_rows(records: dict[str, Any]) -> None:
    model = records["model"] or {}
    weighed = {k: v for k, v in model.items() if k != "intercept" and v}
    for r in records["rows"]:
        s = r["signals"]
        parts = []
        for name, w in weighed.items():
            value = s.get("top_score" if name == "top" else name) or 0.0
            parts.append(f"{name[:4]}={value:.2f}({w * value:+.1f})")
        mark = "ans" if r["kind"] == "answerable" else "una"
        outcome = "OK " if r.get("correct") else ("FA " if r.get("false_accept") else "   ")
        print(
            f"{r['id']} {r['half']:<4} {mark} open:{outcome} score {s.get('score', 0):.3f} "
            f"sent {s.get('sentence') or 0:.2f} " + " ".join(parts)
        )


def print_replay(name: str, figures: dict[str, dict[str, int]]) -> None:
    cells = []
    for half in ("all", "dev", "test"):
        f = figures[half]
        cells.append(
            f"{half.upper()} {f['correct']}/{f['answerable']} FA {f['false_accepts']}/"
            f"{f['unanswerable']} (gate: refused {f['gate_refused']}, passed "
            f"{f['gate_passed_unanswerable']})"
        )
    print(f"{name:<34} " + " | ".join(cells) + f" | phantoms {figures['all']['phantoms']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--index", type=Path, help="The papers index (copy it first).")
    parser.add_argument("--records", type=Path, help="Write the per-question records here.")
    parser.add_argument("--from", dest="source", type=Path, help="Replay records written earlier.")
    args = parser.parse_args()
    if args.source:
        records = json.loads(args.source.read_text(encoding="utf-8"))
    elif args.index and LocalStore.exists(args.index):
        records = record(args.index, args.data)
        if args.records:
            args.records.write_text(json.dumps(records, indent=1, ensure_ascii=False), "utf-8")
    else:
        print("need --index DIR (an existing papers index) or --from RECORDS", file=sys.stderr)
        return 2
    rows = records["rows"]
    print("numbers taken on a shared, busy 2-core machine")
    print_rows(records)
    print("signal AUC (answerable vs unanswerable):")
    for name, halves in signal_aucs(rows).items():
        dev, test = halves.get("dev", float("nan")), halves.get("test", float("nan"))
        print(f"  {name:<10} DEV {dev:.3f}  TEST {test:.3f}")
    weak = records["thresholds"]["weak"]
    print_replay(
        f"score alone (weak {weak:.3f})", replay(rows, lambda r: r["signals"]["score"] >= weak)
    )
    print_replay("no gate", replay(rows, lambda r: True))
    for cut in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        print_replay(f"score >= {cut}", replay(rows, lambda r, c=cut: r["signals"]["score"] >= c))
    thresholds = Thresholds(
        weak=weak, strong=records["thresholds"]["strong"], model=GateModel(**records["model"])
    )
    shipped = f"shipped: floor {SPECIFIC_FLOOR}, reach {SPECIFIC_REACH}"
    print(f"score >= weak, or the specific rule ({shipped}):")
    for floor in (0.45, 0.5, 0.55, 0.6, 0.65):
        for reach in (0.5, 1.0, 1.5, 2.0, 3.0, 10.0):
            rule = SpecificRule(floor, reach)

            def passes(r, rule=rule):
                s = r["signals"]
                return s["score"] >= weak or rule.lets_through(
                    s["score"], s["specific"], thresholds
                )

            name = f"floor {floor} reach {reach} (>= {rule.low(weak):.3f})"
            print_replay(name, replay(rows, passes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
