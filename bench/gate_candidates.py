"""Candidate gate signals for transfer (issue 12 item 3): each one's AUC per corpus, and refits.

Four lexical signals not tried before (docs/calibration.md lists those that were), each read
from the ranking the hybrid retrieval gives the gate (its top 8 passages) and the top document:

- ``phrase``: the IDF-weighted share of the question's adjacent content-term pairs that stand
  together (within ``WINDOW`` words, either order) somewhere in the top document. Single words
  of a claim occur in related abstracts; the phrase mostly in the cited one.
- ``numbers``: the share of the question's numbers found in the top document (1 when it asks
  none); also reported on the questions that state a number.
- ``lexgap``: the top document's IDF-weighted coverage of the question minus that of the next
  *different* document in the ranking (its whole text).
- ``focus``: the question's rare terms covered by the top document, as a share of those
  covered by the top 8 passages and the top document together (0 when none is).

Sets: PubMedQA dev and test (each question with its abstract and again without it), SciFact's
300 dev claims with cited abstracts (and again with them removed), split odd/even id as
``bench/auto_calibration.py`` does, and the papers' DEV/TEST questions. The shipped signals
come from ``bench/gate_transfer.py --rows`` (same questions, same order; checked on the top
cosine) and, for the papers, from the gate itself. Models are fitted on PubMedQA dev only
(``gate/fit.py``); every other set is scored untouched. Busy, shared 2-core machine.

    .venv/bin/python bench/gate_candidates.py --rows TRANSFER_ROWS.json --papers PAPERS_INDEX
        [--out FILE.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_indexes import DATASETS, jsonl, probing, pubmedqa_halves, with_and_without
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.calibrate import SIGNAL_FIELDS
from lastword.evaluate.metrics import roc_auc
from lastword.gate.signals import DEPTH, combined_score
from lastword.gate.transfer import rare_cut
from lastword.pipeline import Pipeline
from lastword.settings import GATE_FEATURES, Settings, shipped_thresholds
from lastword.terms import STOPWORDS, TOKEN, idf

WINDOW = 3
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?")
CANDIDATES = ("phrase", "numbers", "lexgap", "focus")


def words(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def content(tokens: list[str]) -> list[str]:
    return [t for t in tokens if len(t) > 1 and t not in STOPWORDS]


def phrase(question: str, document: str, weight) -> float:
    q = content(words(question))
    pairs = {(a, b) for a, b in itertools.pairwise(q) if a != b}
    if not pairs:
        return 0.0
    tokens = words(document)
    where: dict[str, list[int]] = {}
    wanted = {t for pair in pairs for t in pair}
    for i, t in enumerate(tokens):
        if t in wanted:
            where.setdefault(t, []).append(i)
    total = found = 0.0
    for a, b in pairs:
        w = min(weight(a), weight(b))
        total += w
        pa, pb = where.get(a, []), where.get(b, [])
        if pa and pb and any(abs(i - j) <= WINDOW for i in pa for j in pb):
            found += w
    return found / total if total else 0.0


def numbers(question: str, document: str) -> float | None:
    asked = set(NUMBER.findall(question))
    if not asked:
        return None
    held = set(NUMBER.findall(document))
    return len(asked & held) / len(asked)


def coverage(question_terms: set[str], weight, text: str) -> float:
    total = sum(weight(t) for t in question_terms)
    if not total:
        return 0.0
    present = question_terms & set(content(words(text)))
    return sum(weight(t) for t in present) / total


def candidates(question: str, passages, store) -> dict[str, float | None]:
    total, counts = store.lexicon()

    def weight(t: str) -> float:
        return idf(counts, total, t)

    if not passages:
        return {"phrase": 0.0, "numbers": 0.0, "lexgap": 0.0, "focus": 0.0}
    top_doc = passages[0].doc_id
    top_text = f"{passages[0].title}\n{store.document_text(top_doc)}"
    q_terms = set(content(words(question)))
    other = next((p.doc_id for p in passages[:DEPTH] if p.doc_id != top_doc), None)
    other_text = store.document_text(other) if other else ""
    cut = rare_cut(total)
    rare = {t for t in q_terms if weight(t) >= cut} or q_terms
    by_top = coverage(rare, weight, top_text)
    near = top_text + "\n" + "\n".join(f"{p.title}\n{p.text}" for p in passages[:DEPTH])
    by_all = coverage(rare, weight, near)
    return {
        "phrase": phrase(question, top_text, weight),
        "numbers": numbers(question, top_text),
        "lexgap": coverage(q_terms, weight, top_text) - coverage(q_terms, weight, other_text),
        "focus": by_top / by_all if by_all else 0.0,
    }


def retrieved(index: Path, settings: Settings, questions, embedder) -> list[dict]:
    """(candidates, top cosine) for each question with and without its evidence."""
    rows = []
    for question, _, _, passages, store in with_and_without(
        index, settings, questions, embedder, DEPTH
    ):
        values = candidates(question, passages, store)
        values["_top"] = passages[0].score if passages else 0.0
        rows.append(values)
    return rows


def papers_rows(index: Path, settings: Settings) -> list:
    """Every signal of the papers' questions, from the gate itself (a model weighing all)."""
    rows = []
    with Pipeline.open(probing(settings), index) as pipeline:
        for q in jsonl(DATASETS / "papers" / "questions.jsonl"):
            result = pipeline.inspect(q["question"])
            values = {name: getattr(result.gate, f) or 0.0 for name, f in SIGNAL_FIELDS.items()}
            values.update(candidates(q["question"], result.passages, pipeline.store))
            half = "papers DEV" if int(q["id"][1:]) % 2 else "papers TEST"
            rows.append((half, values, q["kind"] == "answerable"))
    return rows


