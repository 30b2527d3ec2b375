"""Gate calibration from a results file: never re-embeds, reads the scores the run recorded.

Labels: scenarios are positives (should be answered); traps assigned to the retrieval gate are
negatives (the gate should refuse them). Traps assigned to other mechanisms are on-topic by
design (an exact dose the corpus never states) and say nothing about the gate's threshold;
``negatives="all"`` counts them anyway. Items the scope guard refused never reached retrieval
and are left out; items without the chosen score are left out and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from lastword import settings_file
from lastword.errors import ConfigError, InputError
from lastword.evaluate import metrics
from lastword.evaluate.metrics import Curve, Interval
from lastword.evaluate.records import ItemRecord, Results
from lastword.evaluate.summary import gate_score
from lastword.gate.signals import combined_score
from lastword.result import Status
from lastword.settings import GateModel, Thresholds

NegativeChoice = Literal["gate", "all"]
#: the score the gate's shipped thresholds apply to
SHIPPED_COLUMN = "gate.score"


def score_of(item: ItemRecord, column: str) -> float | None:
    """A field of the item's result named by a dotted path (the ``--column`` option), e.g.
    ``top_score`` or ``gate.margin``; None when the result does not record it."""
    if column == SHIPPED_COLUMN:
        return gate_score(item.result)
    value: Any = item.result
    for part in column.split("."):
        value = getattr(value, part, None) if isinstance(value, BaseModel) else None
    return float(value) if isinstance(value, int | float) else None


#: the gate model's signal names and where a result records each
SIGNAL_FIELDS = {
    "top": "top_score",
    "margin": "margin",
    "coverage": "coverage",
    "maxsim": "maxsim",
    "placed": "placed",
    "rare": "rare",
    "agreement": "agreement",
}


def recorded_signals(item: ItemRecord) -> dict[str, float]:
    """The gate signals the run recorded for an item, by the gate model's names."""
    gate = item.result.gate
    if gate is None:
        return {}
    values = {name: getattr(gate, field) for name, field in SIGNAL_FIELDS.items()}
    return {name: float(value) for name, value in values.items() if value is not None}


def model_score(model: GateModel, item: ItemRecord) -> float | None:
    """The score ``model`` gives the recorded signals; None if one it weighs was not recorded."""
    signals = recorded_signals(item)
    if any(name not in signals for name in model.weighed()):
        return None
    return combined_score(model, signals)


def labelled_items(
    items: list[ItemRecord], negatives: NegativeChoice = "gate"
) -> Iterator[tuple[ItemRecord, bool]]:
    """(item, answerable) for every item that says something about the gate's threshold."""
    for item in items:
        if item.fired == "scope_guard":
            continue  # refused before retrieval: its score says nothing about the gate
        if item.kind == "scenario":
            yield item, True
        elif negatives == "all" or item.assigned == "retrieval_gate":
            yield item, False


def labelled_scores(
    items: list[ItemRecord],
    column: str = SHIPPED_COLUMN,
    negatives: NegativeChoice = "gate",
    scorer: Callable[[ItemRecord], float | None] | None = None,
) -> tuple[list[float], list[float], int]:
    """(positive scores, negative scores, items left out for want of a score).

    ``scorer`` replaces the column lookup (a refitted gate model scoring the recorded signals).
    """
    pos: list[float] = []
    neg: list[float] = []
    missing = 0
    for item, answerable in labelled_items(items, negatives):
        score = scorer(item) if scorer else score_of(item, column)
        if score is None:
            missing += 1
        else:
            (pos if answerable else neg).append(score)
    return pos, neg, missing


@dataclass(frozen=True)
class Calibration:
    column: str
    embedder: str
    positives: int
    negatives: int
    missing: int
    shipped_strong: float
    shipped_weak: float
    target_far: float
    auc: Interval | None = None
    far_at_shipped: Interval | None = None
    kept_at_shipped: Interval | None = None
    gate_share_of_refusals: Interval | None = None
    refusals: int = 0
    zero_fa_threshold: float | None = None
    zero_fa_kept: Interval | None = None
    target_threshold: float | None = None
    target_far_achieved: Interval | None = None
    target_kept: Interval | None = None
    roc: Curve | None = None
    risk: Curve | None = None
    #: the gate model refitted on these items, whose scores the figures are computed from
    refit: GateModel | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def can_choose(self) -> bool:
        """Thresholds can be chosen for the gate (which reads the top score) from these labels."""
        return (
            self.column == SHIPPED_COLUMN
            and self.target_threshold is not None
            and self.zero_fa_threshold is not None
        )

    def chosen(self) -> tuple[float, float]:
        """(strong, weak) to write: weak at the target false-accept rate, strong at the
        zero-false-accept point (never below weak)."""
        if not self.can_choose:
            raise InputError(
                f"cannot choose gate thresholds from {self.column}: the gate reads "
                f"{SHIPPED_COLUMN}, and needs answerable and trap scores to choose from"
            )
        assert self.target_threshold is not None and self.zero_fa_threshold is not None
        weak = min(max(self.target_threshold, -1.0), 1.0)
        strong = min(max(self.zero_fa_threshold, weak), 1.0)
        return strong, weak

    def to_json(self) -> dict[str, Any]:
        """Every figure as numbers (intervals as estimate, low, high); curves left out."""

        def interval(value: Interval | None) -> dict[str, float] | None:
            if value is None:
                return None
            return {"estimate": value.estimate, "low": value.low, "high": value.high}

        figures: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name in ("roc", "risk"):
                continue
            if isinstance(value, GateModel):
                value = value.model_dump()
            figures[name] = interval(value) if isinstance(value, Interval) else value
        figures["notes"] = list(self.notes)
        if self.can_choose:
            strong, weak = self.chosen()
            figures["chosen"] = {"strong": strong, "weak": weak}
        return figures

    def evidence(self, source: str, date: str) -> str:
        auc = self.auc.describe() if self.auc else "n/a"
        kept = self.target_kept.describe(percent=True) if self.target_kept else "n/a"
        zero = self.zero_fa_kept.describe(percent=True) if self.zero_fa_kept else "n/a"
        refit = " --refit" if self.refit else ""
        return (
            f"lastword eval calibrate{refit} {source} ({date}): {self.positives} answerable vs "
            f"{self.negatives} trap questions on {self.column}; ROC AUC {auc}; weak at "
            f"false-accept rate <= {self.target_far:.0%} keeps {kept}; strong at zero false "
            f"accepts keeps {zero}"
        )


