"""Benchmark: follow-up questions over the real papers (issue 31).

``bench/data/followups.jsonl`` holds two- and three-turn conversations written for this bench
over ``$LASTWORD_DATASETS/papers/``: in some a later turn needs the earlier one ("Which strain
were they?"), in the others it brings a new subject mid-thread and must not take the old one.
Each later turn is labelled: ``needs`` (true: it must be carried), ``must`` (regexes the
standalone question must match: the earlier subject), ``must_not`` (regexes of the old subject
a topic switch must not carry), ``gold`` (a hand-written standalone question) and, where the
papers state the answer, ``facts`` (regex alternatives per fact, as ``bench/papers.py``).

Every turn goes through ``lastword.conversation.ask`` (the rewrite, then ``Pipeline.ask``) with
the default settings and the real MiniLM; the hand-written standalone question is asked alone
through ``Pipeline.ask`` beside it. Printed:

- standalone right: a turn that needs the earlier one is carried and matches every ``must``; a
  topic switch matches no ``must_not`` (and is asked as written);
- switches carrying the old subject (must be 0);
- same outcome as asked alone: the same status and the same cited documents as the
  hand-written standalone question;
- facts right, for the rewritten and for the hand-written standalone questions; phantoms.

    python bench/followups.py [--data DIR] [--index DIR] [--verbose] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from lastword.conversation import Turn
from lastword.conversation import ask as ask_in_conversation
from lastword.embed.minilm import MiniLMEmbedder
from lastword.gate.auto import calibrate_and_store
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.result import Result, Status
from lastword.settings import Settings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
SET = REPO / "bench" / "data" / "followups.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def matches(patterns: list[str], text: str) -> list[bool]:
    return [re.search(p, text, re.IGNORECASE) is not None for p in patterns]


def facts_right(facts: list[list[str]] | None, result: Result) -> bool | None:
    if not facts:
        return None
    if result.status is not Status.ANSWERED:
        return False
    return all(any(re.search(a, result.answer or "", re.I) for a in fact) for fact in facts)


def cited_docs(result: Result) -> frozenset[str]:
    by_n = {p.n: p.doc_id for p in result.passages}
    return frozenset(by_n[n] for n in result.citations if n in by_n)


def grade_turn(turn: dict[str, Any], result: Result, alone: Result) -> dict[str, Any]:
    asked = result.asked_as or result.question
    if turn["needs"]:
        right = result.asked_as is not None and all(matches(turn["must"], asked))
        carried_old = None
    else:
        carried_old = any(matches(turn["must_not"], asked))
        right = not carried_old
    return {
        "message": turn["message"],
        "asked_as": result.asked_as,
        "kind": result.followup.kind if result.followup else "standalone",
        "needs": turn["needs"],
        "standalone_right": right,
        "carried_old_subject": carried_old,
        "status": result.status.value,
        "alone_status": alone.status.value,
        "same_as_alone": result.status is alone.status and cited_docs(result) == cited_docs(alone),
        "facts": facts_right(turn.get("facts"), result),
        "facts_alone": facts_right(turn.get("facts"), alone),
        "phantoms": len(result.phantoms),
        "answer": result.answer,
    }


def run(pipeline: Pipeline, conversations: list[dict[str, Any]], verbose: bool) -> list[dict]:
    rows = []
    for i, conversation in enumerate(conversations):
        history: list[Turn] = []
        for j, turn in enumerate(conversation["turns"]):
            result, remembered = ask_in_conversation(pipeline, turn["message"], history)
            history.append(remembered)
            if j == 0:
                continue
            gold = turn.get("gold") or result.question
            row = grade_turn(turn, result, pipeline.ask(gold))
            row |= {"conversation": conversation["name"], "turn": j + 1, "half": i % 2}
            rows.append(row)
            if verbose and not row["standalone_right"]:
                print(f"  WRONG {conversation['name']} turn {j + 1}: {row['kind']} | "
                      f"{row['asked_as'] or row['message']}", file=sys.stderr)  # fmt: skip
    return rows


def summary(rows: list[dict]) -> dict[str, Any]:
    carry = [r for r in rows if r["needs"]]
    switch = [r for r in rows if not r["needs"]]
    with_facts = [r for r in rows if r["facts"] is not None]
    return {
        "turns": len(rows),
        "standalone_right": sum(r["standalone_right"] for r in rows),
        "carry": len(carry),
        "carry_right": sum(r["standalone_right"] for r in carry),
        "switch": len(switch),
        "switch_carried_old": sum(bool(r["carried_old_subject"]) for r in switch),
        "same_as_alone": sum(r["same_as_alone"] for r in rows),
        "with_facts": len(with_facts),
        "facts_right": sum(bool(r["facts"]) for r in with_facts),
        "facts_right_alone": sum(bool(r["facts_alone"]) for r in with_facts),
        "phantoms": sum(r["phantoms"] for r in rows),
    }


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"


def show(name: str, s: dict[str, Any]) -> None:
    print(f"{name}: later turns {s['turns']}")
    print(f"  standalone right        {pct(s['standalone_right'], s['turns'])}")
    print(f"    needing the earlier   {pct(s['carry_right'], s['carry'])}")
    print(f"    topic switches clean  {pct(s['switch'] - s['switch_carried_old'], s['switch'])}"
          f"  (carried the old subject: {s['switch_carried_old']})")  # fmt: skip
    print(f"  same outcome as alone   {pct(s['same_as_alone'], s['turns'])}")
    print(f"  facts right (rewritten) {pct(s['facts_right'], s['with_facts'])}")
    print(f"  facts right (hand-written standalone, alone) "
          f"{pct(s['facts_right_alone'], s['with_facts'])}")  # fmt: skip
    print(f"  phantoms                {s['phantoms']}")


def open_index(data: Path, index: Path | None, settings: Settings, embedder) -> Path:
    target = index or Path(tempfile.mkdtemp(prefix="followups-")) / "index"
    if not LocalStore.exists(target):
        print(f"ingesting the papers into {target} ...", file=sys.stderr)
        # the PDFs only: the folder's README.md is about the data set, not a paper
        ingest_paths(sorted((data / "papers").glob("*.pdf")), target, embedder, settings.ingest)
    with LocalStore.open_for_write(target, embedder.info) as store:
        calibrate_and_store(store, embedder, settings)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--index", type=Path, help="reuse (or build once) an index here")
    parser.add_argument("--set", type=Path, default=SET, help="the follow-up set (JSONL)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json", type=Path, help="write every graded turn here")
    args = parser.parse_args()
    if not (args.data / "papers" / "questions.jsonl").is_file():
        sys.exit(f"the papers set is not at {args.data / 'papers'}")
    settings = Settings()
    embedder = MiniLMEmbedder()
    index = open_index(args.data, args.index, settings, embedder)
    conversations = load(args.set)
    with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
        rows = run(pipeline, conversations, args.verbose)
    print(f"{len(conversations)} conversations "
          f"({sum(len(c['turns']) == 3 for c in conversations)} of three turns)")  # fmt: skip
    show("ALL", summary(rows))
    for half, name in ((0, "FIRST HALF (odd rows)"), (1, "SECOND HALF (even rows)")):
        show(name, summary([r for r in rows if r["half"] == half]))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