def collect(args, settings: Settings) -> dict[str, list]:
    transfer = json.loads(args.rows.read_text())
    halves = pubmedqa_halves()
    claims = [c for c in jsonl(DATASETS / "scifact" / "claims_dev.jsonl") if c["cited_doc_ids"]]
    embedder = MiniLMEmbedder()
    sets: dict[str, list] = {}
    jobs = [(name, args.pubmedqa, questions) for name, questions in halves.items()]
    jobs.append(
        (
            "scifact dev",
            args.scifact,
            [(c["claim"], {str(d) for d in c["cited_doc_ids"]}) for c in claims],
        )
    )
    for name, index, questions in jobs:
        started = time.perf_counter()
        fresh = retrieved(index, settings, questions, embedder)
        old = transfer[name]
        assert len(old) == len(fresh), (name, len(old), len(fresh))
        same = sum(abs(o[0]["top"] - f["_top"]) < 1e-4 for o, f in zip(old, fresh, strict=True))
        print(
            f"{name}: {len(fresh)} retrievals in {time.perf_counter() - started:.0f}s; "
            f"top cosine equal to the transfer rows for {same}/{len(fresh)}",
            flush=True,
        )
        rows = [({**o[0], **f}, o[1]) for o, f in zip(old, fresh, strict=True)]
        if name == "scifact dev":
            ids = [c["id"] for c in claims for _ in (0, 1)]
            sets["scifact dev (odd id)"] = [r for r, i in zip(rows, ids, strict=True) if i % 2]
            sets["scifact dev (even id)"] = [r for r, i in zip(rows, ids, strict=True) if not i % 2]
        sets[name] = rows
    if args.papers:
        started = time.perf_counter()
        for half, values, answerable in papers_rows(args.papers, settings):
            sets.setdefault(half, []).append((values, answerable))
        print(f"papers: gate runs in {time.perf_counter() - started:.0f}s", flush=True)
    return sets


def value(signals: dict, name: str) -> float:
    v = signals[name]
    return 1.0 if v is None else v  # numbers: a question that asks none misses none


def report(sets: dict[str, list]) -> None:
    print("\nAUC of each signal, answerable vs unanswerable:")
    names = [*CANDIDATES, "top", "coverage", "maxsim", "rare", "agreement", "placed"]
    print(f"  {'signal':10} " + " ".join(f"{s[:18]:>18}" for s in sets))
    for name in names:
        parts = []
        for rows in sets.values():
            pos = [value(s, name) for s, a in rows if a]
            neg = [value(s, name) for s, a in rows if not a]
            parts.append(f"{roc_auc(pos, neg):18.3f}")
        print(f"  {name:10} " + " ".join(parts))
    parts = []
    for rows in sets.values():
        pos = [s["numbers"] for s, a in rows if a and s["numbers"] is not None]
        neg = [s["numbers"] for s, a in rows if not a and s["numbers"] is not None]
        parts.append(
            f"{(roc_auc(pos, neg) if pos and neg else math.nan):12.3f} ({len(pos)}+{len(neg)})"
        )
    print(f"  {'numbers*':10} " + " ".join(f"{p:>18}" for p in parts) + "  (* asked a number)")
    shipped = shipped_thresholds("hybrid")["minilm"].model
    base = tuple(n for n in GATE_FEATURES if getattr(shipped, n))
    print(f"\nrefitted on pubmedqa dev only (shipped hybrid signals {base} + each):")
    dev = sets["pubmedqa dev"]
    for extra in [(), *((c,) for c in CANDIDATES), CANDIDATES]:
        features = (*base, *extra)
        weights = fit_any(dev, features)
        parts = []
        for rows in sets.values():
            scores = [score_any(weights, s, features) for s, _ in rows]
            pos = [x for x, (_, a) in zip(scores, rows, strict=True) if a]
            neg = [x for x, (_, a) in zip(scores, rows, strict=True) if not a]
            parts.append(f"{roc_auc(pos, neg):18.3f}")
        label = "+ " + ", ".join(extra) if extra else "(refit, none added)"
        print(f"  {label[:30]:30} " + " ".join(parts))
    parts = []
    for rows in sets.values():
        pos = [combined_score(shipped, s) for s, a in rows if a]
        neg = [combined_score(shipped, s) for s, a in rows if not a]
        parts.append(f"{roc_auc(pos, neg):18.3f}")
    print(f"  {'shipped hybrid model':30} " + " ".join(parts))


def fit_any(rows, features):
    import numpy as np

    from lastword.gate.fit import fit_logistic

    x = np.asarray([[value(s, f) for f in features] for s, _ in rows], dtype=float)
    y = np.asarray([a for _, a in rows], dtype=float)
    return fit_logistic(x, y, 1e-3)


def score_any(weights, signals, features) -> float:
    intercept, raw = weights
    z = intercept + sum(w * value(signals, f) for w, f in zip(raw, features, strict=True))
    return 1 / (1 + math.exp(-z)) if z > -500 else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, required=True, help="gate_transfer.py --rows file")
    parser.add_argument("--papers", type=Path, help="A copy of the papers index.")
    parser.add_argument("--pubmedqa", type=Path, required=True, help="PubMedQA's index (a copy).")
    parser.add_argument("--scifact", type=Path, required=True, help="SciFact's index (a copy).")
    parser.add_argument("--out", type=Path, help="Keep (and reuse) every row here (JSON).")
    args = parser.parse_args()
    print("numbers from a busy, shared 2-core machine; hybrid ranking")
    settings = Settings(retrieve={"mode": "hybrid"}, gate={"auto": False})
    if args.out and args.out.exists():
        sets = json.loads(args.out.read_text())
    else:
        sets = collect(args, settings)
        if args.out:
            args.out.write_text(json.dumps(sets))
    report(sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
