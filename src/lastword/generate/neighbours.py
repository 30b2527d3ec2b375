"""Two neighbouring sentences of one passage scored as one answer (``neighbour_pairs``): the
asked specific often sits in the sentence next to the one that says what it is about ("In
2010/11, at Morrison grain yield increased due to Nutri-phite." / "Nutri-phite resulted in 70%
more grain yield than the nontreated."). Used by the extractive generator (``extractive.py``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lastword.generate.answering import (
    Candidate,
    Coverage,
    QuestionProfile,
    reports_control,
    reports_method,
    specifics,
    states_new_number,
)

#: the share of the question's terms (IDF-weighted) a subject neighbour must add. Chosen on
#: DEV among 0 / 0.02 / 0.05 / 0.1 / 0.2 (no gate: 10 / 10 / 10 / 9 / 8 DEV correct, the same
#: false accepts)
PAIR_MIN_SUBJECT = 0.05
#: a subject neighbour that follows the specific one and opens by referring back to it
#: ("These results were in agreement with ...") comments on it: no pair
PAIR_ANAPHOR = True
#: a subject neighbour that follows the specific one and states a specific of the asked kind
#: itself ("The extracts ... showed a bacteriostatic effect against Staphylococcus aureus ..."
#: after "The positive controls ... at 4 mg/L and 2 mg/L") reports its own finding, not the
#: setting of the one before it: no pair
PAIR_OWN_FINDING = True
#: the half that states the specific must not report a control of the experiment ("The
#: positive controls, amikacin, and nystatin ... at 4 mg/L and 2 mg/L" beside a sentence on the
#: extracts asked about; ``answering.reports_control``)
PAIR_CONTROLS = True
#: a question that asks two things may take a pair whose halves each state a number
PAIR_SEVERAL = True
_REFERS_BACK = re.compile(
    r"^\s*(these|this|those|such|they|it|both|the\s+(latter|former|same))\b", re.I
)


def refers_back(candidate: Candidate) -> bool:
    """The sentence opens by pointing at what came before ("These results ...", "They ...")."""
    return bool(_REFERS_BACK.match(candidate.text))


@dataclass(frozen=True)
class Pair:
    """Two neighbouring sentences scored as one: one states the question's subject (terms the
    other lacks), the other the specific asked (a number or name of the asked kind)."""

    members: tuple[int, int]  # in reading order
    joined: Candidate
    matched: set[str]


def neighbour_pairs(
    profile: QuestionProfile,
    candidates: list[Candidate],
    coverage: Coverage,
    relevance: np.ndarray | None = None,
    floor: float = 0.0,
) -> list[Pair]:
    """Neighbouring sentences of one passage where the asked specific sits in one and the terms
    that say what it is about ("At Morrison in 2010/11 ...") in the other. Only when a specific
    is asked, and only when each adds to the other: the subject sentence states a question term
    the specific one does not, and the specific one states a number or name of the asked kind
    that the subject one does not."""
    if not (profile.wants_number or profile.wants_name):
        return []
    by_place = {(c.n, c.position): i for i, c in enumerate(candidates)}
    asked = [specifics(c, profile) for c in candidates]
    out: list[Pair] = []
    seen: set[tuple[int, int]] = set()
    for i, c in enumerate(candidates):
        # the half that states the specific must be on the question by itself
        if not asked[i] or c.kind == "table" or (relevance is not None and relevance[i] < floor):
            continue
        if PAIR_CONTROLS and reports_control(c, profile):
            continue  # a control's value is not the treatment's, whatever its neighbour says
        for step in (-1, 1):
            j = by_place.get((c.n, c.position + step))
            if j is None or candidates[j].kind == "table":
                continue
            subject = coverage.matched[j] - coverage.matched[i]
            if coverage.share(subject) < PAIR_MIN_SUBJECT or not (asked[i] - asked[j]):
                continue
            if (
                profile.wants_number
                and not (PAIR_SEVERAL and profile.several)
                and states_new_number(candidates[j], profile)
            ):
                continue  # the subject sentence states numbers of its own: two facts, not one
            if reports_method(candidates[j]) or reports_method(c):
                continue  # what was done or aimed at is not the setting of a finding
            if PAIR_OWN_FINDING and step == 1 and asked[j]:
                continue  # a later sentence with a specific of its own reports its own finding
            if PAIR_ANAPHOR and step == 1 and refers_back(candidates[j]):
                continue  # "These results were in agreement ...": a comment on it, not its setting
            first, second = sorted((i, j), key=lambda k: candidates[k].position)
            if (first, second) in seen:
                continue
            seen.add((first, second))
            joined = Candidate(
                n=c.n,
                text=f"{candidates[first].text} {candidates[second].text}",
                passage_score=c.passage_score,
                kind=c.kind,
                position=candidates[first].position,
            )
            out.append(Pair((first, second), joined, coverage.matched[i] | coverage.matched[j]))
    return out
