"""Benchmark: how robust the answer side's DEV choices are (leave one paper out, floor sweeps).

The extractive generator's ``ANSWER_MODEL`` and floors were chosen on the DEV (odd-numbered)
questions of the real-papers set. A choice that sits on DEV's exact edge declines or mis-picks
similar TEST answers. This script measures that on DEV alone, over the retrieval that
``bench/answer_scorer.py`` cached (run it once first on the same ``--index``):

1. ``--cv``: ``ANSWER_MODEL`` refitted leave-one-paper-out on DEV (every DEV question of one
   paper, answerable or not, held out together), for each ridge strength in ``--ridges`` and
   each feature set (all ``FEATURES``; ``--drop`` leaves some out). Each held-out question is
   answered end to end with the model that never saw its paper, under the default policy (the
   gate's cached band; a weak-band question only when it asks a specific and reaches
   ``[gate] evidence_floor``; the others over ``RELEVANCE_FLOOR``), and graded. Printed: DEV
   correct and false accepts out of fold, out-of-fold sentence AUC; the shipped model's DEV
   numbers in the same policy beside them. TEST is printed only for the model fitted on all
   of DEV, to report, never to choose.
2. ``--sweep``: each DEV question's opening relevance against the floors it meets
   (``RELEVANCE_FLOOR``, the evidence floor), how many DEV questions sit within ``--margin``
   of each, and DEV correct / false accepts at each floor of a sweep.

    python bench/answer_cv.py --index DIR [--cv] [--ridges 3,30,300] [--sweep]

Numbers are from whatever machine runs it (questions counted do not depend on load).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from lastword.evaluate.metrics import roc_auc
from lastword.gate.fit import fit_logistic
from lastword.generate import answer_model, extractive
from lastword.generate.answer_model import FEATURES
from lastword.generate.answering import QuestionProfile, candidate_features
from lastword.generate.extractive import ExtractiveGenerator, candidates_of
from lastword.generate.protocol import GenerationRequest
from lastword.pipeline import Pipeline
from lastword.result import Band
from lastword.settings import EVIDENCE_FLOOR, load_settings
from lastword.verify import verify_draft

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_scorer import open_cache
from papers import DEFAULT_DATA, fact_matches, id_number, load_jsonl


def half_of(q: dict) -> str:
    return "DEV" if id_number(q) % 2 else "TEST"


def paper_of(q: dict) -> str:
    return q.get("doc") or q.get("near") or q["id"]


def answer(q, result, embedder, settings, floor: float, band_floor: float) -> str | None:
    """The default policy over cached retrieval: the answer text, or None when declined."""
    if not result.passages:
        return None
    request = GenerationRequest(q["question"], result.passages, "corpus")
    generator = ExtractiveGenerator(embedder, 3, relevance_floor=floor)
    if in_weak_band(result):
        # the pipeline's evidence check (step 4b): a specific asked, over the band's floor, or
        # over the generator's own floor when the passages state every word of the question
        check = ExtractiveGenerator(embedder, 3, band_floor, specific_only=True)
        if not check.admits_weak(request, band_floor)[0]:
            return None
    draft = generator.generate(request)
    checked = verify_draft(
        draft.text, result.passages, embedder, settings.verify, question=q["question"]
    )
    if checked.phantoms:
        print(f"  PHANTOM in {q['id']}: {checked.phantoms}")
    return checked.answer if checked.supported else None


def in_weak_band(result) -> bool:
    """Below the gate's weak threshold: refused there, or let through by the evidence check
    (which the cached band already holds, under the shipped model and floor)."""
    return result.band is Band.WEAK or (
        result.gate is not None and result.gate.evidence_floor is not None
    )


def grade(questions, retrieved, embedder, settings, floor, band_floor) -> dict[str, list]:
    """{"DEV"/"TEST": [correct ids, false-accept ids]} under the current ``ANSWER_MODEL``."""
    out: dict[str, list] = {"DEV": [[], []], "TEST": [[], []]}
    for q in questions:
        got = answer(q, retrieved[q["question"]], embedder, settings, floor, band_floor)
        if q["kind"] == "answerable":
            if got is not None and all(fact_matches(q["facts"], got)):
                out[half_of(q)][0].append(q["id"])
        elif got is not None:
            out[half_of(q)][1].append(q["id"])
    return out


def fitted(x: np.ndarray, y: np.ndarray, keep: np.ndarray, ridge: float) -> dict[str, float]:
    """``ANSWER_MODEL`` fitted on the kept features' columns (a left-out feature weighs 0)."""
    intercept, weights = fit_logistic(x[:, keep], y, ridge)
    kept = [name for name, k in zip(FEATURES, keep, strict=True) if k]
    model = {"intercept": intercept} | {name: 0.0 for name in FEATURES}
    return model | {name: float(w) for name, w in zip(kept, weights, strict=True)}


