"""Benchmark: the extractive generator's relevance floor on the real papers, both halves.

Retrieves once per question of ``$LASTWORD_DATASETS/papers/questions.jsonl`` over an index of
the papers (``bench/papers.py --index DIR`` builds one), then for each floor in ``--floors``
runs the extractive generator and the verifier (with the question) over the same passages and
prints, for DEV (odd ids, the half the floor was tuned on) and TEST (even ids): correct answers
of the answerable, false accepts of the unanswerable, answerable refused, phantoms. ``gate``
rows follow the retrieval gate's decision as ``Pipeline.ask`` does; ``no gate`` rows answer
every question, which shows what the generator's floor alone separates.

    python bench/answer_relevance.py --index DIR [--floors 0.3,0.36,0.42,0.48] [--verbose]

Numbers are taken on a shared, busy machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from lastword.generate.extractive import RELEVANCE_FLOOR, ExtractiveGenerator
from lastword.generate.protocol import GenerationRequest
from lastword.pipeline import Pipeline
from lastword.result import Band
from lastword.settings import load_settings
from lastword.verify import verify_draft

sys.path.insert(0, str(Path(__file__).resolve().parent))
from papers import DEFAULT_DATA, fact_matches, id_number, load_jsonl


class CachingEmbedder:
    """The pipeline's embedder, remembering every text so each floor re-embeds nothing."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.cache: dict[tuple[str, str], np.ndarray] = {}

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def _get(self, kind: str, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if (kind, t) not in self.cache]
        if missing:
            for text, vector in zip(missing, getattr(self.inner, kind)(missing), strict=True):
                self.cache[(kind, text)] = np.asarray(vector, dtype=np.float32)
        return np.stack([self.cache[(kind, t)] for t in texts])

    def embed_documents(self, texts):
        return self._get("embed_documents", list(texts))

    def embed_queries(self, texts):
        return self._get("embed_queries", list(texts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--floors", default=f"0.30,0.36,{RELEVANCE_FLOOR},0.48,0.54")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    floors = [float(f) for f in args.floors.split(",")]
    questions = load_jsonl(args.data / "questions.jsonl")
    settings = load_settings()
    with Pipeline.open(settings, args.index) as pipeline:
        embedder = CachingEmbedder(pipeline.embedder)
        retrieved = [(q, pipeline.inspect(q["question"])) for q in questions]
        print(f"retrieved {len(retrieved)} questions (numbers taken on a shared, busy machine)")
        for gate in (True, False):
            for floor in floors:
                generator = ExtractiveGenerator(embedder, relevance_floor=floor)
                tally = {"DEV": [0, 0, 0, 0, 0, 0], "TEST": [0, 0, 0, 0, 0, 0]}
                for q, result in retrieved:
                    half = "DEV" if id_number(q) % 2 else "TEST"
                    counts = tally[half]
                    answer = None
                    if result.passages and not (gate and result.band is Band.WEAK):
                        request = GenerationRequest(q["question"], result.passages, "corpus")
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
                        if args.verbose and not ok and floor == RELEVANCE_FLOOR:
                            print(
                                f"  {q['id']} gate={gate} "
                                f"{'wrong' if answer else 'refused'}: {(answer or '')[:150]}"
                            )
                    else:
                        counts[2] += 1
                        counts[3] += answer is not None
                for half, (n, ok, un, fa, refused, phantoms) in tally.items():
                    print(
                        f"{'gate' if gate else 'no gate':<8} floor {floor:.2f} {half:<4}"
                        f"  correct {ok:>2}/{n}  false accepts {fa:>2}/{un}"
                        f"  refused {refused:>2}  phantoms {phantoms}"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
