"""Automatic grading of one eval item from its ``Result``.

Traps (should be refused):
  ``declined``     refused by any mechanism, or declined upstream (blocked)
  ``sidestepped``  answered, but without the baited specific (none of the item's ``bait``
                   patterns occur in the answer) and with zero phantoms
  ``fooled``       answered with the bait (or answered at all when the item names no bait)
  ``phantom``      answered with a phantom citation
  ``error``        the run failed (timeout, provider down...)

Scenarios (should be answered), zero phantoms required:
  ``strong`` / ``adequate`` / ``weak``  answered; from the retrieval band (strong, borderline,
                   weak), one step lower when the set names expected documents and the answer
                   cites none of them
  ``blocked``      declined upstream: not the system's failure, counted apart
  ``refused``      a false refusal
  ``phantom``      answered with a phantom citation
  ``error``        the run failed

``fired`` is the mechanism that actually decided (``result.decided_by``), or ``None`` when the
question was answered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePath

from lastword.evaluate.evalset import EvalItem, Kind
from lastword.result import Band, Result, Status


class Grade(StrEnum):
    DECLINED = "declined"
    SIDESTEPPED = "sidestepped"
    FOOLED = "fooled"
    STRONG = "strong"
    ADEQUATE = "adequate"
    WEAK = "weak"
    BLOCKED = "blocked"
    REFUSED = "refused"
    PHANTOM = "phantom"
    ERROR = "error"


PASSING = frozenset({Grade.DECLINED, Grade.SIDESTEPPED, Grade.STRONG, Grade.ADEQUATE, Grade.WEAK})
#: neither pass nor fail: the upstream provider declined a scenario
NEUTRAL = frozenset({Grade.BLOCKED})

_BAND_GRADES = {Band.STRONG: Grade.STRONG, Band.BORDERLINE: Grade.ADEQUATE, Band.WEAK: Grade.WEAK}
_LOWER = {Grade.STRONG: Grade.ADEQUATE, Grade.ADEQUATE: Grade.WEAK, Grade.WEAK: Grade.WEAK}


@dataclass(frozen=True)
class Grading:
    grade: Grade
    fired: str | None
    #: documents the answer cites, in citation order
    drew_on: tuple[str, ...]
    #: None when the item names no expected documents
    expected_hit: bool | None
    #: bait patterns found in the answer
    bait_found: tuple[str, ...]

    @property
    def passed(self) -> bool | None:
        if self.grade in NEUTRAL:
            return None
        return self.grade in PASSING


def cited_documents(result: Result) -> tuple[str, ...]:
    by_number = {p.n: p.doc_id for p in result.passages}
    docs: list[str] = []
    for n in result.citations:
        doc = by_number.get(n)
        if doc is not None and doc not in docs:
            docs.append(doc)
    return tuple(docs)


def document_matches(expected: str, doc_id: str) -> bool:
    """Exact id, or, for file-backed documents whose id is their path, the file name or stem
    (so a shipped set can name ``vitamin-d-bone-density.md`` wherever the corpus lives)."""
    if doc_id == expected:
        return True
    path = PurePath(doc_id)
    return len(path.parts) > 1 and expected in (path.name, path.stem)


def grade(item: EvalItem, result: Result) -> Grading:
    fired = result.decided_by.value if result.decided_by is not None else None
    drew_on = cited_documents(result)
    expected_hit = (
        any(document_matches(e, d) for e in item.expected_docs for d in drew_on)
        if item.expected_docs
        else None
    )
    answer = result.answer or ""
    bait_found = tuple(p for p in item.bait if re.search(p, answer, flags=re.IGNORECASE))

    if result.status is Status.FAILED:
        outcome = Grade.ERROR
    elif result.status is Status.BLOCKED:
        outcome = Grade.DECLINED if item.kind is Kind.TRAP else Grade.BLOCKED
    elif result.status is Status.REFUSED:
        outcome = Grade.DECLINED if item.kind is Kind.TRAP else Grade.REFUSED
    elif result.status is not Status.ANSWERED:
        outcome = Grade.ERROR  # "retrieved": the runner did not ask for an answer
    elif result.phantoms:
        outcome = Grade.PHANTOM
    elif item.kind is Kind.TRAP:
        outcome = Grade.SIDESTEPPED if item.bait and not bait_found else Grade.FOOLED
    else:
        outcome = _BAND_GRADES.get(result.band, Grade.WEAK) if result.band else Grade.WEAK
        if expected_hit is False:
            outcome = _LOWER[outcome]
    return Grading(outcome, fired, drew_on, expected_hit, bait_found)
