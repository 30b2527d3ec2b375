"""The adapted embedder's training pairs and batches (``bench/adapt_train.py``, bench only)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from adapt_train import clustered_batches, distinct_batches, ict_pairs, one_per_document

TEXT = (
    "Statins lower cholesterol in adults. Muscle pain was reported by 12% of users. "
    "High doses doubled the risk of myopathy. The effect was larger after age 70. "
    "Switching to a lower dose resolved most symptoms."
)


def test_ict_pairs_take_a_sentence_out_of_its_neighbours():
    pairs = ict_pairs({"d1": TEXT, "short": "One sentence only, nothing around it."}, per_doc=5)
    assert [p[0] for p in pairs] == ["d1"] * 5  # a document of fewer than 3 sentences gives none
    for _, sentence, context in pairs:
        assert sentence not in context
        assert 1 <= context.count(". ") + 1 <= 4  # two before and two after at most
    first = next(p for p in pairs if p[1].startswith("Statins lower"))
    assert first[2].startswith("Muscle pain") and first[2].endswith("risk of myopathy.")
    assert "age 70" not in first[2]  # the fourth sentence is three away


def test_no_batch_holds_two_pairs_of_one_document():
    pairs = [(f"d{i % 7}", f"a{i}", f"p{i}") for i in range(40)]
    batches = distinct_batches(pairs, 5, seed=1)
    assert all(len({p[0] for p in b}) == len(b) >= 2 for b in batches)
    batched = [p for b in batches for p in b]
    assert len(batched) == len(set(batched))  # no pair twice
    left = set(pairs) - set(batched)  # only what no other document is left to pair with
    assert len({p[0] for p in left}) <= 1 and len(left) <= 2
    assert len(one_per_document(pairs)) == 7


def test_hard_batches_stay_inside_a_cluster_of_near_documents():
    rng = np.random.default_rng(0)
    centres = np.eye(4, dtype=np.float32)
    vectors = {}
    for i in range(64):
        v = centres[i % 2] + 0.05 * rng.normal(size=4).astype(np.float32)
        vectors[f"d{i}"] = v / np.linalg.norm(v)
    pairs = [(d, f"title {d}", f"passage {d}") for d in vectors]
    batches = clustered_batches(pairs, vectors, 8, seed=0, per_cluster=32)
    assert sorted(p for b in batches for p in b) == sorted(pairs)
    for batch in batches:  # the two directions never share a batch
        assert len({int(p[0][1:]) % 2 for p in batch}) == 1
