"""Benchmark: fit and measure the extractive generator's answer scorer on the real papers.

Retrieves once per question of ``$LASTWORD_DATASETS/papers/questions.jsonl`` over an index of
the papers (``bench/papers.py --index DIR`` builds one). Every sentence the extractive generator
may quote from the top passages becomes one row of ``generate/answer_model.py``'s ``FEATURES``,
labelled positive when it states one of its question's required facts (sentences of
unanswerable questions are all negative). Then:

1. ``--fit``: a ridge-regularised logistic model is fitted on the DEV rows only (odd-numbered
   questions) and printed as the ``ANSWER_MODEL`` dict to paste into ``answer_model.py``;
   without ``--fit`` the shipped ``ANSWER_MODEL`` is measured.
2. Sentence ranking, per half: AUC of the model over all sentences, and the share of
   answerable questions whose best-scored sentence states a fact.
3. End to end, per half and per floor in ``--floors``: the extractive generator and the verifier
   over the same passages: correct answers (every fact present), false accepts, answerable
   refused, phantoms, with the retrieval gate's decision (``gate``: the band cached at the
   first run) and without (``no gate``); ``--weak 0.76,0.86`` adds rows behind fixed weak
   thresholds on the gate's score (how the automatic rule was re-tuned, docs/calibration.md).
   ``--follow-floor``, ``--cover-weight``, ``--specific-weight`` and ``--max-redundancy`` try
   the generator's follower settings (``generate/extractive.py``).
   ``--weak-band-floors 0.45,0.8`` adds rows for a band-aware floor: no question is refused by
   the gate, and one in its weak band is answered only when the pipeline's evidence check lets
   it through at that floor (``ExtractiveGenerator.admits_weak``: a specific asked, and the
   generator's relevance reaches the floor, or ``RELEVANCE_FLOOR`` when the passages state
   every word of the question; ``[gate] evidence_floor``, ``settings.EVIDENCE_FLOOR``;
   PubMedQA's side: ``bench/weak_band_floor.py``). The ``gate`` rows use the band cached at
   the first run, i.e. the evidence check of the code that filled the cache.
4. ``--relevance``: each question's best-sentence relevance without a gate
   (``ExtractiveGenerator.best``, what the floor compares), answerable vs unanswerable per half
   (AUC, medians) and what floors on it keep and let through.

    python bench/answer_scorer.py --index DIR [--fit] [--floors 0.12,0.15] [--weak 0.76,0.86]
        [--weak-band-floors 0.8] [--relevance] [-v]

Retrieval and embeddings are cached in ``--cache`` (keyed by the index's fingerprint), so a
re-run after changing the features takes seconds. Numbers are from whatever machine runs it.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lastword.evaluate.metrics import roc_auc
from lastword.gate.fit import fit_logistic
from lastword.generate import answer_model, answering, extractive, neighbours
from lastword.generate.answer_model import FEATURES
from lastword.generate.answering import QuestionProfile, candidate_features
from lastword.generate.extractive import RELEVANCE_FLOOR, ExtractiveGenerator, candidates_of
from lastword.generate.protocol import GenerationRequest
from lastword.pipeline import Pipeline
from lastword.result import Band
from lastword.settings import EVIDENCE_FLOOR, load_settings
from lastword.verify import verify_draft

sys.path.insert(0, str(Path(__file__).resolve().parent))
from papers import DEFAULT_DATA, fact_matches, id_number, load_jsonl


class CachingEmbedder:
    """The pipeline's embedder, remembering every text it embedded (kept across runs)."""

    def __init__(self, inner, cache: dict) -> None:
        self.inner = inner
        self.cache = cache

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def _get(self, kind: str, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if (kind, t) not in self.cache]
        if missing:
            for text, vector in zip(missing, getattr(self.inner, kind)(missing), strict=True):
                self.cache[(kind, text)] = np.asarray(vector, dtype=np.float32)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self.cache[(kind, t)] for t in texts])

    def embed_documents(self, texts):
        return self._get("embed_documents", list(texts))

    def embed_queries(self, texts):
        return self._get("embed_queries", list(texts))


