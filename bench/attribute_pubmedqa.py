"""Benchmark: what the asked-property rule costs on PubMedQA's yes/no questions.

``generate/extractive.py`` declines a yes/no question about a change ("Did X change the protein
content of Y?") when its answer does not state the property asked about (``names_attribute``).
PubMedQA's questions are yes/no questions, each with its own abstract. Every question of the
test half (``test_ground_truth.json``) is answered by the extractive generator from its own
abstract's sections (one passage each, at a fixed retrieval score, no gate, no verifier), with
the rule and without, and the answers that the rule declines are counted and shown.

    python bench/attribute_pubmedqa.py [--limit N] [-v]

Numbers are counts of questions; they do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

from lastword.embed.registry import make_embedder
from lastword.generate import extractive
from lastword.generate.answering import QuestionProfile
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.result import RetrievedPassage
from lastword.settings import load_settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from papers import DEFAULT_DATA

#: the retrieval score every section is given (the feature ``passage``)
SCORE = 0.6


def own_abstracts(data: Path, limit: int = 0):
    """(pmid, record, its abstract's sections as passages) for PubMedQA's test half."""
    rows = json.loads((data / "ori_pqal.json").read_text())
    test = json.loads((data / "test_ground_truth.json").read_text())
    for pmid in [pmid for pmid in rows if pmid in test][: limit or None]:
        row = rows[pmid]
        contexts = row["CONTEXTS"]
        if isinstance(contexts, str):
            contexts = ast.literal_eval(contexts)
        passages = tuple(
            RetrievedPassage(
                n=i + 1, passage_id=i, doc_id=pmid, title=pmid, page=None, score=SCORE, text=t
            )
            for i, t in enumerate(contexts)
        )
        yield pmid, row, passages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    embedder = make_embedder(load_settings().embed)
    generator = ExtractiveGenerator(embedder)
    asking, answered = 0, {True: 0, False: 0}
    questions = 0
    for pmid, row, passages in own_abstracts(args.data, args.limit):
        questions += 1
        request = GenerationRequest(row["QUESTION"], passages, "corpus")
        asking += bool(QuestionProfile.of(row["QUESTION"]).attribute)
        drafts = {}
        for rule in (False, True):
            extractive.ASKED_ATTRIBUTE = rule
            drafts[rule] = generator.generate(request).text
            answered[rule] += drafts[rule] != UNANSWERABLE
        if args.verbose and drafts[False] != drafts[True]:
            attribute = sorted(QuestionProfile.of(row["QUESTION"]).attribute)
            print(f"  {pmid} declined by the rule ({attribute}): {row['QUESTION']}")
            print(f"      would have said: {drafts[False][:200]}")
    extractive.ASKED_ATTRIBUTE = True
    print(
        f"PubMedQA test half: {questions} questions, {asking} name a property asked about; "
        f"answered from their own abstract without the rule {answered[False]}, "
        f"with it {answered[True]} (declined by the rule: {answered[False] - answered[True]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
