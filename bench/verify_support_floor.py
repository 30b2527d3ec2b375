"""Measure the verifier's support signal on real data and pick the support floor.

Two sets of (sentence, passage) pairs, each with genuine and unrelated citations:

- SciFact: each claim with evidence vs the abstract holding its evidence (SUPPORT and
  CONTRADICT kept apart), vs a random other abstract, and vs the most similar other abstract
  (a "hard" negative: what a retriever would also return).
- PubMedQA PQA-L dev half: each LONG_ANSWER sentence vs the best of its own CONTEXTS, vs the
  best of a random other question's CONTEXTS, and vs the best of the CONTEXTS of the most
  similar other question.

For every signal of ``lastword.verify.support`` it prints the percentiles of each group, the
ROC AUC of genuine vs unrelated (with a bootstrap 95% interval), and for candidate floors the
share of genuine citations kept and of unrelated ones let through.

Run: .venv/bin/python bench/verify_support_floor.py [--limit N] [--seed S]
Data: ../shared/datasets from the repo root, or $LASTWORD_DATASETS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lastword.embed.minilm import MiniLMEmbedder
from lastword.verify.citations import (
    MARKER_RE,
    BibliographyIndex,
    find_markers,
    marker_context,
)
from lastword.verify.sentences import split_line
from lastword.verify.support import SupportScore, score_pairs

REPO = Path(__file__).resolve().parent.parent
SIGNALS: dict[str, Callable[[SupportScore], float]] = {
    "passage_cosine": lambda s: s.passage_cosine or 0.0,
    "sentence_cosine": lambda s: s.sentence_cosine,
    "lexical": lambda s: s.lexical,
    "max(passage,sentence)": lambda s: max(s.passage_cosine or 0.0, s.sentence_cosine),
    "0.5 passage + 0.5 lexical": lambda s: 0.5 * (s.passage_cosine or 0.0) + 0.5 * s.lexical,
    "support (0.5 sentence + 0.5 lexical)": lambda s: s.support,
}
CHOSEN = "support (0.5 sentence + 0.5 lexical)"
FLOORS = (0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50)


def datasets_dir() -> Path:
    return Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a genuine pair outscores an unrelated one (ties count half)."""
    scores = np.concatenate([pos, neg])
    order = scores.argsort(kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    # average ranks over ties
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    ranks = (sums / counts)[inverse]
    r_pos = ranks[: len(pos)].sum()
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def auc_interval(pos: np.ndarray, neg: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    values = [auc(rng.choice(pos, len(pos)), rng.choice(neg, len(neg))) for _ in range(200)]
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def sentences_of(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in split_line(line)]


def scifact_groups(embedder: MiniLMEmbedder, limit: int, rng: random.Random) -> dict:
    root = datasets_dir() / "scifact"
    corpus = {}
    with (root / "corpus.jsonl").open() as fh:
        for line in fh:
            doc = json.loads(line)
            corpus[str(doc["doc_id"])] = " ".join(doc["sentences"])
    claims = []
    for name in ("claims_dev.jsonl", "claims_train.jsonl"):
        with (root / name).open() as fh:
            claims.extend(json.loads(line) for line in fh)
    claims = [c for c in claims if c["evidence"] and any(d in corpus for d in c["evidence"])]
    rng.shuffle(claims)
    claims = claims[:limit]
    doc_ids = sorted(corpus)
    # hard negatives from a pool: every evidence abstract plus random others
    pool = sorted({d for c in claims for d in c["evidence"] if d in corpus})
    pool += rng.sample([d for d in doc_ids if d not in set(pool)], 300)
    pool_vectors = embedder.embed_documents([corpus[d] for d in pool])
    claim_vectors = embedder.embed_queries([c["claim"] for c in claims])
    nearest = (claim_vectors @ pool_vectors.T).argsort(axis=1)[:, ::-1]

    texts: list[str] = []
    passages: list[str] = []
    passage_index: dict[str, int] = {}

    def passage(doc_id: str) -> int:
        if doc_id not in passage_index:
            passage_index[doc_id] = len(passages)
            passages.append(corpus[doc_id])
        return passage_index[doc_id]

    pairs: dict[str, list[tuple[int, int]]] = {
        "SUPPORT": [],
        "CONTRADICT": [],
        "random": [],
        "hard": [],
    }
    for i, claim in enumerate(claims):
        texts.append(claim["claim"])
        doc_id, evidence = next((d, e) for d, e in claim["evidence"].items() if d in corpus)
        pairs[evidence[0]["label"]].append((i, passage(doc_id)))
        cited = {str(d) for d in claim.get("cited_doc_ids", [])} | set(claim["evidence"])
        other = rng.choice(doc_ids)
        while other in cited:
            other = rng.choice(doc_ids)
        pairs["random"].append((i, passage(other)))
        hard = next(pool[j] for j in nearest[i] if pool[j] not in cited)
        pairs["hard"].append((i, passage(hard)))
    return score_groups(texts, passages, pairs, embedder)


def pubmedqa_groups(embedder: MiniLMEmbedder, limit: int, rng: random.Random) -> dict:
    root = datasets_dir() / "pubmedqa"
    data = json.loads((root / "ori_pqal.json").read_text())
    test_ids = set(json.loads((root / "test_ground_truth.json").read_text()))
    dev = [pid for pid in sorted(data) if pid not in test_ids]
    rng.shuffle(dev)
    dev = dev[:limit]
    question_vectors = embedder.embed_queries([data[pid]["QUESTION"] for pid in dev])
    similar = (question_vectors @ question_vectors.T).argsort(axis=1)[:, ::-1]

    texts: list[str] = []
    passages: list[str] = []
    first_context: dict[str, int] = {}
    for pid in dev:
        first_context[pid] = len(passages)
        passages.extend(data[pid]["CONTEXTS"])

    def contexts(pid: str) -> range:
        start = first_context[pid]
        return range(start, start + len(data[pid]["CONTEXTS"]))

    # each sentence gets a group per kind of citation; the best context of the group counts
    grouped: dict[str, list[tuple[int, list[int]]]] = {"own": [], "random": [], "hard": []}
    for i, pid in enumerate(dev):
        others = [p for p in dev if p != pid]
        random_pid = rng.choice(others)
        hard_pid = next(dev[j] for j in similar[i] if dev[j] != pid)
        for sentence in sentences_of(data[pid]["LONG_ANSWER"]):
            s = len(texts)
            texts.append(sentence)
            grouped["own"].append((s, list(contexts(pid))))
            grouped["random"].append((s, list(contexts(random_pid))))
            grouped["hard"].append((s, list(contexts(hard_pid))))
    flat = [(s, p) for groups in grouped.values() for s, ps in groups for p in ps]
    scores = dict(
        zip(flat, score_pairs(texts, passages, flat, embedder, whole_passages=True), strict=True)
    )
    out = {}
    for kind, groups in grouped.items():
        out[kind] = {
            name: np.array([max(fn(scores[(s, p)]) for p in ps) for s, ps in groups])
            for name, fn in SIGNALS.items()
        }
    # verbatim extractive sentences: a passage sentence cited against its own passage
    verbatim_pairs = []
    verbatim_texts = []
    for pid in dev[: max(1, limit // 2)]:
        for p in contexts(pid):
            pieces = sentences_of(passages[p])
            verbatim_pairs.append((len(verbatim_texts), p))
            verbatim_texts.append(rng.choice(pieces) + " [1]")
    verbatim = score_pairs(verbatim_texts, passages, verbatim_pairs, embedder, whole_passages=True)
    out["verbatim"] = {name: np.array([fn(s) for s in verbatim]) for name, fn in SIGNALS.items()}
    return out


def score_groups(texts, passages, pairs, embedder) -> dict:
    flat = [pair for group in pairs.values() for pair in group]
    scores = dict(
        zip(flat, score_pairs(texts, passages, flat, embedder, whole_passages=True), strict=True)
    )
    return {
        kind: {name: np.array([fn(scores[p]) for p in group]) for name, fn in SIGNALS.items()}
        for kind, group in pairs.items()
    }


def report(title: str, groups: dict, positives: list[str], negatives: list[str]) -> None:
    nprng = np.random.default_rng(0)
    sizes = ", ".join(f"{k} {len(next(iter(v.values())))}" for k, v in groups.items())
    print(f"\n=== {title} ({sizes})")
    for name in SIGNALS:
        print(f"\n  {name}")
        for kind, values in groups.items():
            pct = np.percentile(values[name], [1, 5, 10, 25, 50, 75, 90, 95, 99])
            print(f"    {kind:<11} p1/5/10/25/50/75/90/95/99: " + " ".join(f"{x:.2f}" for x in pct))
        pos = np.concatenate([groups[k][name] for k in positives])
        for neg_kind in negatives:
            neg = groups[neg_kind][name]
            low, high = auc_interval(pos, neg, nprng)
            print(f"    AUC genuine vs {neg_kind:<7} {auc(pos, neg):.3f} [{low:.3f}, {high:.3f}]")
    print(f"\n  floors for '{CHOSEN}': genuine kept / unrelated passed")
    pos = np.concatenate([groups[k][CHOSEN] for k in positives])
    for floor in FLOORS:
        parts = [f"genuine kept {np.mean(pos >= floor):.3f}"]
        parts += [f"{k} kept {np.mean(groups[k][CHOSEN] >= floor):.3f}" for k in groups]
        print(f"    floor {floor:.2f}: " + ", ".join(parts))


def bibliography_check(limit: int, rng: random.Random) -> None:
    """Copied reference numbers caught vs genuine citations wrongly flagged (no embedding)."""
    root = datasets_dir() / "pubmedqa"
    data = json.loads((root / "ori_pqal.json").read_text())
    ids = sorted(data)
    counts = {"verbatim": [0, 0], "paraphrase": [0, 0], "copy": [0, 0], "copy_moved": [0, 0]}

    def flagged(sentence: str, index: BibliographyIndex, known: int) -> bool:
        for marker in find_markers(sentence):
            context = marker_context(sentence, marker.start)
            for n in marker.numbers:
                if n <= known and index.copied_from(n, context) is not None:
                    return True
        return False

    for pid in rng.sample(ids, min(limit, len(ids))):
        others = rng.sample([i for i in ids if i != pid], 2)
        texts = [c for i in [pid, *others] for c in data[i]["CONTEXTS"]][:8]
        k = len(texts)
        # give every passage a reference marker of its own at the end of one sentence
        injected: dict[int, tuple[str, int]] = {}
        passages: dict[int, str] = {}
        for n, text in enumerate(texts, start=1):
            pieces = sentences_of(MARKER_RE.sub("", text))
            j = rng.randrange(len(pieces))
            ref = rng.choice([m for m in range(1, k + 1) if m != n] or [n])
            body = pieces[j].rstrip(".")
            injected[n] = (body, ref)
            pieces[j] = f"{body} [{ref}]."
            passages[n] = " ".join(pieces)
        index = BibliographyIndex(passages)
        for n, text in passages.items():
            body, ref = injected[n]
            # genuine: a verbatim sentence, source marker neutralised, our own [n] appended
            for piece in sentences_of(text):
                neutral = MARKER_RE.sub(lambda m: f"(ref. {m.group(0)[1:-1]})", piece)
                counts["verbatim"][0] += flagged(f"{neutral} [{n}]", index, k)
                counts["verbatim"][1] += 1
            # a copy: the source's words with its own number kept as if it were ours
            counts["copy"][0] += flagged(f"{body} [{ref}].", index, k)
            counts["copy"][1] += 1
            words_ = body.split()
            moved = " ".join([*words_[:-2], f"[{ref}]", *words_[-2:]]) if len(words_) > 4 else body
            counts["copy_moved"][0] += flagged(moved + ".", index, k)
            counts["copy_moved"][1] += 1
        for sentence in sentences_of(data[pid]["LONG_ANSWER"]):
            counts["paraphrase"][0] += flagged(f"{sentence} [1]", index, k)
            counts["paraphrase"][1] += 1
    print(
        f"\n=== Bibliography copies (PubMedQA passages with injected reference markers, {limit} q)"
    )
    for kind, (hit, total) in counts.items():
        role = "caught" if kind.startswith("copy") else "wrongly flagged"
        print(f"    {kind:<11} {role}: {hit}/{total} = {hit / max(total, 1):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=150, help="claims / questions per data set")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--bibliography-only", action="store_true", help="skip the embedder")
    args = parser.parse_args()
    if not datasets_dir().is_dir():
        print(f"datasets not found at {datasets_dir()} (set LASTWORD_DATASETS)", file=sys.stderr)
        return 2
    bibliography_check(args.limit, random.Random(args.seed))
    if args.bibliography_only:
        return 0
    embedder = MiniLMEmbedder()
    started = time.perf_counter()
    scifact = scifact_groups(embedder, args.limit, random.Random(args.seed))
    report("SciFact claims vs abstracts", scifact, ["SUPPORT", "CONTRADICT"], ["random", "hard"])
    pubmed = pubmedqa_groups(embedder, args.limit, random.Random(args.seed))
    report("PubMedQA dev LONG_ANSWER sentences vs CONTEXTS", pubmed, ["own"], ["random", "hard"])
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
