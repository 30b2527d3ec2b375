"""Scope guard, bands and gate signals on hand-made inputs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lastword.gate import band_for, gate_signals, scope_refusal
from lastword.gate.fit import fit_gate_model
from lastword.gate.lexical import coverage, idf, terms
from lastword.gate.scope import find_term
from lastword.gate.signals import combined_score
from lastword.result import Band, RetrievedPassage
from lastword.settings import GateModel, ScopeSettings, Thresholds


def passage(n: int, score: float, doc: str = "d") -> RetrievedPassage:
    return RetrievedPassage(
        n=n, passage_id=n, doc_id=doc, title="t", page=None, score=score, text="x"
    )


@pytest.mark.parametrize(
    ("text", "hit"),
    [
        ("Is bitcoin a good grant investment?", "bitcoin"),
        ("What about the STOCK   market today?", "STOCK   market"),
        ("Arterial stiffness in older adults", None),  # "art" must not match inside "arterial"
        ("An art therapy trial", "art"),
        ("stockmarket", None),
    ],
)
def test_scope_terms_match_whole_words(text, hit):
    assert find_term(text, ["art", "bitcoin", "stock market"]) == hit


def test_scope_guard_out_and_in_scope():
    settings = ScopeSettings(out_of_scope=["horoscope"], in_scope=["statin", "vitamin d"])
    assert (
        scope_refusal("What does my horoscope say about statin?", settings).reason == "out_of_scope"
    )
    assert scope_refusal("Who won the cup?", settings).reason == "not_in_scope"
    assert scope_refusal("Does Vitamin D help bones?", settings) is None
    assert scope_refusal("anything at all", ScopeSettings()) is None


def test_bands_at_their_edges():
    bands = Thresholds(strong=0.6, weak=0.4)
    assert [band_for(s, bands) for s in (0.6, 0.599, 0.4, 0.399)] == [
        Band.STRONG,
        Band.BORDERLINE,
        Band.BORDERLINE,
        Band.WEAK,
    ]
    with pytest.raises(ValueError, match="weak <= strong"):
        Thresholds(strong=0.3, weak=0.5)


def test_terms_idf_and_coverage():
    assert terms("Does the Vitamin-D dose of 5 mg help patients?") == {
        "vitamin-d",
        "dose",
        "mg",
        "help",
    }
    counts = {"statin": 1, "muscle": 50}
    assert idf(counts, 99, "statin") > idf(counts, 99, "muscle") > 0
    assert idf(counts, 99, "unseen") == pytest.approx(math.log(100) + 1)
    weights = {"statin": 3.0, "muscle": 1.0}
    assert coverage({"statin", "muscle"}, weights, {"statin"}) == pytest.approx(0.75)
    assert coverage(set(), {}, {"x"}) == 0.0


def test_cosine_signal_without_a_model():
    signals = gate_signals(
        "statin muscle pain",
        [passage(i + 1, s) for i, s in enumerate([0.8, 0.5, 0.4])],
        Thresholds(strong=0.7, weak=0.5),
        (10, {"statin": 1}),
        "statin trial",
    )
    assert signals.signal == "cosine" and signals.score == signals.top_score == 0.8
    assert signals.margin == pytest.approx(0.4)
    assert 0 < signals.coverage < 1


def test_combined_signal_is_the_logistic_model():
    model = GateModel(intercept=-1.0, top=2.0, margin=3.0, coverage=4.0)
    expected = 1 / (1 + math.exp(-(-1.0 + 2.0 * 0.8 + 3.0 * 0.3 + 4.0 * 1.0)))
    features = {"top": 0.8, "margin": 0.3, "coverage": 1.0}
    assert combined_score(model, features) == pytest.approx(expected)
    signals = gate_signals(
        "statin",
        [passage(i + 1, s) for i, s in enumerate([0.8, 0.7, 0.6, 0.5])],
        Thresholds(strong=0.9, weak=0.5, model=model),
        (10, {"statin": 2}),
        "a statin trial",
    )
    assert signals.signal == "combined" and signals.coverage == 1.0
    assert signals.score == pytest.approx(expected, abs=1e-6)


def test_fit_recovers_a_known_logistic_model():
    """Labels drawn from a known model over two signals: the fit finds its weights again."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(20_000, 2))
    truth = -4.0 + 3.0 * x[:, 0] + 5.0 * x[:, 1]
    labels = rng.uniform(size=len(x)) < 1 / (1 + np.exp(-truth))
    model = fit_gate_model(x, labels, features=("top", "maxsim"))
    assert model.intercept == pytest.approx(-4.0, abs=0.3)
    assert model.top == pytest.approx(3.0, abs=0.3)
    assert model.maxsim == pytest.approx(5.0, abs=0.3)
    assert model.margin == model.coverage == 0.0 and model.weighed() == ("top", "maxsim")


def test_fit_refuses_unknown_signals_and_one_sided_labels():
    with pytest.raises(ValueError, match="unknown gate signals"):
        fit_gate_model([[0.1], [0.9]], [False, True], features=("bm25",))
    with pytest.raises(ValueError, match="both"):
        fit_gate_model([[0.1], [0.9]], [True, True], features=("top",))


def test_a_model_that_weighs_maxsim_needs_the_signal():
    model = GateModel(intercept=0.0, top=1.0, maxsim=2.0)
    found = [passage(1, 0.8), passage(2, 0.5)]
    with pytest.raises(ValueError, match="maxsim"):
        gate_signals("statin", found, Thresholds(strong=0.9, weak=0.5, model=model), (1, {}), "")
    signals = gate_signals(
        "statin", found, Thresholds(strong=0.9, weak=0.5, model=model), (1, {}), "", maxsim=0.5
    )
    assert signals.maxsim == 0.5
    assert signals.score == pytest.approx(1 / (1 + math.exp(-(0.8 + 1.0))), abs=1e-6)


def test_the_store_does_not_import_the_gate():
    """The store counts terms through the neutral ``lastword.terms``; the gate is a consumer."""
    import subprocess
    import sys

    code = (
        "import sys, lastword.store.local, lastword.store.lexical\n"
        "print(sorted(m for m in sys.modules if m.startswith('lastword.gate')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
