"""The gate's thresholds on the reader's answerability, chosen so that they transfer.

``weak`` is the lowest answerability at which every corpus of the fitting set lets through at
most ``target_far`` of its unanswerable questions (the strictest corpus decides: a threshold
that holds on three different corpora is one that holds on a fourth, or the leave-one-out
figures say it does not); ``strong`` the same at ``strong_far``. Judged leave-one-corpus-out:
fitted on three corpora's fit parts, reported on the fourth's report part
(``lastword eval fit reader-gate``, ``bench/reader.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: (answerability, answerable) per question
Scored = Sequence[tuple[float, bool]]


def weak_for(scored: Scored, target_far: float) -> float:
    """The lowest threshold letting through at most ``target_far`` of the unanswerable ones."""
    negatives = np.sort(np.array([s for s, a in scored if not a], dtype=float))[::-1]
    if not len(negatives):
        return 0.0
    allowed = int(np.floor(target_far * len(negatives)))
    # above the (allowed+1)-th highest unanswerable score: at most ``allowed`` pass
    edge = negatives[allowed] if allowed < len(negatives) else 0.0
    return float(np.nextafter(edge, np.inf))


def joint_weak(corpora: Mapping[str, Scored], target_far: float) -> float:
    return max(weak_for(scored, target_far) for scored in corpora.values())


@dataclass(frozen=True)
class Held:
    corpus: str
    weak: float
    answered: float
    false_accepts: float
    answerable: int
    unanswerable: int

    def row(self) -> dict[str, float | int | str]:
        return {
            "held_out": self.corpus,
            "weak": round(self.weak, 4),
            "answered": round(self.answered, 4),
            "false_accepts": round(self.false_accepts, 4),
            "answerable": self.answerable,
            "unanswerable": self.unanswerable,
        }


def rates(scored: Scored, weak: float) -> tuple[float, float]:
    pos = [s for s, a in scored if a]
    neg = [s for s, a in scored if not a]
    answered = sum(s >= weak for s in pos) / max(len(pos), 1)
    far = sum(s >= weak for s in neg) / max(len(neg), 1)
    return answered, far


def leave_one_out(
    fit: Mapping[str, Scored], report: Mapping[str, Scored], target_far: float
) -> list[Held]:
    out = []
    for held in report:
        others = {name: scored for name, scored in fit.items() if name != held}
        weak = joint_weak(others, target_far)
        answered, far = rates(report[held], weak)
        out.append(
            Held(
                held,
                weak,
                answered,
                far,
                sum(a for _, a in report[held]),
                sum(not a for _, a in report[held]),
            )
        )
    return out


#: the weak threshold's false-accept budget per corpus, and the strong band's
TARGET_FAR = 0.05
STRONG_FAR = 0.01


def answerability(cases, reader) -> dict[str, dict[str, list[tuple[float, bool]]]]:
    """part -> corpus -> (the reader's answerability, answerable) per case."""
    from lastword.evaluate.reader_eval import as_passages

    out: dict[str, dict[str, list[tuple[float, bool]]]] = {}
    for case in cases:
        best = reader.run(case.question, as_passages(case.passages)).answerability
        out.setdefault(case.part, {}).setdefault(case.corpus, []).append((best, case.answerable))
    return out


def fit_gate(
    scored: Mapping[str, Mapping[str, Scored]],
    target_far: float = TARGET_FAR,
    strong_far: float = STRONG_FAR,
) -> dict:
    """The shipped thresholds (fitted on every corpus's fit part) and the leave-one-corpus-out
    figures that judge them."""
    fit, report = scored["fit"], scored["report"]
    weak = joint_weak(fit, target_far)
    strong = max(weak, joint_weak(fit, strong_far))
    shipped = {
        name: dict(zip(("answered", "false_accepts"), rates(report[name], weak), strict=True))
        for name in report
    }
    return {
        "weak": round(weak, 6),
        "strong": round(strong, 6),
        "target_far": target_far,
        "strong_far": strong_far,
        "fitted_on": sorted(fit),
        "report_at_shipped": shipped,
        "leave_one_corpus_out": [h.row() for h in leave_one_out(fit, report, target_far)],
    }
