"""Fit the gate's logistic model on labelled signals (answerable vs unanswerable questions).

Plain Newton-Raphson on standardised features with a small ridge, then folded back to raw
weights so the model in the settings file applies to raw signals directly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lastword.settings import GATE_FEATURES, GateModel


def fit_gate_model(
    signals: Sequence[Sequence[float]],
    answerable: Sequence[bool],
    features: Sequence[str] = GATE_FEATURES,
    ridge: float = 1e-3,
) -> GateModel:
    """Weights for ``features`` (columns of ``signals``, in that order); the rest weigh 0."""
    unknown = set(features) - set(GATE_FEATURES)
    if unknown:
        raise ValueError(f"unknown gate signals {sorted(unknown)}; known: {GATE_FEATURES}")
    x = np.asarray(signals, dtype=np.float64)
    y = np.asarray(answerable, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(features) or len(x) != len(y):
        raise ValueError(f"need rows of {tuple(features)} and one label per row")
    if y.min() == y.max():
        raise ValueError("need both answerable and unanswerable examples")
    intercept, raw = fit_logistic(x, y, ridge)
    return GateModel(
        intercept=round(intercept, 4),
        **{name: round(float(value), 4) for name, value in zip(features, raw, strict=True)},
    )


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float) -> tuple[float, np.ndarray]:
    """(intercept, weights) on the raw scale of ``x``'s columns, for labels ``y`` in {0, 1}.

    Also fits the extractive generator's answer model (``bench/answer_scorer.py``).
    """
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.c_[np.ones(len(x)), (x - mean) / scale]
    penalty = ridge * np.diag([0.0, *([1.0] * x.shape[1])])
    w = np.zeros(design.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + penalty @ w
        hessian = (design.T * (p * (1 - p))) @ design + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    raw = w[1:] / scale
    return float(w[0] - np.sum(w[1:] * mean / scale)), raw
