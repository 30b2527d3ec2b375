"""Retrieval evaluation: metrics by hand, BEIR files, and `lastword eval retrieval` end to end."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lastword.errors import InputError
from lastword.evaluate.retrieval import (
    load_qrels,
    load_queries,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    score_rankings,
)


def test_metrics_by_hand():
    relevant = {"a": 1, "b": 1}
    assert ndcg_at(["a", "b", "c"], relevant) == pytest.approx(1.0)
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert ndcg_at(["c", "a"], relevant) == pytest.approx(
        expected / (1 / math.log2(3)) * (1 / math.log2(3))
    )
    assert recall_at(["c", "a"], relevant, 1) == 0.0 and recall_at(["c", "a"], relevant, 2) == 0.5
    assert reciprocal_rank(["c", "x", "b"], relevant) == pytest.approx(1 / 3)
    scores = score_rankings({"q1": ["a"], "q2": []}, {"q1": {"a": 1}, "q2": {"z": 1}}, (1,))
    assert scores.queries == 2 and scores.ndcg_at_10 == 0.5 and scores.mrr == 0.5


def test_beir_files_and_their_errors(tmp_path: Path):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq2\td3\t2\n")
    assert load_qrels(qrels) == {"q1": {"d1": 1}, "q2": {"d3": 2}}
    qrels.write_text("q1\td1\n")
    with pytest.raises(InputError, match="expected query-id, corpus-id and score"):
        load_qrels(qrels)
    qrels.write_text("q1\td1\tmany\n")
    with pytest.raises(InputError, match="not a number"):
        load_qrels(qrels)
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "q1", "text": "statins"}\n{"_id": "q2"}\n')
    with pytest.raises(InputError, match=":2: a query needs"):
        load_queries(queries)
    queries.write_text("q1\tstatins and muscles\n")
    assert load_queries(queries) == {"q1": "statins and muscles"}
