"""A veto above weak for SciFact's topical near misses (issue 12, stop 24): collect, then report.

Stage ``collect`` asks every question of four sets through ``Pipeline.inspect`` (hybrid ranking,
the shipped hybrid gate model) and keeps, per question: its gate score, the top 8 passages and
the top document's whole text. Sets: PubMedQA dev and test (each question with its abstract and
again without it), SciFact's train claims with evidence (each with its cited abstracts and again
without them: the sets a design may be chosen on) and the SciFact dev claims of
``bench/auto_calibration.py`` (its DEV/TEST halves; reported, never chosen on).

Stage ``report`` reads that cache and prints, per veto variant, how many unanswerable and
answerable questions above a weak threshold the veto turns away. Busy, shared 2-core machine.

    .venv/bin/python bench/gate_veto.py collect --pubmedqa PQA_INDEX --scifact SF_INDEX --cache F
    .venv/bin/python bench/gate_veto.py report --cache F
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auto_calibration import scifact_items
from bench_indexes import DATASETS, jsonl, pubmedqa_halves
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.metrics import roc_auc
from lastword.gate.fit import fit_logistic
from lastword.gate.signals import combined_score
from lastword.gate.transfer import rare_cut
from lastword.pipeline import Pipeline
from lastword.settings import GateSettings, Settings, shipped_thresholds
from lastword.store.local import LocalStore
from lastword.terms import STOPWORDS, idf, terms

#: (question, documents to exclude, answerable, half)
Item = tuple[str, tuple[str, ...], bool, str]


def pubmedqa_set(half: str) -> list[Item]:
    items: list[Item] = []
    for question, evidence in pubmedqa_halves()[f"pubmedqa {half}"]:
        cited = tuple(sorted(evidence))
        items += [(question, (), True, half), (question, cited, False, half)]
    return items


def corpus_sets(corpus: str, pipeline: Pipeline, limit: int | None = None) -> dict:
    """The labelled sets of one corpus, each a function giving (question, excluded,
    answerable, half) items: PubMedQA's two halves (the first 2 x ``limit`` asks of each, as
    questions come in pairs), or SciFact's train claims and its 300 dev claims."""
    if corpus == "pubmedqa":
        return {
            f"pubmedqa {h}": (lambda h=h: pubmedqa_set(h)[: None if limit is None else 2 * limit])
            for h in ("dev", "test")
        }
    return {
        "scifact train": lambda: scifact_train(pipeline.store),
        "scifact dev": lambda: scifact_items(pipeline.store, 100),
    }


def scifact_train(store: LocalStore) -> list[Item]:
    held = {d.doc_id for d in store.documents()}
    items: list[Item] = []
    for claim in jsonl(DATASETS / "scifact" / "claims_train.jsonl"):
        cited = tuple(str(d) for d in claim["cited_doc_ids"])
        if not claim["evidence"] or not cited or not set(cited) <= held:
            continue
        items += [(claim["claim"], (), True, "train"), (claim["claim"], cited, False, "train")]
    return items


def collect_set(pipeline: Pipeline, items: list[Item]) -> list[dict]:
    rows = []
    for question, excluded, answerable, half in items:
        result = pipeline.inspect(question, exclude_doc_ids=excluded, k=8)
        passages = result.passages
        top_doc = passages[0].doc_id if passages else ""
        rows.append(
            {
                "question": question,
                "answerable": answerable,
                "half": half,
                "score": result.gate.score if result.gate else 0.0,
                "passages": [
                    {"doc": p.doc_id, "title": p.title, "score": p.score, "text": p.text}
                    for p in passages
                ],
                "top_text": pipeline.store.document_text(top_doc) if top_doc else "",
            }
        )
    return rows


def row(store: LocalStore, titles: dict[str, str], ranked: dict, score: float, half: str) -> dict:
    """One question of a stop-23 cache as ``collect`` keeps it."""
    top = ranked["passages"][0]["doc"]
    return {
        "question": ranked["question"],
        "answerable": ranked["answerable"],
        "half": half,
        "score": score,
        "passages": [{**p, "title": titles.get(p["doc"], "")} for p in ranked["passages"]],
        "top_text": store.document_text(top),
    }