def set_model(model: dict[str, float]) -> None:
    answer_model.ANSWER_MODEL.clear()
    answer_model.ANSWER_MODEL.update(model)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--cv", action="store_true", help="Leave-one-paper-out refits on DEV.")
    parser.add_argument("--ridges", default="3,10,30,100,300")
    parser.add_argument("--drop", default="", help="Feature sets to try without: 'a+b,c'.")
    parser.add_argument("--sweep", action="store_true", help="Floor sensitivity on DEV.")
    parser.add_argument("--floors", default="0.0,0.03,0.05,0.08,0.1,0.12,0.15,0.2,0.25,0.3")
    parser.add_argument("--band-floors", default="0.3,0.35,0.4,0.45,0.5,0.55,0.6")
    parser.add_argument("--margin", type=float, default=0.05)
    args = parser.parse_args()
    questions = load_jsonl(args.data / "questions.jsonl")
    settings = load_settings()
    shipped = dict(answer_model.ANSWER_MODEL)
    floor, band_floor = extractive.RELEVANCE_FLOOR, EVIDENCE_FLOOR
    print("numbers from a busy shared machine (counts of questions do not depend on load)")
    with Pipeline.open(settings, args.index) as pipeline:
        cache = open_cache(pipeline, questions, args.cache)
        embedder, retrieved = cache.embedder, cache.retrieved
        base = grade(questions, retrieved, embedder, settings, floor, band_floor)
        for name in ("DEV", "TEST"):
            ok, fa = base[name]
            print(f"shipped model  {name:<4} correct {len(ok):>2}  false accepts {len(fa)} {fa}")
        if args.sweep:
            sweep(questions, retrieved, embedder, settings, args)
        if args.cv:
            cross_validate(questions, retrieved, embedder, settings, args, shipped)
        set_model(shipped)
        cache.save()
    return 0


def sweep(questions, retrieved, embedder, settings, args) -> None:
    """Opening relevance per DEV question, margins to the floors, and the floors swept."""
    scorer = ExtractiveGenerator(embedder, 3, relevance_floor=0.0)
    print("DEV opening relevance (no floor), band, right at floor 0:")
    near = {extractive.RELEVANCE_FLOOR: [], EVIDENCE_FLOOR: []}
    for q in questions:
        if half_of(q) != "DEV":
            continue
        result = retrieved[q["question"]]
        request = GenerationRequest(q["question"], result.passages, "corpus")
        best = scorer.best(request) if result.passages else 0.0
        print(f"  {q['id']} {q['kind']:<12} {best:.3f} band {result.band.value}")
        for f, ids in near.items():
            if abs(best - f) <= args.margin:
                ids.append(f"{q['id']}:{best:.3f}")
    for f, ids in near.items():
        print(f"DEV questions within {args.margin} of floor {f}: {len(ids)} {ids}")
    for f in [float(x) for x in args.floors.split(",")]:
        got = grade(questions, retrieved, embedder, settings, f, EVIDENCE_FLOOR)
        print(
            f"relevance floor {f:.2f} (evidence floor {EVIDENCE_FLOOR}): DEV correct "
            f"{len(got['DEV'][0]):>2}, false accepts DEV {len(got['DEV'][1])} "
            f"TEST {len(got['TEST'][1])} {got['DEV'][1] + got['TEST'][1]}"
        )
    for f in [float(x) for x in args.band_floors.split(",")]:
        got = grade(questions, retrieved, embedder, settings, extractive.RELEVANCE_FLOOR, f)
        print(
            f"evidence floor {f:.2f} (relevance floor {extractive.RELEVANCE_FLOOR}): DEV correct "
            f"{len(got['DEV'][0]):>2}, false accepts DEV {len(got['DEV'][1])} "
            f"TEST {len(got['TEST'][1])} {got['DEV'][1] + got['TEST'][1]}"
        )


