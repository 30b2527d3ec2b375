"""Calibrate the web relevance floor for MiniLM on real question/passage pairs (PubMedQA).

A search preview is a short snippet; the floor must keep snippets about the question and drop
the rest. PubMedQA gives both from real data: each question's own abstract passages, cut to
preview length, stand in for relevant snippets; other abstracts' passages stand in for
irrelevant ones, in two strengths:

* random: passages of randomly drawn other abstracts (an off-topic search result);
* hard: the single best-scoring passage of any other abstract (same field, other question).

The positive for a question is its best own passage (a search needs one relevant preview),
the same question-vs-snippet score the assistant computes (``RelevanceFloor``).

The floor is chosen on the dev half (the 500 ids outside test_ground_truth.json) as the
lowest threshold at which at most 1 % of random off-topic snippets pass, rounded to two
decimals; then reported on the test half with 95 % bootstrap intervals.

    .venv/bin/python bench/websearch_floor.py [--chars 300] [--json bench/out/floor.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lastword.embed.minilm import MiniLMEmbedder  # noqa: E402
from lastword.websearch.budget import cut  # noqa: E402

RANDOM_NEGATIVES = 20  # other abstracts drawn per question
TARGET_RANDOM_FAR = 0.01
SEED = 13


def datasets_dir() -> Path:
    return Path(os.environ.get("LASTWORD_DATASETS") or ROOT.parent / "shared" / "datasets")


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability a positive outscores a negative (ties count half)."""
    scores = np.concatenate([pos, neg])
    ranks = scores.argsort().argsort().astype(np.float64) + 1
    # average ranks for ties
    order = np.sort(scores)
    _, first, counts = np.unique(order, return_index=True, return_counts=True)
    for start, count in zip(first, counts, strict=True):
        if count > 1:
            block = (ranks >= start + 1) & (ranks <= start + count)
            ranks[block] = start + (count + 1) / 2
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def bootstrap(fn, *arrays: np.ndarray, rounds: int = 1000) -> tuple[float, float]:
    rng = np.random.default_rng(SEED)
    values = []
    for _ in range(rounds):
        picked = [a[rng.integers(0, len(a), len(a))] for a in arrays]
        values.append(fn(*picked))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def score_split(ids, data, q_vec, p_vec, p_owner, rng):
    """Positive (best own), random-negative and hard-negative scores for the questions ``ids``."""
    owner_index = {pid: i for i, pid in enumerate(data)}
    all_owners = np.array([owner_index[o] for o in p_owner])
    positives, own_all, random_neg, hard_neg = [], [], [], []
    n_docs = len(data)
    for pid in ids:
        qi = owner_index[pid]
        sims = p_vec @ q_vec[qi]
        own = all_owners == qi
        positives.append(sims[own].max())
        own_all.extend(sims[own].tolist())
        others = rng.choice(np.delete(np.arange(n_docs), qi), RANDOM_NEGATIVES, replace=False)
        random_neg.extend(sims[np.isin(all_owners, others)].tolist())
        hard_neg.append(sims[~own].max())
    return (np.array(positives), np.array(own_all), np.array(random_neg), np.array(hard_neg))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=300, help="Snippet length in characters.")
    parser.add_argument("--json", type=Path, help="Also write the numbers here.")
    args = parser.parse_args()

    root = datasets_dir() / "pubmedqa"
    if not (root / "ori_pqal.json").is_file():
        sys.exit(f"PubMedQA not found under {root} (set LASTWORD_DATASETS)")
    data = json.loads((root / "ori_pqal.json").read_text(encoding="utf-8"))
    test_ids = set(json.loads((root / "test_ground_truth.json").read_text(encoding="utf-8")))
    dev = [pid for pid in data if pid not in test_ids]
    test = [pid for pid in data if pid in test_ids]

    questions = [data[pid]["QUESTION"] for pid in data]
    snippets, owners = [], []
    for pid, item in data.items():
        for context in item["CONTEXTS"]:
            snippets.append(cut(context, args.chars))
            owners.append(pid)

    embedder = MiniLMEmbedder()
    started = time.perf_counter()
    q_vec = embedder.embed_queries(questions)
    p_vec = embedder.embed_documents(snippets)
    embed_s = time.perf_counter() - started

    rng = np.random.default_rng(SEED)
    dev_pos, _dev_own, dev_rand, dev_hard = score_split(dev, data, q_vec, p_vec, owners, rng)
    test_pos, test_own, test_rand, test_hard = score_split(test, data, q_vec, p_vec, owners, rng)

    # Lowest floor (0.01 steps) letting at most 1 % of random off-topic snippets through.
    grid = np.round(np.arange(-0.2, 1.0, 0.01), 2)
    floor = next(float(t) for t in grid if (dev_rand >= t).mean() <= TARGET_RANDOM_FAR)

    def rate(values: np.ndarray) -> float:
        return float((values >= floor).mean())

    report = {
        "embedder": embedder.info.describe(),
        "snippet_chars": args.chars,
        "questions": {"dev": len(dev), "test": len(test)},
        "snippets": len(snippets),
        "embed_seconds": round(embed_s, 1),
        "rule": f"lowest floor with random off-topic pass rate <= {TARGET_RANDOM_FAR:.0%} (dev)",
        "floor": floor,
        "dev": {
            "positive_median": float(np.median(dev_pos)),
            "random_negative_p99": float(np.percentile(dev_rand, 99)),
            "hard_negative_median": float(np.median(dev_hard)),
            "kept_positive": rate(dev_pos),
            "random_pass": rate(dev_rand),
            "hard_pass": rate(dev_hard),
        },
        "test": {
            "auc_best_own_vs_random": auc(test_pos, test_rand),
            "auc_best_own_vs_hard": auc(test_pos, test_hard),
            "auc_any_own_vs_random": auc(test_own, test_rand),
            "kept_positive": rate(test_pos),
            "kept_positive_ci95": bootstrap(rate, test_pos),
            "kept_any_own": rate(test_own),
            "random_pass": rate(test_rand),
            "random_pass_ci95": bootstrap(rate, test_rand),
            "hard_pass": rate(test_hard),
            "hard_pass_ci95": bootstrap(rate, test_hard),
        },
        "score_quantiles_test": {
            name: [round(float(v), 3) for v in np.percentile(values, [5, 25, 50, 75, 95])]
            for name, values in (
                ("best_own", test_pos),
                ("any_own", test_own),
                ("random_other", test_rand),
                ("hard_other", test_hard),
            )
        },
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
