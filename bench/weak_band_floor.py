"""Benchmark: a band-aware answer floor measured on PubMedQA results (the seam with the gate).

The retrieval gate refuses a question whose gate score falls in the weak band. The extractive
generator's own relevance (``ExtractiveGenerator.best``: the probability that its opening
sentence states what was asked) separates answerable from unanswerable questions on the real
papers (``bench/answer_scorer.py --relevance``), so one policy is to let weak-band questions
reach the generator and answer them only when that relevance clears a higher floor. This
script measures what such a floor would let through on PubMedQA, where the traps are questions
whose own abstract was removed: it reads a results document written by
``bench/eval_pubmedqa.py --out F``, takes the items the gate put in the weak band (with their
retrieved passages, as recorded), and counts the scenarios and traps the generator and the
verifier would answer at each floor: when only questions that ask a specific (a number, a name,
a place: ``QuestionProfile.asks_specific``) may pass, and when any may. PubMedQA's questions
are yes/no questions. Nothing is retrieved again.

    python bench/eval_pubmedqa.py --index DIR --out results.json
    python bench/weak_band_floor.py results.json [--floors 0.45,0.7,0.8]

Numbers do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.generate.answering import QuestionProfile
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.protocol import GenerationRequest
from lastword.result import Band, Result
from lastword.settings import EVIDENCE_FLOOR, load_settings
from lastword.verify import verify_draft


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="bench/eval_pubmedqa.py --out document.")
    parser.add_argument("--floors", default=f"{EVIDENCE_FLOOR},0.6,0.7,0.8")
    args = parser.parse_args()
    document = json.loads(args.results.read_text(encoding="utf-8"))
    embedder = MiniLMEmbedder()
    settings = load_settings()
    rows = []
    for item in document["items"]:
        result = Result.model_validate(item["result"])
        if result.band is Band.WEAK and result.passages:
            request = GenerationRequest(result.question, result.passages, "corpus")
            specific = QuestionProfile.of(result.question).asks_specific
            rows.append((item["kind"], specific, request))
    kinds = ("scenario", "trap")
    print(
        "weak-band items: "
        + ", ".join(f"{sum(row[0] == k for row in rows)} {k}s" for k in kinds)
        + f" (of {len(document['items'])}); asking a specific (a number, a name, a place): "
        + ", ".join(f"{sum(row[0] == k and row[1] for row in rows)} {k}s" for k in kinds)
    )
    probe = ExtractiveGenerator(embedder, relevance_floor=0.0)
    best = [probe.best(request) for _, _, request in rows]
    for floor in (float(f) for f in args.floors.split(",")):
        generator = ExtractiveGenerator(embedder, relevance_floor=floor)
        answered = {(k, s): 0 for k in kinds for s in (True, False)}
        for (kind, specific, request), relevance in zip(rows, best, strict=True):
            if relevance < floor:
                continue
            draft = generator.generate(request)
            checked = verify_draft(
                draft.text, request.passages, embedder, settings.verify, question=request.question
            )
            answered[(kind, specific)] += checked.supported
        print(
            f"weak-band floor {floor:.2f}: would answer {answered[('scenario', True)]} scenarios "
            f"and {answered[('trap', True)]} traps (false accepts) more when only questions "
            f"asking a specific may pass; {sum(answered[('scenario', s)] for s in (True, False))}"
            f" and {sum(answered[('trap', s)] for s in (True, False))} when any may"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
