"""The corpus-relative gate signals (gate/transfer.py), by hand."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lastword.gate import Gate
from lastword.gate.transfer import agreement, placed, rare_cut, rare_share
from lastword.retrieve import BACKGROUND, retrieve
from lastword.settings import GateModel, Thresholds
from lastword.store.local import LocalStore
from lastword.terms import idf


def test_placed_is_the_top_in_standard_deviations_above_the_background():
    assert placed(0.9, [0.4, 0.6]) == pytest.approx(4.0, rel=1e-4)  # mean 0.5, spread 0.1
    assert placed(0.5, [0.4, 0.6]) == pytest.approx(0.0, abs=1e-6)
    assert placed(0.9, [0.5]) == 0.0  # no background to place it against
    assert placed(0.9, []) == 0.0


def test_rare_share_weighs_only_the_rare_terms_unless_there_are_none():
    counts = {"statin": 1, "cholesterol": 500, "trial": 900}
    total = 1000
    weights = {t: idf(counts, total, t) for t in counts}
    cut = rare_cut(total)
    assert weights["statin"] >= cut > weights["cholesterol"]
    # The rare term present: all of the rare weight, whatever the common ones do.
    assert rare_share(weights, cut, {"statin"}) == 1.0
    assert rare_share(weights, cut, {"cholesterol", "trial"}) == 0.0
    # No rare term in the question: plain IDF-weighted coverage of all of them.
    common = {t: w for t, w in weights.items() if t != "statin"}
    share = rare_share(common, cut, {"cholesterol"})
    assert share == pytest.approx(common["cholesterol"] / sum(common.values()))
    assert rare_share({}, cut, {"x"}) == 0.0
    assert math.isfinite(cut)


def test_agreement_is_the_reciprocal_rank_among_the_lexical_documents():
    assert agreement("b", ["b", "a"]) == 1.0
    assert agreement("b", ["a", "c", "b"]) == pytest.approx(1 / 3)
    assert agreement("z", ["a", "b"]) == 0.0
    assert agreement("z", []) == 0.0


@pytest.fixture(scope="module")
def store(demo_index: Path):
    with LocalStore.open(demo_index) as opened:
        yield opened


@pytest.mark.parametrize("mode", ["dense", "lexical", "hybrid"])
def test_retrieval_keeps_the_background_and_the_lexical_documents_when_asked(store, minilm, mode):
    question = "Did atorvastatin cause muscle pain in the crossover trial?"
    plain = retrieve(question, minilm, store, 8, mode=mode)
    assert plain.background is None and plain.lexical_docs is None
    found = retrieve(question, minilm, store, 8, mode=mode, context=True)
    assert [p.passage_id for p in found.passages] == [p.passage_id for p in plain.passages]
    vector = minilm.embed_queries([question])[0]
    dense = [h.score for h in store.search(vector, BACKGROUND[1])]
    assert found.background == pytest.approx(dense[BACKGROUND[0] - 1 :], abs=1e-6)
    lexical = [h.passage.doc_id for h in store.search_lexical(question, BACKGROUND[1])]
    assert found.lexical_docs == tuple(dict.fromkeys(lexical))
    assert "context" in found.stages_ms or mode == "hybrid"


def test_the_gate_reads_the_corpus_relative_signals_from_the_retrieval(store, minilm):
    model = GateModel(intercept=-2.0, placed=0.5, rare=1.0, agreement=1.0)
    gate = Gate(Thresholds(strong=0.9, weak=0.5, model=model), store, minilm, "minilm")
    assert gate.needs_context
    question = "Did atorvastatin cause muscle pain in the crossover trial?"
    found = retrieve(question, minilm, store, 8, context=True)
    signals = gate.run(question, found.passages, found).signals
    top = found.passages[0]
    assert signals.placed == pytest.approx(placed(top.score, found.background), abs=1e-5)
    assert signals.agreement == pytest.approx(agreement(top.doc_id, found.lexical_docs))
    assert signals.agreement == 1.0  # BM25 and MiniLM agree on the statin trial
    # The demo index is small: its background may hold fewer than two passages (placed is 0).
    assert signals.placed > 0 if len(found.background) >= 2 else signals.placed == 0.0
    assert 0.0 <= signals.rare <= 1.0
    z = -2.0 + 0.5 * signals.placed + signals.rare + signals.agreement
    assert signals.score == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-5)
    # Without what retrieval kept, a model that weighs them cannot score: one clear error.
    with pytest.raises(ValueError, match="placed"):
        gate.run(question, found.passages)
    shipped = Gate(Thresholds(strong=0.9, weak=0.5), store, minilm, "minilm")
    assert not shipped.needs_context
    assert shipped.run(question, found.passages).signals.placed is None
