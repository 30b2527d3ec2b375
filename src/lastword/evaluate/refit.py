"""Refit the gate's logistic model on a results file's labelled items, for this corpus.

The shipped weights were fitted on PubMedQA; on another corpus the signals keep their order
(SciFact: maxsim separates best, the cosine worst) but the weights and thresholds do not
transfer. This fits the weights again, from the signals the run recorded (no re-embedding), on
the signals every labelled item carries: all four for MiniLM, top/margin/coverage for an API
embedder (which gives it a combined gate it otherwise lacks).
"""

from __future__ import annotations

from lastword.errors import InputError
from lastword.evaluate.calibrate import NegativeChoice, labelled_items, recorded_signals
from lastword.evaluate.records import ItemRecord
from lastword.gate.fit import fit_gate_model
from lastword.settings import GATE_FEATURES, GateModel

#: Ridge on standardised signals. Small sets (a few dozen items) are often separable, where an
#: unpenalised fit runs its weights off to infinity and every score to 0 or 1; at hundreds of
#: items this prior is negligible.
REFIT_RIDGE = 1.0
#: below this many of either label a refit is noise; calibrate thresholds only
MIN_PER_LABEL = 10


def refit_gate_model(items: list[ItemRecord], negatives: NegativeChoice = "gate") -> GateModel:
    """A gate model fitted on the recorded signals of the labelled items."""
    rows = [
        (recorded_signals(item), answerable)
        for item, answerable in labelled_items(items, negatives)
    ]
    rows = [(signals, answerable) for signals, answerable in rows if signals]
    positives = sum(1 for _, answerable in rows if answerable)
    negatives_n = len(rows) - positives
    if min(positives, negatives_n) < MIN_PER_LABEL:
        raise InputError(
            f"a refit needs at least {MIN_PER_LABEL} answerable and {MIN_PER_LABEL} trap "
            f"questions with gate signals; this file has {positives} and {negatives_n}. "
            "Calibrate thresholds without --refit, or build a bigger set (lastword eval "
            "dataset titles)."
        )
    features = [name for name in GATE_FEATURES if all(name in signals for signals, _ in rows)]
    if not features:
        raise InputError("no gate signal is recorded for every labelled item: nothing to refit")
    return fit_gate_model(
        [[signals[name] for name in features] for signals, _ in rows],
        [answerable for _, answerable in rows],
        features=features,
        ridge=REFIT_RIDGE,
    )
