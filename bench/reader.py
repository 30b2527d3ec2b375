"""Benchmark: the learned reader beside MiniLM cosine, per corpus, and the gate it decides.

One run prints, per corpus:

- sentence choice: the share of questions whose first (first three) candidate overlaps the
  gold answer (COVID-QA: the annotated span; SciFact: an evidence sentence; papers: a sentence
  of the gold paper matching one of the question's facts), reader beside cosine;
- answerability AUC: answerable questions against unanswerable ones (corpus ablation; papers:
  its labelled unanswerable questions), the reader's answerability beside the top cosine;
- leave-one-corpus-out: the weak threshold fitted on the other three corpora's fit parts
  (``evaluate/reader_gate_fit.py``), and on the held-out corpus's report part the share of
  answerable questions answered and of unanswerable ones let through;
- the papers set end to end, ingested as a user does (``lastword ingest`` on the folder, its
  README and notes included): correct / false accepts / refused / phantoms per half, the
  reader (``[gate] decide = "reader"``, ``generator = "reader"``) beside today's default (the
  rule-based extractive generator and the retrieval gate with its per-index calibration);
- speed on the papers index: warm ``ask`` p50 and cold CLI ``ask``, both configurations.

Splits: COVID-QA DEV (TRAIN papers at position 1 mod 6) and TEST (2 mod 3, read for the
figures only); PubMedQA dev (fit) / test (report); SciFact train (fit) / dev (report); papers
odd (fit, DEV) / even (report, TEST). Retrievals are cached in ``--work``.

    python bench/reader.py [--work DIR] [--data DIR] [--json OUT] [--skip-papers] [--skip-speed]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate import gate_cases
from lastword.evaluate.datasets.covidqa import split_of
from lastword.evaluate.metrics import roc_auc
from lastword.evaluate.reader_eval import as_passages, cosine_scorer, evaluate, reader_scorer
from lastword.evaluate.reader_fit import gathered
from lastword.evaluate.reader_gate_fit import leave_one_out
from lastword.read.reader import Reader, Reading

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
TARGET_FAR = 0.05


def _cases(data: Path, work: Path, log) -> list[gate_cases.GateCase]:
    from lastword.cli.fit import gather_gate_cases

    return gather_gate_cases(data, work, log)


def _scifact_evidence(data: Path) -> dict[str, list[str]]:
    """scifact-<claim id> -> its evidence sentences' text."""
    corpus = {}
    for line in (data / "scifact" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        corpus[str(raw["doc_id"])] = raw["sentences"]
    out = {}
    for split in ("train", "dev"):
        path = data / "scifact" / f"claims_{split}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            claim = json.loads(line)
            texts = [
                corpus[d][i].strip()
                for d, sets in (claim.get("evidence") or {}).items()
                for s in sets
                for i in s["sentences"]
                if d in corpus
            ]
            out[f"scifact-{claim['id']}"] = texts
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _sentence_choice(cases, right_of, scorer) -> tuple[float, float, int]:
    top1 = top3 = n = 0
    for case in cases:
        judge = right_of(case)
        if judge is None:
            continue
        n += 1
        reading = scorer(case.question, as_passages(case.passages))
        order = reading.ranked()[:3]
        hits = [judge(reading, i) for i in order]
        top1 += bool(hits and hits[0])
        top3 += any(hits)
    return top1 / max(n, 1), top3 / max(n, 1), n


def _answerability(cases, reader: Reader) -> dict[str, list[tuple[float, float, bool]]]:
    """corpus/part -> (reader answerability, top cosine, answerable) per case."""
    out: dict[str, list[tuple[float, float, bool]]] = {}
    for case in cases:
        best = reader.run(case.question, as_passages(case.passages)).answerability
        top = case.passages[0].score if case.passages else 0.0
        out.setdefault(f"{case.corpus}/{case.part}", []).append((best, top, case.answerable))
    return out


def _auc(rows, column: int) -> float | None:
    pos = [r[column] for r in rows if r[2]]
    neg = [r[column] for r in rows if not r[2]]
    return roc_auc(pos, neg) if pos and neg else None


def _papers_questions(data: Path) -> list[dict]:
    path = data / "papers" / "questions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _facts_hit(facts: list[list[str]], text: str) -> list[bool]:
    return [any(re.search(alt, text, flags=re.IGNORECASE) for alt in fact) for fact in facts]


def papers_right_of(data: Path):
    """A candidate is right when it states one of the question's facts."""
    questions = {q["id"]: q for q in _papers_questions(data)}

    def right_of(case):
        q = questions.get(case.qid)
        if q is None or q["kind"] != "answerable":
            return None
        return lambda reading, i: any(_facts_hit(q["facts"], reading.units[i].text))

    return right_of


def papers_end_to_end(data: Path, work: Path, log) -> dict:
    """Ask every question of the papers set through ``Pipeline.ask`` over the folder as a user
    ingests it; the reader beside today's default rules and retrieval gate (calibrated on
    the index as ``lastword ingest`` calibrates it)."""
    from lastword.gate.auto import calibrate_and_store
    from lastword.pipeline import Pipeline
    from lastword.settings import Settings
    from lastword.store.local import LocalStore

    index = gate_cases._ingested([data / "papers"], work / "index-papers")
    questions = _papers_questions(data)
    out = {}
    for config in ("reader", "today"):
        settings = Settings()
        if config == "reader":
            settings.gate.decide = "reader"
            settings.generate.generator = "reader"
        else:
            with LocalStore.open_for_write(index, MiniLMEmbedder().info) as store:
                calibrate_and_store(store, MiniLMEmbedder(), settings)
        rows = []
        with Pipeline.open(settings, index) as pipeline:
            for q in questions:
                result = pipeline.ask(q["question"])
                answered = result.status.value == "answered"
                hits = _facts_hit(q.get("facts", []), result.answer or "") if answered else []
                rows.append(
                    {
                        "id": q["id"],
                        "half": "DEV" if int(q["id"][1:]) % 2 else "TEST",
                        "answerable": q["kind"] == "answerable",
                        "answered": answered,
                        "correct": answered and q["kind"] == "answerable" and all(hits),
                        "phantoms": len(result.phantoms),
                        "ms": result.timings_ms.get("total", 0.0),
                    }
                )
        summary = {}
        for half in ("DEV", "TEST", "ALL"):
            part = [r for r in rows if half == "ALL" or r["half"] == half]
            pos = [r for r in part if r["answerable"]]
            neg = [r for r in part if not r["answerable"]]
            summary[half] = {
                "correct": sum(r["correct"] for r in pos),
                "answerable": len(pos),
                "false_accepts": sum(r["answered"] for r in neg),
                "unanswerable": len(neg),
                "refused": sum(not r["answered"] for r in pos),
                "phantoms": sum(r["phantoms"] for r in part),
            }
        summary["warm_ask_p50_ms"] = statistics.median(r["ms"] for r in rows)
        out[config] = summary
        log(f"papers {config}: {summary}")
    return out


def cold_ask(index: Path, question: str, env: dict[str, str]) -> float:
    """Seconds for one ``lastword ask`` process, start to exit."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from lastword.cli import main; main()",
            "ask",
            question,
            "--index",
            str(index),
        ],
        capture_output=True,
        env=env,
        check=False,
        timeout=300,
    )
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lastword-bench-reader"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--skip-papers", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if not (args.data / "covidqa").is_dir():
        print(f"data sets not found at {args.data}", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report: dict = {}
    reader = Reader()
    embedder = MiniLMEmbedder()
    cosine = cosine_scorer(embedder)
    read = reader_scorer(reader)

    # 1. COVID-QA sentence choice (DEV and TEST papers)
    train = gathered(args.data, "train", args.work, log)
    test = gathered(args.data, "test", args.work, log)
    dev = [e for e in train if split_of(int(e.doc_id.rsplit("-", 1)[1])) == "dev"]
    print(
        "\n== sentence choice (a candidate overlapping the gold answer), top 8 passages retrieved"
    )
    print(
        f"{'corpus':<22}{'questions':>10}{'answer in top 8':>17}{'reader top1':>13}"
        f"{'top3':>7}{'cosine top1':>13}{'top3':>7}"
    )
    choice = {}
    for name, examples in (("covidqa DEV", dev), ("covidqa TEST", test)):
        r = evaluate(examples, read, ablated=False)
        c = evaluate(examples, cosine, ablated=False)
        choice[name] = {"reader": r.row(), "cosine": c.row()}
        print(
            f"{name:<22}{r.questions:>10}{r.retrieved:>17}{r.top1:>13.3f}{r.top3:>7.3f}"
            f"{c.top1:>13.3f}{c.top3:>7.3f}"
        )

    cases = _cases(args.data, args.work, log)
    evidence = _scifact_evidence(args.data)

    def scifact_right(case):
        texts = [_squash(t) for t in evidence.get(case.qid, [])]
        if not case.answerable or not texts:
            return None

        def judge(reading: Reading, i: int) -> bool:
            unit = _squash(reading.units[i].text)
            return any(unit in t or t in unit for t in texts)

        return judge

    for name, corpus, right_of in (
        ("scifact report", "scifact", scifact_right),
        ("papers (all)", "papers", papers_right_of(args.data)),
    ):
        chosen = [
            c for c in cases if c.corpus == corpus and (c.part == "report" or corpus == "papers")
        ]
        r1, r3, n = _sentence_choice(chosen, right_of, read)
        c1, c3, _ = _sentence_choice(chosen, right_of, cosine)
        choice[name] = {"n": n, "reader": [r1, r3], "cosine": [c1, c3]}
        print(f"{name:<22}{n:>10}{'':>17}{r1:>13.3f}{r3:>7.3f}{c1:>13.3f}{c3:>7.3f}")
    report["sentence_choice"] = choice

    # 2. answerability AUC, and 3. leave-one-corpus-out thresholds
    scored = _answerability(cases, reader)
    print("\n== answerability AUC (answerable vs unanswerable), reader beside top cosine")
    auc = {}
    for key in sorted(scored):
        rows = scored[key]
        a_r, a_c = _auc(rows, 0), _auc(rows, 1)
        auc[key] = {"reader": a_r, "top_cosine": a_c, "n": len(rows)}
        print(f"{key:<22}{len(rows):>6}  reader {a_r or 0:.3f}   cosine {a_c or 0:.3f}")
    report["answerability_auc"] = auc
    fit = {
        k.split("/")[0]: [(r[0], r[2]) for r in v] for k, v in scored.items() if k.endswith("/fit")
    }
    rep = {
        k.split("/")[0]: [(r[0], r[2]) for r in v]
        for k, v in scored.items()
        if k.endswith("/report")
    }
    print(
        f"\n== leave-one-corpus-out: weak threshold at <= {TARGET_FAR:.0%} false accepts on each "
        "of the other three (fit parts), read on the held-out report part"
    )
    loco = [h.row() for h in leave_one_out(fit, rep, TARGET_FAR)]
    for h in loco:
        print(
            f"{h['held_out']:<10} weak {h['weak']:.3f}  answered {h['answered']:.1%} of "
            f"{h['answerable']}  false accepts {h['false_accepts']:.1%} of {h['unanswerable']}"
        )
    report["loco"] = loco

    # 4. the papers set end to end, and 5. speed
    if not args.skip_papers:
        print("\n== papers set, the folder ingested as a user does (README and notes included)")
        papers = papers_end_to_end(args.data, args.work, log)
        for config, summary in papers.items():
            for half in ("DEV", "TEST", "ALL"):
                s_ = summary[half]
                print(
                    f"{config:<8}{half:<6} correct {s_['correct']}/{s_['answerable']}  "
                    f"false accepts {s_['false_accepts']}/{s_['unanswerable']}  "
                    f"refused {s_['refused']}  phantoms {s_['phantoms']}"
                )
            print(f"{config:<8}warm ask p50 {summary['warm_ask_p50_ms']:.0f} ms")
        report["papers"] = papers
        if not args.skip_speed:
            env = dict(os.environ)
            question = "What was the fat content of the giant panda milk?"
            for config in ("reader", "today"):
                run_env = dict(env)
                if config == "reader":
                    run_env |= {
                        "LASTWORD_GATE__DECIDE": "reader",
                        "LASTWORD_GENERATE__GENERATOR": "reader",
                    }
                times = [cold_ask(args.work / "index-papers", question, run_env) for _ in range(3)]
                report.setdefault("cold_ask_s", {})[config] = statistics.median(times)
                print(f"{config:<8}cold CLI ask (median of 3) {statistics.median(times):.2f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