def reuse(args: argparse.Namespace, saved: dict) -> None:
    """PubMedQA and the SciFact dev claims from stop 23's caches (the same hybrid ranking):
    ``bench/gate_trained.py``'s rankings (top 8 passages), ``bench/gate_transfer.py --rows``
    (PubMedQA's signals, scored here by the shipped hybrid model) and
    ``bench/auto_calibration.py --rows`` (SciFact's gate scores, in its item order)."""
    rankings = json.loads(args.rankings.read_text())
    signals = json.loads(args.transfer_rows.read_text())
    model = shipped_thresholds("hybrid")["minilm"].model
    for corpus, index in (("pubmedqa", args.pubmedqa), ("scifact", args.scifact)):
        with LocalStore.open(index) as store:
            titles = {d.doc_id: d.title for d in store.documents()}

            if corpus == "pubmedqa":
                for half in ("dev", "test"):
                    name = f"pubmedqa {half}"
                    pairs = zip(rankings[name], signals[name], strict=True)
                    rows = []
                    for ranked, (features, answerable) in pairs:
                        assert answerable == ranked["answerable"]
                        assert abs(features["top"] - ranked["passages"][0]["score"]) < 1e-6
                        rows.append(
                            row(store, titles, ranked, combined_score(model, features), half)
                        )
                    saved[name] = rows
            else:
                by_ask = {(r["question"], r["answerable"]): r for r in rankings["scifact dev"]}
                items = scifact_items(store, 100)
                labelled = json.loads(args.sf_rows.read_text())["labelled"]
                saved["scifact dev"] = [
                    row(store, titles, by_ask[(question, answerable)], gate[0], half)
                    for (question, _, answerable, half), gate in zip(items, labelled, strict=True)
                ]


def collect(args: argparse.Namespace) -> None:
    saved = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    # Only the gate score is kept: the weak band's evidence check (which can change the band,
    # not the score) is off, for time.
    settings = Settings(
        gate=GateSettings(auto=False, evidence_floor=0.0), retrieve={"mode": "hybrid"}
    )
    embedder = MiniLMEmbedder()
    for corpus, index in (("pubmedqa", args.pubmedqa), ("scifact", args.scifact)):
        if index is None:
            continue
        with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
            for name, make in corpus_sets(corpus, pipeline).items():
                if name in saved or name not in args.sets:
                    continue
                started = time.perf_counter()
                saved[name] = collect_set(pipeline, make())
                print(f"{name}: {len(saved[name])} asks in {time.perf_counter() - started:.0f}s")
                args.cache.write_text(json.dumps(saved))


# ---- stage 2: report --------------------------------------------------------------------------

#: each corpus's weak threshold as its index calibrated it (hybrid ranking): PubMedQA is the
#: reference, so its automatic weak is the shipped one; SciFact's from ``auto_calibration.py``
WEAK = {"pubmedqa": 0.775, "scifact": 0.898506}
NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?")
SENTENCE = re.compile(r"(?<=[.!?])\s+")
NAME = re.compile(r"[A-Za-z0-9][\w\-]*")
POPULATION = {
    "mice": "mouse",
    "mouse": "mouse",
    "murine": "mouse",
    "rats": "rat",
    "rat": "rat",
    "human": "human",
    "humans": "human",
    "children": "child",
    "child": "child",
    "infants": "infant",
    "infant": "infant",
    "women": "woman",
    "woman": "woman",
    "men": "man",
    "adults": "adult",
    "adult": "adult",
    "elderly": "elderly",
    "zebrafish": "zebrafish",
    "drosophila": "drosophila",
    "yeast": "yeast",
}


def present(term: str, doc_terms: set[str], doc_stems: set[str]) -> bool:
    """A question term is in the document: as is, as its parts (hyphens), or by its stem."""
    if term in doc_terms:
        return True
    parts = [t for t in term.split("-") if len(t) > 1 and t not in STOPWORDS]
    if len(parts) > 1 and all(p in doc_terms or stem(p) in doc_stems for p in parts):
        return True
    return stem(term) in doc_stems


def stem(term: str) -> str:
    return term[:6] if len(term) > 6 else term.rstrip("s")


def looks_like_name(token: str) -> bool:
    """A gene, a code, an acronym: a capital past the first letter, or letters and digits."""
    has_digit = any(c.isdigit() for c in token)
    has_alpha = any(c.isalpha() for c in token)
    return (has_alpha and has_digit) or any(c.isupper() for c in token[1:])


def sentence_share(question: str, text: str, lexicon: tuple[int, dict[str, int]]) -> float:
    """The IDF-weighted share of the question's terms that the text's best single sentence
    holds (as ``present`` matches them): a claim stated in one sentence, or spread thin."""
    total, counts = lexicon
    asked = terms(question)
    weights = {t: idf(counts, total, t) for t in asked}
    whole = sum(weights.values()) or 1.0
    best = 0.0
    for sentence in SENTENCE.split(text):
        held = terms(sentence)
        stems = {stem(t) for t in held}
        best = max(best, sum(w for t, w in weights.items() if present(t, held, stems)) / whole)
    return best


