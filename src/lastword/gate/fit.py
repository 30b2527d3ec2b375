"""Fit the gate's logistic model on labelled signals (answerable vs unanswerable questions).

Plain Newton-Raphson on standardised features with a small ridge, then folded back to raw
weights so the model in the settings file applies to raw signals directly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lastword.settings import GateModel

FEATURES = ("top", "margin", "coverage")


def fit_gate_model(
    signals: Sequence[tuple[float, float, float]], answerable: Sequence[bool], ridge: float = 1e-3
) -> GateModel:
    x = np.asarray(signals, dtype=np.float64)
    y = np.asarray(answerable, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or len(x) != len(y):
        raise ValueError(f"need rows of {FEATURES} and one label per row")
    if y.min() == y.max():
        raise ValueError("need both answerable and unanswerable examples")
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.c_[np.ones(len(x)), (x - mean) / scale]
    penalty = ridge * np.diag([0.0, *([1.0] * len(FEATURES))])
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
    intercept = float(w[0] - np.sum(w[1:] * mean / scale))
    return GateModel(
        intercept=round(intercept, 4),
        **{name: round(float(value), 4) for name, value in zip(FEATURES, raw, strict=True)},
    )
