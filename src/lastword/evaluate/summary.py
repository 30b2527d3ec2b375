"""What a report shows, computed from a results file and nothing else.

Pure functions over the typed results (``evaluate/records.py``); the HTML and Markdown renderers
only format these numbers, so the two pages and the tests agree by construction.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath

from lastword.evaluate.records import Results
from lastword.result import Result

#: columns of the assigned-vs-fired table, in pipeline order; None is "answered"
MECHANISMS = ("scope_guard", "retrieval_gate", "generator", "verifier", "upstream")
TRAP_GRADES = ("declined", "sidestepped", "fooled", "phantom", "error")
SCENARIO_GRADES = ("strong", "adequate", "weak", "blocked", "refused", "phantom", "error")


def gate_score(result: Result) -> float | None:
    """The score the gate read (the combined score where one was used), else the top cosine."""
    return result.gate.score if result.gate is not None else result.top_score


@dataclass(frozen=True)
class Headline:
    items: int
    traps: int
    #: refused by a mechanism (or declined upstream): the only traps counted as declined
    traps_declined: int
    #: answered anyway, without the baited specific: counted apart, never as declined
    traps_sidestepped: int
    #: answered with the bait, or with a phantom citation
    traps_fooled: int
    #: declined + sidestepped (the graders' "passed"); not a headline figure
    traps_passed: int
    trap_grades: dict[str, int]
    scenarios: int
    scenario_grades: dict[str, int]
    phantoms: int
    items_with_phantoms: int
    ablated: int
    mean_ms: float | None


@dataclass(frozen=True)
class MechanismRow:
    mechanism: str
    assigned: int  # traps the set expects this mechanism to catch
    fired: int  # items (any kind) this mechanism decided
    agreed: int  # traps assigned to it that it decided
    on_scenarios: int  # scenarios it refused or blocked (false refusals, upstream blocks)


@dataclass(frozen=True)
class QuestionRow:
    id: str
    kind: str
    question: str
    score: float | None
    band: str | None
    assigned: str | None
    fired: str | None
    status: str
    drew_on: tuple[str, ...]  # titles of the papers the answer cites
    phantoms: int
    grade: str
    passed: bool | None


def headline(document: Results) -> Headline:
    items = document.items
    traps, scenarios = document.traps, document.scenarios
    trap_grades = Counter(i.grade for i in traps)
    scenario_grades = Counter(i.grade for i in scenarios)
    phantom_counts = [len(i.result.phantoms) for i in items]
    run = document.run
    return Headline(
        items=len(items),
        traps=len(traps),
        traps_declined=trap_grades.get("declined", 0),
        traps_sidestepped=trap_grades.get("sidestepped", 0),
        traps_fooled=trap_grades.get("fooled", 0) + trap_grades.get("phantom", 0),
        traps_passed=sum(1 for i in traps if i.passed),
        trap_grades={g: trap_grades.get(g, 0) for g in TRAP_GRADES},
        scenarios=len(scenarios),
        scenario_grades={g: scenario_grades.get(g, 0) for g in SCENARIO_GRADES},
        phantoms=sum(phantom_counts),
        items_with_phantoms=sum(1 for n in phantom_counts if n),
        ablated=len(run.ablated),
        mean_ms=run.mean_ms_per_item,
    )


def mechanism_rows(document: Results) -> list[MechanismRow]:
    items, traps = document.items, document.traps
    rows = []
    for mechanism in MECHANISMS:
        rows.append(
            MechanismRow(
                mechanism=mechanism,
                assigned=sum(1 for i in traps if i.assigned == mechanism),
                fired=sum(1 for i in items if i.fired == mechanism),
                agreed=sum(1 for i in traps if i.assigned == mechanism == i.fired),
                on_scenarios=sum(1 for i in document.scenarios if i.fired == mechanism),
            )
        )
    return rows


def crosstab(document: Results) -> dict[str, dict[str, int]]:
    """Rows: the mechanism assigned to traps (and "scenario"); columns: what fired, or
    "answered" when nothing refused."""
    table: dict[str, dict[str, int]] = {}
    for item in document.items:
        row = "scenario" if item.kind == "scenario" else str(item.assigned)
        # Nothing fired: the item was answered (or failed without a deciding mechanism).
        column = item.fired or item.result.status.value
        cells = table.setdefault(row, {})
        cells[column] = cells.get(column, 0) + 1
    return table


def paper_label(doc_id: str, result: Result) -> str:
    """The document's title as retrieved, else its file name (ids of files are paths)."""
    for passage in result.passages:
        if passage.doc_id == doc_id and passage.title:
            return passage.title
    return PurePath(doc_id).name if "/" in doc_id else doc_id


def question_rows(document: Results) -> list[QuestionRow]:
    rows = []
    for item in document.items:
        result = item.result
        rows.append(
            QuestionRow(
                id=item.id,
                kind=item.kind,
                question=item.question or result.question,
                # the scope guard refuses before retrieval: no score to show
                score=None if item.fired == "scope_guard" else gate_score(result),
                band=result.band.value if result.band is not None else None,
                assigned=item.assigned,
                fired=item.fired,
                status=result.status.value,
                drew_on=tuple(paper_label(d, result) for d in item.drew_on),
                phantoms=len(result.phantoms),
                grade=item.grade,
                passed=item.passed,
            )
        )
    return rows