def cross_validate(questions, retrieved, embedder, settings, args, shipped) -> None:
    rows, labels, owners = [], [], []
    by_id = {q["id"]: q for q in questions}
    for q in questions:
        if half_of(q) != "DEV":
            continue
        result = retrieved[q["question"]]
        candidates = candidates_of(GenerationRequest(q["question"], result.passages, "corpus"))
        if not candidates:
            continue
        features = candidate_features(QuestionProfile.of(q["question"]), candidates)
        facts = q.get("facts") or []
        for c, row in zip(candidates, features, strict=True):
            rows.append(row)
            labels.append(int(bool(facts) and any(fact_matches(facts, c.text))))
            owners.append(q["id"])
    x, y = np.array(rows), np.array(labels)
    paper = np.array([paper_of(by_id[o]) for o in owners])
    dev_questions = [q for q in questions if half_of(q) == "DEV"]
    papers = sorted({paper_of(q) for q in dev_questions})
    feature_sets = [("all", ())] + [
        (f"-{d}", tuple(d.split("+"))) for d in args.drop.split(",") if d
    ]
    set_model(shipped)
    shipped_scores = answer_model.answer_probability(x, shipped)
    print(
        f"shipped model: DEV in-sample sentence AUC "
        f"{roc_auc(shipped_scores[y == 1], shipped_scores[y == 0]):.3f}"
    )
    for label, dropped in feature_sets:
        keep = np.array([name not in dropped for name in FEATURES])
        for ridge in [float(r) for r in args.ridges.split(",")]:
            oof = np.zeros(len(y))
            right, accepted = [], []
            for held in papers:
                train = paper != held
                model = fitted(x[train], y[train], keep, ridge)
                oof[paper == held] = answer_model.answer_probability(x[paper == held], model)
                set_model(model)
                for q in dev_questions:
                    if paper_of(q) != held:
                        continue
                    got = answer(
                        q,
                        retrieved[q["question"]],
                        embedder,
                        settings,
                        extractive.RELEVANCE_FLOOR,
                        EVIDENCE_FLOOR,
                    )
                    if q["kind"] == "answerable":
                        if got is not None and all(fact_matches(q["facts"], got)):
                            right.append(q["id"])
                    elif got is not None:
                        accepted.append(q["id"])
            full = fitted(x, y, keep, ridge)
            set_model(full)
            whole = grade(
                questions, retrieved, embedder, settings, extractive.RELEVANCE_FLOOR, EVIDENCE_FLOOR
            )
            print(
                f"{label:<24} ridge {ridge:>6g}: leave-one-paper-out DEV correct {len(right):>2}, "
                f"false accepts {len(accepted)} {accepted}, sentence AUC "
                f"{roc_auc(oof[y == 1], oof[y == 0]):.3f} | fitted on all DEV: DEV "
                f"{len(whole['DEV'][0])} FA {len(whole['DEV'][1])}, TEST {len(whole['TEST'][0])} "
                f"FA {len(whole['TEST'][1])} {whole['TEST'][1]}"
            )
            print("    " + ", ".join(f"{k} {v:.3f}" for k, v in full.items()))
    set_model(shipped)


if __name__ == "__main__":
    raise SystemExit(main())
