"""Benchmark: the retrieval gate inside a collection, on the real papers split in two.

The 20 papers go in two collections (poultry / feed / food-safety papers, and the others).
Each answerable question is asked three ways: of the whole index, of its paper's collection
and of the other one (where its answer is not); each unanswerable question of the whole index
and of its near paper's collection. It prints how many are answered each way, how many wrong-
collection questions are refused with the scope message ("... N documents elsewhere in the
library match"), and the false accepts (unanswerable questions answered) in the whole index
beside inside a collection.

    python bench/scoped_gate.py --index DIR    # an index of the 20 papers (lastword ingest)
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path

from lastword.pipeline import Pipeline
from lastword.scope import make_scope
from lastword.settings import Settings
from lastword.store import open_store

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets")) / "papers"
POULTRY = {
    "broiler_garlic_basil.pdf",
    "poultry_feed_toxicity.pdf",
    "h9n2_egg_antiviral.pdf",
    "fusarium_zearalenone_maize.pdf",
    "fusarium_wheat_volatiles.pdf",
    "essential_oils_small_fruits.pdf",
    "ocimum_antimicrobial.pdf",
    "adenovirus_gastroenteritis.pdf",
    "tularemia_coyote.pdf",
    "cryptococcus_eucalyptus.pdf",
}


def split(index: Path) -> None:
    with open_store(Settings(), index) as reader:
        embedder = reader.embedder
    with open_store(Settings(), index, write_as=embedder) as store:
        docs = {r.metadata.get("path"): r.doc_id for r in store.documents()}
        names = {c.name for c in store.collections()}
        if {"Poultry", "Other"} <= names:
            return
        store.add_to_collection("Poultry", [d for p, d in docs.items() if p in POULTRY])
        store.add_to_collection("Other", [d for p, d in docs.items() if p not in POULTRY])
        store.commit()
        store.refresh_derived()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    args = parser.parse_args()
    split(args.index)
    rows = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines()]
    counts: Counter[str] = Counter()
    with Pipeline.open(Settings(), args.index) as pipeline:
        for row in rows:
            paper = row.get("doc") or row.get("near")
            own = "Poultry" if paper in POULTRY else "Other"
            other = "Other" if own == "Poultry" else "Poultry"
            kind = row["kind"]
            ways = {"index": None, "own": make_scope(collections=[own])}
            if kind == "answerable":
                ways["wrong"] = make_scope(collections=[other])
            for way, scope in ways.items():
                result = pipeline.ask(row["question"], scope=scope)
                counts[f"{kind} {way} {result.status.value}"] += 1
                reason = result.refusal.reason if result.refusal else ""
                if way == "wrong" and reason in ("weak_in_scope", "outranked_in_scope"):
                    elsewhere = "elsewhere in the library match." in result.refusal.message
                    counts[f"wrong: {reason}, elsewhere={elsewhere}"] += 1
    for key in sorted(counts):
        print(f"  {key:<48} {counts[key]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
