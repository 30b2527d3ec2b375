"""The gate picks the model and thresholds measured on the ranking it sees (dense or hybrid)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.gate.auto import REFERENCE_TAIL
from lastword.pipeline import Pipeline
from lastword.settings import (
    MINILM_GATE_MODEL,
    MINILM_HYBRID_GATE_MODEL,
    GateSettings,
    Settings,
    Thresholds,
    shipped_thresholds,
)
from lastword.store.local import LocalStore


def ranked(mode: str, **gate) -> Settings:
    return Settings(retrieve={"mode": mode}, gate=GateSettings(**gate))


def test_each_ranking_gets_the_model_fitted_on_it():
    dense = ranked("dense").thresholds_for("minilm")
    hybrid = ranked("hybrid").thresholds_for("minilm")
    assert (dense.model, dense.ranking) == (MINILM_GATE_MODEL, "dense")
    assert (hybrid.model, hybrid.ranking) == (MINILM_HYBRID_GATE_MODEL, "hybrid")
    assert hybrid.model != dense.model
    assert hybrid == shipped_thresholds("hybrid")["minilm"]
    assert dense == shipped_thresholds("dense")["minilm"] == shipped_thresholds()["minilm"]
    # lexical has no model of its own: the dense one, as before
    assert ranked("lexical").thresholds_for("minilm") == dense
    # other embedders have one set for every ranking
    assert ranked("hybrid").thresholds_for("voyage") == ranked("dense").thresholds_for("voyage")
    # each ranking's shipped thresholds have their PubMedQA reference tail for the shift rule
    assert REFERENCE_TAIL[("minilm", "hybrid")] != REFERENCE_TAIL[("minilm", "dense")]


def test_the_operator_thresholds_win_on_every_ranking():
    mine = Thresholds(strong=0.95, weak=0.9)
    for mode in ("dense", "hybrid"):
        settings = ranked(mode, thresholds={"minilm": mine})
        assert settings.thresholds_for("minilm") == mine
        assert settings.gate.explicit("minilm")
    assert not ranked("hybrid").gate.explicit("minilm")


@pytest.mark.parametrize("mode", ["dense", "hybrid"])
def test_the_result_records_the_ranking_the_gate_was_measured_on(demo_index: Path, minilm, mode):
    settings = ranked(mode, auto=False)
    with Pipeline(settings, LocalStore.open(demo_index), minilm) as pipeline:
        result = pipeline.inspect("Did atorvastatin cause muscle pain in the crossover trial?")
    gate = result.gate
    assert gate.ranking == mode and gate.signal == "combined"
    model = settings.thresholds_for("minilm").model
    assert model is not None
    # every signal the model weighs was computed for this ranking
    for name in model.weighed():
        field = "top_score" if name == "top" else name
        assert getattr(gate, field) is not None, name
    assert (gate.weak, gate.strong) == (
        settings.thresholds_for("minilm").weak,
        settings.thresholds_for("minilm").strong,
    )


def test_the_admin_page_shows_and_keeps_the_thresholds_of_the_ranking_in_use():
    from lastword.web.admin_settings import shown_thresholds

    assert shown_thresholds(ranked("hybrid"), "minilm").model == MINILM_HYBRID_GATE_MODEL
    assert shown_thresholds(ranked("dense"), "minilm").model == MINILM_GATE_MODEL
    assert shown_thresholds(ranked("hybrid"), "no-such-embedder") is None
