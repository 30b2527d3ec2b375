"""Refitting the gate model on a results file's recorded signals (``eval calibrate --refit``)."""

from __future__ import annotations

import numpy as np
import pytest

from lastword.errors import InputError
from lastword.evaluate import metrics
from lastword.evaluate.calibrate import calibrate, model_score, recorded_signals
from lastword.evaluate.records import Results
from lastword.evaluate.refit import MIN_PER_LABEL, refit_gate_model
from lastword.result import GateSignals, Mechanism
from lastword.settings import GateModel

from .conftest import STRONG, WEAK, answered, document, record, refused


def signals(top: float, margin: float, coverage: float, maxsim: float | None) -> GateSignals:
    return GateSignals(
        top_score=top, margin=margin, coverage=coverage, maxsim=maxsim, strong=STRONG, weak=WEAK
    )


def corpus_results(n: int = 40, maxsim: bool = True, seed: int = 7) -> Results:
    """n answerable and n ablated questions: the top cosine tells them apart barely, coverage
    well, as on a corpus unlike PubMedQA; every result records its signals."""
    rng = np.random.default_rng(seed)
    items = []
    for i in range(n):
        for answerable in (True, False):
            top = float(rng.uniform(0.45, 0.75))
            cover = float(rng.uniform(0.45, 1.0) if answerable else rng.uniform(0.0, 0.6))
            gate = signals(top, float(rng.uniform(0.05, 0.2)), cover, 0.7 if maxsim else None)
            if answerable:
                result = answered(f"q{i}", top).model_copy(update={"gate": gate})
                items.append(record(result, "scenario", f"s{i}"))
            else:
                result = refused(f"q{i}", top, Mechanism.RETRIEVAL_GATE)
                result = result.model_copy(update={"gate": gate})
                items.append(
                    record(result, "trap", f"t{i}", assigned="retrieval_gate", exclude_docs=("d1",))
                )
    return document(items)


def test_refit_learns_the_signal_that_separates() -> None:
    doc = corpus_results()
    model = refit_gate_model(doc.items)
    spread = {
        name: np.std([recorded_signals(i)[name] for i in doc.items]) for name in ("top", "coverage")
    }
    # per standard deviation of each signal, coverage must weigh far more than the cosine
    assert model.coverage > 0
    assert model.coverage * spread["coverage"] > 3 * abs(model.top) * spread["top"]
    shipped = calibrate(doc)  # the recorded gate score: the top cosine here
    refit = calibrate(doc, refit=model, target_far=0.05)
    assert shipped.auc is not None and refit.auc is not None
    # coverage alone ranks the items this well; the refitted score must match it
    pos = [recorded_signals(i)["coverage"] for i in doc.items if i.kind == "scenario"]
    neg = [recorded_signals(i)["coverage"] for i in doc.items if i.kind == "trap"]
    assert refit.auc.estimate >= metrics.roc_auc(pos, neg) - 0.01
    assert refit.auc.estimate > shipped.auc.estimate + 0.2
    # figures for the refitted score are not compared with the shipped thresholds
    assert refit.far_at_shipped is None and refit.kept_at_shipped is None
    assert refit.refit == model and refit.to_json()["refit"]["coverage"] == model.coverage
    strong, weak = refit.chosen()
    assert 0.0 <= weak <= strong <= 1.0
    assert "--refit" in refit.evidence("t.json", "2026-11-30")


def test_refit_uses_only_signals_every_item_recorded() -> None:
    # an API embedder records no maxsim: the refit weighs the other three
    model = refit_gate_model(corpus_results(maxsim=False).items)
    assert model.maxsim == 0.0 and set(model.weighed()) <= {"top", "margin", "coverage"}
    assert "coverage" in model.weighed()


def test_model_score_needs_every_weighed_signal() -> None:
    item = corpus_results(n=1, maxsim=False).items[0]
    assert model_score(GateModel(intercept=0.0, coverage=1.0), item) is not None
    assert model_score(GateModel(intercept=0.0, maxsim=1.0), item) is None


def test_refit_refuses_too_few_labels() -> None:
    small = corpus_results(n=MIN_PER_LABEL - 1)
    with pytest.raises(InputError, match=f"at least {MIN_PER_LABEL} answerable"):
        refit_gate_model(small.items)


def test_refit_scores_the_gate_column_only() -> None:
    doc = corpus_results()
    model = refit_gate_model(doc.items)
    with pytest.raises(InputError, match=r"scores gate\.score"):
        calibrate(doc, column="gate.margin", refit=model)
