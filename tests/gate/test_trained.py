"""The trained scorer's pairs and its gate signal (``bench/trained_pairs.py``, bench only)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from trained_pairs import Pair, best_over, best_over_top_document, training_pairs

RANKING = [  # an ablated ranking, best first: the own document "q1" is already excluded
    {"doc": "d7", "text": "Statins and muscle pain in older adults."},
    {"doc": "t3", "text": "A test-half abstract on statins."},
    {"doc": "d7", "text": "Statins and muscle pain in older adults."},  # the same text again
    {"doc": "d9", "text": "Myopathy rates on high-dose statins."},
    {"doc": "d4", "text": "Diet and cholesterol."},
]
ALLOWED = {"q1", "d7", "d9", "d4"}  # the training half's documents; t3 is a test abstract


def test_positives_are_the_own_passages_and_negatives_the_highest_ranked_others():
    pairs = training_pairs(
        "Do statins cause myopathy?",
        ["Statin users had more myopathy.", "  ", "Risk doubled at high doses."],
        RANKING,
        own_doc="q1",
        allowed=ALLOWED,
        negatives=2,
    )
    assert pairs == [
        Pair("Do statins cause myopathy?", "Statin users had more myopathy.", 1.0),
        Pair("Do statins cause myopathy?", "Risk doubled at high doses.", 1.0),
        Pair("Do statins cause myopathy?", "Statins and muscle pain in older adults.", 0.0),
        Pair("Do statins cause myopathy?", "Myopathy rates on high-dose statins.", 0.0),
    ]


def test_a_test_document_and_the_own_document_are_never_negatives():
    ranking = [{"doc": "q1", "text": "Own text leaked into the ranking."}, *RANKING]
    pairs = training_pairs("q?", ["Own passage."], ranking, "q1", ALLOWED, negatives=10)
    negatives = [p.passage for p in pairs if p.label == 0.0]
    assert negatives == [
        "Statins and muscle pain in older adults.",
        "Myopathy rates on high-dose statins.",
        "Diet and cholesterol.",
    ]


def test_positives_can_be_capped_and_negatives_can_be_none():
    pairs = training_pairs("q?", ["a", "b", "c"], RANKING, "q1", ALLOWED, 0, positives=2)
    assert [(p.passage, p.label) for p in pairs] == [("a", 1.0), ("b", 1.0)]
    with pytest.raises(ValueError, match="negatives"):
        training_pairs("q?", ["a"], RANKING, "q1", ALLOWED, -1)


def test_the_signal_reads_the_top_documents_passages_or_all_of_the_top_eight():
    scores = [0.5, 3.0, 2.0, -1.0, 9.0, 0.0, 0.0, 0.0, 20.0]
    docs = ["a", "b", "a", "a", "c", "c", "c", "c", "a"]
    assert best_over_top_document(scores, docs) == 2.0  # rank 9 is past the gate's depth
    assert best_over(scores) == 9.0
    assert best_over_top_document([], []) == 0.0 and best_over([]) == 0.0
    with pytest.raises(ValueError, match="one score per passage"):
        best_over_top_document([1.0], ["a", "b"])