def absent(row: dict, lexicon: tuple[int, dict[str, int]]) -> dict[str, list[str]]:
    """The question's terms of each kind that the top document (title and text) lacks."""
    total, counts = lexicon
    top = row["passages"][0] if row["passages"] else {"title": ""}
    doc = f"{top['title']}\n{row['top_text']}"
    doc_terms = terms(doc)
    doc_stems = {stem(t) for t in doc_terms}
    asked = terms(row["question"])
    cut = rare_cut(total)
    out = {
        "rare": sorted(t for t in asked if idf(counts, total, t) >= cut),
        "rarer": sorted(t for t in asked if counts.get(t, 0) <= 0.001 * total),
        "name": sorted(
            {t.lower() for t in NAME.findall(row["question"]) if looks_like_name(t)} & asked
        ),
    }
    missing = {k: [t for t in v if not present(t, doc_terms, doc_stems)] for k, v in out.items()}
    claimed = {POPULATION[t] for t in asked if t in POPULATION}
    held = {POPULATION[t] for t in doc_terms if t in POPULATION}
    missing["population"] = sorted(claimed - held)
    missing["sentence"] = [f"{sentence_share(row['question'], doc, lexicon):.4f}"]
    numbers = set(NUMBER.findall(doc))
    missing["number"] = sorted(set(NUMBER.findall(row["question"])) - numbers)
    return missing


VARIANTS = {
    "rare (df < 1%) absent, 1+": lambda m: len(m["rare"]) >= 1,
    "rare (df < 1%) absent, 2+": lambda m: len(m["rare"]) >= 2,
    "rarer (df <= 0.1%) absent, 1+": lambda m: len(m["rarer"]) >= 1,
    "name/code absent": lambda m: len(m["name"]) >= 1,
    "population absent": lambda m: len(m["population"]) >= 1,
    "name/code or population absent": lambda m: bool(m["name"] or m["population"]),
    "number absent": lambda m: len(m["number"]) >= 1,
    "best sentence holds < 0.4": lambda m: float(m["sentence"][0]) < 0.4,
    "best sentence holds < 0.5": lambda m: float(m["sentence"][0]) < 0.5,
}


def report(args: argparse.Namespace) -> None:
    saved = {}
    for path in [args.cache, *args.more]:
        saved.update(json.loads(path.read_text()))
    lexicons = {}
    for corpus, index in (("pubmedqa", args.pubmedqa), ("scifact", args.scifact)):
        with LocalStore.open(index) as store:
            lexicons[corpus] = store.lexicon()
    groups: dict[str, list[dict]] = {}
    for name, rows in saved.items():
        corpus = name.split()[0]
        for row in rows:
            half = row["half"] if name == "scifact dev" else name.split()[1]
            key = f"{corpus} {half.upper() if name == 'scifact dev' else half}"
            row["missing"] = absent(row, lexicons[corpus])
            row["corpus"] = corpus
            groups.setdefault(key, []).append(row)
    order = ["pubmedqa dev", "scifact train", "pubmedqa test", "scifact DEV", "scifact TEST"]
    print(
        "above each corpus's automatic weak (PubMedQA 0.775, SciFact 0.8985): unanswerable / "
        "answerable let through, and what each veto turns away (chosen on the first two)"
    )
    for key in order:
        rows = groups.get(key, [])
        if not rows:
            continue
        weak = WEAK[rows[0]["corpus"]]
        pos = [r for r in rows if r["answerable"]]
        neg = [r for r in rows if not r["answerable"]]
        fa = [r for r in neg if r["score"] >= weak]
        kept = [r for r in pos if r["score"] >= weak]
        auc = roc_auc([r["score"] for r in pos], [r["score"] for r in neg])
        print(
            f"{key}: {len(pos)} answerable, {len(neg)} unanswerable; gate AUC {auc:.4f}; "
            f"FA {len(fa)}/{len(neg)} ({len(fa) / len(neg):.1%}), kept {len(kept)}/{len(pos)} "
            f"({len(kept) / len(pos):.1%})"
        )
        for variant, vetoes in VARIANTS.items():
            caught = sum(vetoes(r["missing"]) for r in fa)
            lost = sum(vetoes(r["missing"]) for r in kept)
            vetoed_auc = roc_auc(
                [0.0 if vetoes(r["missing"]) and r["score"] >= weak else r["score"] for r in pos],
                [0.0 if vetoes(r["missing"]) and r["score"] >= weak else r["score"] for r in neg],
            )
            print(
                f"   {variant:34} FA {len(fa) - caught:>3}/{len(neg)} "
                f"({(len(fa) - caught) / len(neg):5.1%})  kept {len(kept) - lost:>3}/{len(pos)} "
                f"({(len(kept) - lost) / len(pos):5.1%})  [caught {caught}, lost {lost}]  "
                f"AUC {vetoed_auc:.4f}"
            )
        if args.show and key.startswith("scifact") and key != "scifact train":
            for r in sorted(fa, key=lambda r: -r["score"]):
                title = r["passages"][0]["title"][:70]
                print(f"     FA {r['score']:.4f} {r['question'][:100]} -> {title!r}")
                print(f"        absent from it: {r['missing']}")


