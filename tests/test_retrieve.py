"""Hybrid retrieval on the real demo index: modes, fusion, re-ranking, timings, cosines."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.rank import (
    RerankWeights,
    TermWeights,
    proximity,
    rerank,
    rrf,
    score_fusion,
    zscore_fusion,
)
from lastword.retrieve import HybridTuning, retrieve, tuning_from
from lastword.settings import RetrieveSettings
from lastword.store.local import LocalStore


def test_rrf_and_score_fusion_by_hand():
    fused = rrf([1, 2, 3], [3, 4])
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61) and max(fused, key=fused.get) == 3
    mixed = score_fusion({1: 0.9, 2: 0.5}, {2: 12.0, 3: 4.0}, lexical_weight=0.5)
    assert mixed == {1: pytest.approx(0.5), 2: pytest.approx(0.5), 3: pytest.approx(0.0)}
    assert score_fusion({1: 0.9, 2: 0.5}, {2: 12.0, 3: 4.0}, 0.0)[1] == pytest.approx(1.0)


def test_zscore_fusion_by_hand():
    # cosines 0.9/0.5/0.7: standard scores 1.2247/-1.2247/0; BM25 12/0 (not returned)/6 likewise
    fused = zscore_fusion({1: 0.9, 2: 0.5, 3: 0.7}, {1: 12.0, 3: 6.0}, lexical_weight=0.5)
    assert fused[1] == pytest.approx(1.224745, abs=1e-5)
    assert fused[2] == pytest.approx(-1.224745, abs=1e-5)
    assert fused[3] == pytest.approx(0.0, abs=1e-9)
    # the weight moves the order: all lexical puts 1 (the only BM25 match) above 2, all dense below
    assert zscore_fusion({1: 0.5, 2: 0.9}, {1: 10.0}, 1.0)[1] > 0
    assert zscore_fusion({1: 0.5, 2: 0.9}, {1: 10.0}, 0.0)[1] < 0
    assert zscore_fusion({1: 0.5}, {}, 0.5) == {1: 0.0}
    assert zscore_fusion({}, {}, 0.5) == {}


def test_proximity_and_rerank_by_hand():
    weights = TermWeights({"statin": 2.0, "myopathy": 1.0})
    assert proximity(weights, ["statin", "myopathy"]) == 1.0
    assert proximity(weights, ["statin", "a", "b", "myopathy"]) == pytest.approx(1 / 3)
    assert proximity(weights, ["nothing"]) == 0.0
    texts = {1: "a statin trial", 2: "statin myopathy was rare"}
    ranked = rerank([(1, 1.0), (2, 0.95)], texts, weights, RerankWeights(coverage=0.3))
    # full coverage (+0.3) overtakes a 0.05 fused lead over a passage with 2/3 of it (+0.2)
    assert [pid for pid, _ in ranked] == [2, 1]


@pytest.fixture(scope="module")
def store(demo_index: Path):
    with LocalStore.open(demo_index) as opened:
        yield opened


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_every_mode_finds_the_paper_and_scores_are_cosines(store, minilm, mode):
    question = "Did atorvastatin cause muscle pain in the crossover trial?"
    found = retrieve(question, minilm, store, 3, mode=mode, tuning=tuning_from(RetrieveSettings()))
    assert found.passages[0].title.startswith("Muscle symptoms")
    assert [p.n for p in found.passages] == list(range(1, len(found.passages) + 1))
    vector = minilm.embed_queries([question])[0]
    dense = {h.passage.passage_id: h.score for h in store.search(vector, 5)}
    for passage in found.passages:  # whatever the order, the score shown is the cosine
        assert passage.score == pytest.approx(dense[passage.passage_id], abs=1e-5)
    expected = {"dense": {"dense"}, "lexical": {"lexical"}}.get(
        mode, {"dense", "lexical", "fuse", "rerank"}
    )
    expected |= {"passages"}
    assert set(found.stages_ms) == expected and all(v >= 0 for v in found.stages_ms.values())


def test_hybrid_respects_exclusions_and_rrf(store, minilm):
    docs = {r.doc_id for r in store.documents() if r.title.startswith("Muscle")}
    tuning = HybridTuning(fusion="rrf")
    found = retrieve("statins muscle pain", minilm, store, 8, docs, mode="hybrid", tuning=tuning)
    assert found.passages and not {p.doc_id for p in found.passages} & docs


def test_a_word_only_the_lexical_index_knows_is_ranked_first_by_hybrid(tmp_path, minilm):
    """A made-up code name: the sentence vector blurs it, BM25 finds it, hybrid keeps it."""
    import json

    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    corpus = tmp_path / "c.jsonl"
    filler = "Adults were randomised to a supplement or placebo and followed for a year. "
    rows = [
        {"id": f"d{i}", "title": f"Trial {i}", "text": filler * 3 + f"Outcome {i} improved."}
        for i in range(6)
    ]
    rows[4]["text"] = filler * 3 + "The compound XR-7731 lowered the outcome."
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ingest_paths([corpus], tmp_path / "index", minilm, IngestSettings())
    with LocalStore.open(tmp_path / "index") as opened:
        for mode in ("lexical", "hybrid"):
            found = retrieve("What did XR-7731 do?", minilm, opened, 3, mode=mode)
            assert found.passages[0].doc_id == "d4", mode