DEFAULT_CACHE = Path(tempfile.gettempdir()) / "lastword-answer-scorer"


@dataclass
class Cache:
    """Each question's retrieval (``Pipeline.inspect``) and every embedded text, kept on disk
    per index so a re-run after changing the features takes seconds."""

    file: Path
    saved: dict
    embedder: CachingEmbedder
    retrieved: dict

    def save(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self.file.write_bytes(pickle.dumps(self.saved))


def open_cache(pipeline: Pipeline, questions: list[dict], cache: Path | None = None) -> Cache:
    """The cache of ``pipeline``'s index, every question retrieved (those missing retrieved now)."""
    # The fingerprint names the documents and the embedder, not how they were read: the
    # passages' own ids and texts key the cache, so a re-ingest with new code misses it.
    info = pipeline.store.info()
    sample = pipeline.store.passages_by_id(list(range(1, 50))) if info.passages else {}
    key = hashlib.sha256(
        (info.fingerprint + str(info.passages) + "".join(p.text for p in sample.values())).encode()
    ).hexdigest()[:16]
    cache_file = (cache or DEFAULT_CACHE) / f"{key}.pkl"
    saved = pickle.loads(cache_file.read_bytes()) if cache_file.is_file() else {}
    embedder = CachingEmbedder(pipeline.embedder, saved.setdefault("vectors", {}))
    retrieved = saved.setdefault("retrieved", {})
    for q in questions:
        if q["question"] not in retrieved:
            retrieved[q["question"]] = pipeline.inspect(q["question"])
    return Cache(cache_file, saved, embedder, retrieved)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--fit", action="store_true", help="Fit the model on DEV and use it.")
    parser.add_argument("--ridge", type=float, default=3.0)
    parser.add_argument("--floors", default=f"0.2,0.3,{RELEVANCE_FLOOR},0.5,0.6")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--sentences", type=int, default=3, help="Most sentences quoted.")
    parser.add_argument("--follow-floor", type=float, default=extractive.FOLLOW_FLOOR)
    parser.add_argument("--cover-weight", type=float, default=extractive.COVER_WEIGHT)
    parser.add_argument("--specific-weight", type=float, default=extractive.SPECIFIC_WEIGHT)
    parser.add_argument("--max-redundancy", type=float, default=extractive.MAX_REDUNDANCY)
    parser.add_argument(
        "--weak",
        default="",
        help="Also measure behind these weak thresholds on the gate's score (comma-separated).",
    )
    parser.add_argument(
        "--relevance",
        action="store_true",
        help="Print each question's best-sentence relevance (the floor's input) without a gate, "
        "and how floors on it split answerable from unanswerable questions.",
    )
    parser.add_argument(
        "--pair-anaphor",
        type=int,
        default=int(neighbours.PAIR_ANAPHOR),
        help="1: no pair whose later (subject) sentence refers back to the specific one.",
    )
    parser.add_argument(
        "--weak-band-floors",
        default=str(EVIDENCE_FLOOR),
        help="Also measure a band-aware floor: the gate refuses nothing, and a question in its "
        "weak band is answered only over this floor (comma-separated); --floors applies to the "
        "others.",
    )
    parser.add_argument(
        "--compounds",
        type=int,
        default=int(answering.COMPOUNDS),
        help="1: a question word counts as stated by its compound's parts (terms.compound_terms).",
    )
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    answering.COMPOUNDS = bool(args.compounds)
    extractive.COVER_WEIGHT = args.cover_weight
    neighbours.PAIR_ANAPHOR = bool(args.pair_anaphor)
    extractive.SPECIFIC_WEIGHT = args.specific_weight
    extractive.MAX_REDUNDANCY = args.max_redundancy
    floors = [float(f) for f in args.floors.split(",")]
    questions = load_jsonl(args.data / "questions.jsonl")
    settings = load_settings()
    with Pipeline.open(settings, args.index) as pipeline:
        cache = open_cache(pipeline, questions, args.cache)
        embedder, retrieved = cache.embedder, cache.retrieved
        rows, labels, halves, owners = [], [], [], []
        for q in questions:
            result = retrieved[q["question"]]
            request = GenerationRequest(q["question"], result.passages, "corpus")
            candidates = candidates_of(request)
            if not candidates:
                continue
            features = candidate_features(QuestionProfile.of(q["question"]), candidates)
            for c, row in zip(candidates, features, strict=True):
                rows.append(row)
                facts = q.get("facts") or []
                labels.append(int(bool(facts) and any(fact_matches(facts, c.text))))
                halves.append("DEV" if id_number(q) % 2 else "TEST")
                owners.append(q["id"])
        x, y = np.array(rows), np.array(labels)
        half = np.array(halves)
        print(
            f"{len(questions)} questions, {len(y)} candidate sentences "
            f"({int(y.sum())} state a fact); numbers from whatever machine runs this"
        )
        model = dict(answer_model.ANSWER_MODEL)
        if args.fit:
            dev = half == "DEV"
            intercept, weights = fit_logistic(x[dev], y[dev], args.ridge)
            model = {"intercept": round(intercept, 3)} | {
                name: round(float(w), 3) for name, w in zip(FEATURES, weights, strict=True)
            }
            print("ANSWER_MODEL fitted on DEV rows:")
            print("{\n" + "".join(f'    "{k}": {v},\n' for k, v in model.items()) + "}")
            answer_model.ANSWER_MODEL.clear()
            answer_model.ANSWER_MODEL.update(model)
        scores = answer_model.answer_probability(x, model)
        owner = np.array(owners)
        for name in ("DEV", "TEST"):
            mask = half == name
            asked = [
                q["id"]
                for q in questions
                if q["kind"] == "answerable" and ("DEV" if id_number(q) % 2 else "TEST") == name
            ]
            top_right = 0
            for qid in asked:
                mine = owner == qid
                if mine.any():
                    top_right += int(y[mine][np.argmax(scores[mine])])
            print(
                f"{name:<4} sentence AUC "
                f"{roc_auc(scores[mask & (y == 1)], scores[mask & (y == 0)]):.3f}  "
                f"best sentence states a fact {top_right}/{len(asked)}"
            )

        if args.relevance:
            relevance_report(questions, retrieved, embedder, settings, args.sentences)
        gates: list[tuple[str, float | None]] = [("gate", None), ("no gate", None)]
        gates += [(f"weak {w}", float(w)) for w in args.weak.split(",") if w]
        gates += [(f"weak>={w}", -float(w)) for w in args.weak_band_floors.split(",") if w]
        for label, weak in gates:
            gate = label != "no gate"
            # a negative "weak" is a band-aware floor: weak-band questions answered over it
            band_floor = -weak if weak is not None and weak < 0 else None
            if band_floor is not None:
                weak = None
                strict = ExtractiveGenerator(
                    embedder,
                    args.sentences,
                    band_floor,
                    follow_floor=args.follow_floor,
                    specific_only=True,
                )
            for floor in floors:
                generator = ExtractiveGenerator(
                    embedder, args.sentences, relevance_floor=floor, follow_floor=args.follow_floor
                )
                tally = {"DEV": [0, 0, 0, 0, 0, 0], "TEST": [0, 0, 0, 0, 0, 0]}
                for q in questions:
                    result = retrieved[q["question"]]
                    counts = tally["DEV" if id_number(q) % 2 else "TEST"]
                    answer = None
                    weak_band = False
                    if weak is not None:
                        refused = result.gate is None or result.gate.score < weak
                    elif band_floor is not None:
                        # weak band: the strict generator (a specific asked, over the floor)
                        # below weak: refused there, or let through by the evidence check
                        # (the cached band holds the shipped floor's decision)
                        weak_band = result.band is Band.WEAK or (
                            result.gate is not None and result.gate.evidence_floor is not None
                        )
                        refused = False
                    else:
                        refused = gate and result.band is Band.WEAK
                    if result.passages and not refused:
                        request = GenerationRequest(q["question"], result.passages, "corpus")
                        # the pipeline's evidence check (step 4b) before the generator
                        if band_floor is not None and weak_band:
                            refused = not strict.admits_weak(request, band_floor)[0]
                    if result.passages and not refused:
                        draft = generator.generate(request)
                        checked = verify_draft(
                            draft.text,
                            result.passages,
                            embedder,
                            settings.verify,
                            question=q["question"],
                        )
                        counts[5] += len(checked.phantoms)
                        answer = checked.answer if checked.supported else None
                    if q["kind"] == "answerable":
                        counts[0] += 1
                        ok = answer is not None and all(fact_matches(q["facts"], answer))
                        counts[1] += ok
                        counts[4] += answer is None
                        if args.verbose and not gate and not ok:
                            state = "wrong" if answer else "refused"
                            print(f"  floor {floor} {q['id']} {state}: {(answer or '')[:160]}")
                    else:
                        counts[2] += 1
                        counts[3] += answer is not None
                        if args.verbose and not gate and answer:
                            print(f"  floor {floor} {q['id']} false accept: {answer[:160]}")
                for name, (n, ok, un, fa, refused, phantoms) in tally.items():
                    print(
                        f"{label:<10} floor {floor:.2f} {name:<4}"
                        f"  correct {ok:>2}/{n}  false accepts {fa:>2}/{un}"
                        f"  refused {refused:>2}  phantoms {phantoms}"
                    )
        cache.save()
    return 0


def relevance_report(questions, retrieved, embedder, settings, sentences: int) -> None:
    """Without a gate: each question's best-sentence relevance (``ExtractiveGenerator.best``),
    answerable vs unanswerable per half, and what floors on it keep and let through. A floor
    here is the generator's ``RELEVANCE_FLOOR``, not the gate's; answers are graded at each."""
    generator = ExtractiveGenerator(embedder, sentences, relevance_floor=0.0)
    rows = []
    for q in questions:
        result = retrieved[q["question"]]
        request = GenerationRequest(q["question"], result.passages, "corpus")
        best = generator.best(request) if result.passages else 0.0
        right = False
        if q["kind"] == "answerable" and result.passages:
            draft = generator.generate(request)
            checked = verify_draft(
                draft.text, result.passages, embedder, settings.verify, question=q["question"]
            )
            right = checked.supported and all(fact_matches(q["facts"], checked.answer))
        half = "DEV" if id_number(q) % 2 else "TEST"
        rows.append((q["id"], half, q["kind"], best, right, result.band.value))
    print("best-sentence relevance, no gate (id half kind relevance right-at-floor-0 band):")
    for qid, half, kind, best, right, band in sorted(rows, key=lambda r: (r[1], r[2], -r[3])):
        mark = ("right" if right else "wrong") if kind == "answerable" else "-"
        print(f"  {qid} {half:<4} {kind:<12} {best:.3f} {mark:<5} gate band {band}")
    for name in ("DEV", "TEST"):
        mine = [r for r in rows if r[1] == name]
        ans = np.array([r[3] for r in mine if r[2] == "answerable"])
        right = np.array([r[3] for r in mine if r[2] == "answerable" and r[4]])
        una = np.array([r[3] for r in mine if r[2] == "unanswerable"])
        print(
            f"{name:<4} relevance AUC answerable vs unanswerable {roc_auc(ans, una):.3f}, "
            f"answered right vs unanswerable {roc_auc(right, una):.3f}; median answerable "
            f"{np.median(ans):.3f}, right {np.median(right):.3f}, unanswerable {np.median(una):.3f}"
        )
        for floor in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
            kept, kept_right = int((ans >= floor).sum()), int((right >= floor).sum())
            print(
                f"{name:<4} floor {floor:.2f}: answerable at or above {kept:>2}/{len(ans)} "
                f"(right at floor 0: {kept_right:>2}/{len(right)}), "
                f"unanswerable at or above {int((una >= floor).sum()):>2}/{len(una)}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