SHIPPED_SIX = ("top", "coverage", "maxsim", "placed", "rare", "agreement")


def refit(args: argparse.Namespace) -> None:
    """``sentence`` (``sentence_share`` over the top document) as a seventh signal beside the
    shipped hybrid six, refitted on PubMedQA dev; AUC on PubMedQA test and all 300 SciFact dev
    claims (odd/even id), from stop 23's rankings and ``gate_transfer.py`` rows."""
    rankings = json.loads(args.rankings.read_text())
    signals = json.loads(args.transfer_rows.read_text())
    claim_ids = {c["claim"]: int(c["id"]) for c in jsonl(DATASETS / "scifact" / "claims_dev.jsonl")}
    data = {}
    for name in ("pubmedqa dev", "pubmedqa test", "scifact dev"):
        index = args.scifact if name.startswith("scifact") else args.pubmedqa
        with LocalStore.open(index) as store:
            lexicon = store.lexicon()
            titles = {d.doc_id: d.title for d in store.documents()}
            x, y, ids = [], [], []
            for ranked, (features, answerable) in zip(rankings[name], signals[name], strict=True):
                top = ranked["passages"][0]["doc"]
                text = f"{titles.get(top, '')}. {store.document_text(top)}"
                share = sentence_share(ranked["question"], text, lexicon)
                x.append([features[f] for f in SHIPPED_SIX] + [share])
                y.append(answerable)
                ids.append(claim_ids.get(ranked["question"], 0))
        data[name] = (np.array(x), np.array(y, dtype=bool), np.array(ids))
    x_dev, y_dev, _ = data["pubmedqa dev"]
    print("refitted on PubMedQA dev (logistic, gate/fit.py); ROC AUC answerable vs trap:")
    for label, columns in (
        ("shipped six, refitted", [0, 1, 2, 3, 4, 5]),
        ("six + sentence", [0, 1, 2, 3, 4, 5, 6]),
        ("sentence alone", [6]),
    ):
        intercept, weights = fit_logistic(x_dev[:, columns], y_dev.astype(float), 1e-3)
        cells = []
        for name, (x, y, ids) in data.items():
            z = x[:, columns] @ weights + intercept
            cells.append(f"{name} {roc_auc(list(z[y]), list(z[~y])):.4f}")
            if name == "scifact dev":
                for parity, mask in (("odd", ids % 2 == 1), ("even", ids % 2 == 0)):
                    zm, ym = z[mask], y[mask]
                    cells.append(f"{parity} {roc_auc(list(zm[ym]), list(zm[~ym])):.4f}")
        print(f"  {label:22} " + "  ".join(cells) + f"  (weights {np.round(weights, 3).tolist()})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage", choices=("collect", "reuse", "report", "refit"))
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--pubmedqa", type=Path)
    parser.add_argument("--scifact", type=Path)
    parser.add_argument(
        "--sets",
        nargs="+",
        default=["scifact dev", "scifact train", "pubmedqa dev", "pubmedqa test"],
    )
    parser.add_argument("--more", type=Path, nargs="*", default=[], help="report: more caches")
    parser.add_argument("--rankings", type=Path, help="reuse: gate_trained.py's rankings.json")
    parser.add_argument("--transfer-rows", type=Path, help="reuse: gate_transfer.py --rows")
    parser.add_argument("--sf-rows", type=Path, help="reuse: auto_calibration.py --rows (SciFact)")
    parser.add_argument("--show", action="store_true", help="Print SciFact's false accepts.")
    args = parser.parse_args()
    print("numbers from a busy, shared 2-core machine (times are upper bounds)")
    if args.stage == "collect":
        collect(args)
    elif args.stage == "reuse":
        saved = json.loads(args.cache.read_text()) if args.cache.exists() else {}
        reuse(args, saved)
        args.cache.write_text(json.dumps(saved))
    elif args.stage == "refit":
        refit(args)
    else:
        report(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