def calibrate(
    document: Results,
    *,
    column: str = SHIPPED_COLUMN,
    negatives: NegativeChoice = "gate",
    target_far: float = 0.05,
    refit: GateModel | None = None,
) -> Calibration:
    """Figures for ``column``; with ``refit`` (a model fitted on these items, see
    ``evaluate/refit.py``) for the gate score that model gives the recorded signals."""
    run, items = document.run, document.items
    if refit is not None and column != SHIPPED_COLUMN:
        raise InputError(f"a refitted gate model scores {SHIPPED_COLUMN}, not {column}")
    strong, weak = run.thresholds.strong, run.thresholds.weak
    scorer = partial(model_score, refit) if refit is not None else None
    pos, neg, missing = labelled_scores(items, column, negatives, scorer)
    refused = [i for i in items if i.result.status == Status.REFUSED]
    by_gate = sum(1 for i in refused if i.fired == "retrieval_gate")
    notes: list[str] = []
    values: dict[str, Any] = {
        "column": column,
        "embedder": run.embedder.name,
        "positives": len(pos),
        "negatives": len(neg),
        "missing": missing,
        "shipped_strong": float(strong),
        "shipped_weak": float(weak),
        "target_far": target_far,
        "refusals": len(refused),
        "refit": refit,
    }
    if refused:
        values["gate_share_of_refusals"] = metrics.wilson_interval(by_gate, len(refused))
    # The shipped thresholds are on the shipped gate score; another column, or a refitted
    # model's score, has no shipped threshold.
    shipped = column == SHIPPED_COLUMN and refit is None
    if pos and shipped:
        values["kept_at_shipped"] = metrics.wilson_interval(
            metrics.accepted_count(pos, weak), len(pos)
        )
    if neg and shipped:
        values["far_at_shipped"] = metrics.wilson_interval(
            metrics.accepted_count(neg, weak), len(neg)
        )
    if not pos or not neg:
        notes.append(
            f"{len(pos)} answerable and {len(neg)} trap questions carry a {column} score: "
            "ROC AUC and thresholds need at least one of each."
        )
        return Calibration(**values, notes=tuple(notes))
    values["auc"] = metrics.bootstrap_auc(pos, neg)
    zero = metrics.zero_false_accept_threshold(pos, neg)
    target = metrics.threshold_for_false_accept_rate(pos, neg, target_far)
    values.update(
        zero_fa_threshold=zero,
        zero_fa_kept=metrics.wilson_interval(metrics.accepted_count(pos, zero), len(pos)),
        target_threshold=target,
        target_far_achieved=metrics.wilson_interval(metrics.accepted_count(neg, target), len(neg)),
        target_kept=metrics.wilson_interval(metrics.accepted_count(pos, target), len(pos)),
        roc=metrics.roc_curve(pos, neg),
        risk=metrics.risk_coverage(pos, neg),
    )
    if len(neg) < metrics.FEW_NEGATIVES:
        notes.append(
            f"Only {len(neg)} labelled negatives: the intervals are wide and the thresholds "
            f"rest on few points; zero false accepts in {len(neg)} is consistent with a true "
            f"rate up to {metrics.wilson_interval(0, len(neg)).high:.0%}. Add traps before "
            "trusting them."
        )
    if len(neg) and target_far * len(neg) < 1:
        notes.append(
            f"A {target_far:.0%} false-accept target allows no false accept among {len(neg)} "
            "negatives, so the target threshold equals the zero-false-accept point."
        )
    return Calibration(**values, notes=tuple(notes))


def write_thresholds(
    config_path: Path,
    embedder: str,
    strong: float,
    weak: float,
    evidence: str,
    model: dict[str, float] | None = None,
) -> None:
    """Store ``[gate.thresholds.<embedder>]`` in the TOML file, keeping every other key.

    TOML comments are not kept (tomllib reads values only). The file is replaced atomically.
    """
    try:
        Thresholds(strong=strong, weak=weak, evidence=evidence, model=model)
    except ValueError as exc:
        raise ConfigError(f"chosen thresholds are not valid: {exc}") from None
    entry: dict[str, Any] = {"strong": round(strong, 6), "weak": round(weak, 6)}
    if model:
        # Thresholds on a combined gate score mean nothing without the model that made it.
        entry["model"] = model

    def change(document: dict[str, Any]) -> None:
        settings_file.table(document, "gate", "thresholds")[embedder] = entry | {
            "evidence": evidence
        }

    settings_file.patch(config_path, change)
