"""Benchmark: what the named-thing rule (``generate/named.py``) declines, and what it costs.

The extractive generator does not quote a sentence that names another member of the kind of a
thing the question names, in its place ("C. albicans" for "Salmonella Typhimurium"). Two sets,
each answered by the extractive generator with the rule and without (``extractive.NAMED_THINGS``),
no gate, no verifier:

1. ``--index DIR``: the real papers (``bench/papers.py --index DIR`` builds the index; retrieval
   cached as in ``bench/answer_scorer.py``). Per half: the questions naming a thing, those whose
   answer the rule changes (each shown with both answers, and whether the facts still match),
   correct answers and false accepts with and without it.
2. PubMedQA's test half, each question over its own abstract's sections (one passage each, as
   ``bench/attribute_pubmedqa.py``): how many answers the rule declines or changes, each shown;
   and the verifier's step 7c over the answers written without the rule: how many answers it
   leaves unsupported, and how many claims it drops, each shown.

    python bench/named_things.py [--index DIR] [--pubmedqa] [--limit N] [--modes thing,shape]

Numbers are counts of questions; they do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lastword.embed.registry import make_embedder
from lastword.generate import extractive, named
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.named import named_things
from lastword.generate.prompt import UNANSWERABLE
from lastword.generate.protocol import GenerationRequest
from lastword.pipeline import Pipeline
from lastword.settings import load_settings
from lastword.verify import verifier, verify_draft

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_scorer import DEFAULT_CACHE, fact_matches, open_cache
from attribute_pubmedqa import own_abstracts
from papers import DEFAULT_DATA, id_number, load_jsonl


def both(generator: ExtractiveGenerator, request: GenerationRequest) -> tuple[str, str]:
    """The answer without the rule, then with it."""
    out = []
    for rule in (False, True):
        extractive.NAMED_THINGS = rule
        out.append(generator.generate(request).text)
    extractive.NAMED_THINGS = True
    return out[0], out[1]


def papers(args: argparse.Namespace) -> None:
    questions = load_jsonl(args.data / "questions.jsonl")
    settings = load_settings()
    with Pipeline.open(settings, args.index) as pipeline:
        cache = open_cache(pipeline, questions, args.cache)
        generator = ExtractiveGenerator(cache.embedder)
        tally: dict[str, list[int]] = {}
        for q in questions:
            half = "DEV" if id_number(q) % 2 else "TEST"
            things = named_things(q["question"])
            result = cache.retrieved[q["question"]]
            request = GenerationRequest(q["question"], result.passages, "corpus")
            before, after = both(generator, request)
            # naming, changed, correct before, correct after, false accept before, after
            row = tally.setdefault(f"{half} {q['kind']}", [0, 0, 0, 0, 0, 0, 0])
            row[0] += 1
            row[1] += bool(things)
            row[2] += before != after
            answerable = q["kind"] == "answerable"
            for k, text in ((3, before), (4, after)):
                answered = text != UNANSWERABLE
                if answerable:
                    row[k] += answered and all(fact_matches(q["facts"], text))
                else:
                    row[k + 2] += answered
            if before != after:
                keys = ", ".join(f"{t.shape}:{t.text}" for t in things)
                print(f"  {q['id']} ({half}, {q['kind']}; asks {keys}): {q['question'][:100]}")
                print(f"      without: {before[:220]}")
                print(f"      with:    {after[:220]}")
        cache.save()
    for key, (n, naming, changed, ok0, ok1, fa0, fa1) in sorted(tally.items()):
        line = f"papers {key:17} {n:2} questions, {naming:2} name a thing, {changed} changed"
        if key.endswith("unanswerable"):
            line += f"; answered without the gate: {fa0} -> {fa1}"
        else:
            line += f"; correct without the gate: {ok0} -> {ok1}"
        print(line)


def pubmedqa(args: argparse.Namespace) -> None:
    settings = load_settings()
    embedder = make_embedder(settings.embed)
    generator = ExtractiveGenerator(embedder)
    naming, answered, declined, changed = 0, [0, 0], 0, 0
    verified, dropped = [0, 0], 0
    questions = 0
    for pmid, row, passages in own_abstracts(args.pubmedqa_data, args.limit):
        questions += 1
        things = named_things(row["QUESTION"])
        naming += bool(things)
        before, after = both(generator, GenerationRequest(row["QUESTION"], passages, "corpus"))
        answered[0] += before != UNANSWERABLE
        answered[1] += after != UNANSWERABLE
        if before != UNANSWERABLE and things:
            checks = []
            for step in (False, True):
                verifier.NAMED_THINGS = step
                checks.append(
                    verify_draft(
                        before, passages, embedder, settings.verify, question=row["QUESTION"]
                    )
                )
            verifier.NAMED_THINGS = True
            verified[0] += checks[0].supported
            verified[1] += checks[1].supported
            for gone in checks[1].dropped:
                if gone.reason == "off_question" and "in place of" in gone.detail:
                    dropped += 1
                    print(f"  {pmid} verifier 7c drops ({gone.detail}): {gone.text[:200]}")
        if before != after:
            gone = after == UNANSWERABLE
            declined += gone
            changed += not gone
            keys = ", ".join(f"{t.shape}:{t.text}" for t in things)
            print(f"  {pmid} {'declined' if gone else 'changed'} (asks {keys}): {row['QUESTION']}")
            print(f"      without: {before[:220]}")
            if not gone:
                print(f"      with:    {after[:220]}")
    print(
        f"PubMedQA test half: {questions} questions, {naming} name a thing; answered from their "
        f"own abstract without the rule {answered[0]}, with it {answered[1]} (declined by the "
        f"rule: {declined}; another sentence chosen: {changed}); of the answers (written "
        f"without the rule) to questions naming a thing, the verifier supports {verified[0]} "
        f"without step 7c and {verified[1]} with it ({dropped} claims dropped by 7c)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="The papers' index (bench/papers.py --index).")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--pubmedqa", action="store_true", help="Also PubMedQA's test half.")
    parser.add_argument("--pubmedqa-data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--limit", type=int, default=0, help="PubMedQA questions (0: all).")
    parser.add_argument(
        "--modes", default="thing", help="named.MODE values to run, e.g. thing,shape"
    )
    args = parser.parse_args()
    for mode in args.modes.split(","):
        named.MODE = mode
        print(f"== named.MODE = {mode}")
        if args.index:
            papers(args)
        if args.pubmedqa:
            pubmedqa(args)
    named.MODE = "thing"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
