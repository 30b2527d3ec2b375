"""The relevance floor with the real MiniLM model, and the budgets."""

from __future__ import annotations

import pytest

from lastword.settings import WebSearchSettings
from lastword.websearch.budget import Budget, cut
from lastword.websearch.protocol import SearchResult
from lastword.websearch.relevance import EmbedderDown, RelevanceFloor, ScoredResult

RELEVANT = SearchResult(
    "Caffeine - Wikipedia",
    "In healthy adults the half-life of caffeine in blood plasma is about 5 hours.",
    "https://en.wikipedia.org/wiki/Caffeine",
)
OFF_TOPIC = SearchResult(
    "Premier League fixtures",
    "Full list of this weekend's football fixtures, kick-off times and TV channels.",
    "https://www.example.com/football",
)


def test_floor_keeps_the_relevant_result_and_drops_the_off_topic_one(minilm):
    floor = RelevanceFloor(minilm, WebSearchSettings().relevance_floors["minilm"])
    scored = floor.score("what is the half-life of caffeine in adults", (RELEVANT, OFF_TOPIC))
    assert scored[0].score > 0.6 and scored[1].score < 0.1
    assert [s.result for s in floor.keep(scored)] == [RELEVANT]


class BrokenEmbedder:
    """An embedder whose model fails (a crashed runtime): the floor must pass nothing."""

    def __init__(self, real) -> None:
        self.info = real.info

    def embed_documents(self, texts):
        raise RuntimeError("model runtime crashed")

    def embed_queries(self, texts):
        raise RuntimeError("model runtime crashed")


def test_a_failing_embedder_lets_nothing_through(minilm):
    with pytest.raises(EmbedderDown, match="crashed"):
        RelevanceFloor(BrokenEmbedder(minilm), 0.3).score("q", (RELEVANT,))


def test_budget_orders_by_score_and_cuts_to_the_limits():
    items = [
        ScoredResult(SearchResult("a", "word " * 100, "https://a.org"), 0.4),
        ScoredResult(SearchResult("b", "short snippet here", "https://b.org"), 0.9),
        ScoredResult(SearchResult("c", "third " * 10, "https://c.org"), 0.5),
    ]
    kept = Budget(results=2, chars_per_result=40, chars_total=60).apply(items)
    assert [k.result.title for k in kept] == ["b", "c"]
    assert all(len(k.result.snippet) <= 40 for k in kept)
    assert sum(len(k.result.snippet) for k in kept) <= 60
    assert kept[1].result.snippet.endswith("…")


def test_cut_respects_word_boundaries():
    assert cut("alpha beta gamma", 100) == "alpha beta gamma"
    assert cut("alpha beta gamma", 12) == "alpha beta…"
    assert len(cut("x" * 50, 10)) == 10
