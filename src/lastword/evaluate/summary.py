"""What a report shows, computed from a results file and nothing else.

Pure functions over the ``{"run", "items"}`` document; the HTML and Markdown renderers only
format these numbers, so the two pages and the tests agree by construction.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

#: columns of the assigned-vs-fired table, in pipeline order; None is "answered"
MECHANISMS = ("scope_guard", "retrieval_gate", "generator", "verifier", "upstream")
TRAP_GRADES = ("declined", "sidestepped", "fooled", "phantom", "error")
SCENARIO_GRADES = ("strong", "adequate", "weak", "blocked", "refused", "phantom", "error")


def gate_score(result: dict[str, Any]) -> float | None:
    """The score the gate read (the combined score where one was used), else the top cosine."""
    gate = result.get("gate") or {}
    score = gate.get("score", result.get("top_score"))
    return float(score) if isinstance(score, int | float) else None


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


def headline(document: dict[str, Any]) -> Headline:
    items = document["items"]
    traps = [i for i in items if i["kind"] == "trap"]
    scenarios = [i for i in items if i["kind"] == "scenario"]
    trap_grades = Counter(i["grade"] for i in traps)
    scenario_grades = Counter(i["grade"] for i in scenarios)
    phantom_counts = [len(i["result"].get("phantoms") or ()) for i in items]
    run = document["run"]
    return Headline(
        items=len(items),
        traps=len(traps),
        traps_declined=trap_grades.get("declined", 0),
        traps_sidestepped=trap_grades.get("sidestepped", 0),
        traps_fooled=trap_grades.get("fooled", 0) + trap_grades.get("phantom", 0),
        traps_passed=sum(1 for i in traps if i.get("passed")),
        trap_grades={g: trap_grades.get(g, 0) for g in TRAP_GRADES},
        scenarios=len(scenarios),
        scenario_grades={g: scenario_grades.get(g, 0) for g in SCENARIO_GRADES},
        phantoms=sum(phantom_counts),
        items_with_phantoms=sum(1 for n in phantom_counts if n),
        ablated=len(run.get("ablated") or ()),
        mean_ms=run.get("mean_ms_per_item"),
    )


def mechanism_rows(document: dict[str, Any]) -> list[MechanismRow]:
    items = document["items"]
    traps = [i for i in items if i["kind"] == "trap"]
    rows = []
    for mechanism in MECHANISMS:
        rows.append(
            MechanismRow(
                mechanism=mechanism,
                assigned=sum(1 for i in traps if i.get("assigned") == mechanism),
                fired=sum(1 for i in items if i.get("fired") == mechanism),
                agreed=sum(1 for i in traps if i.get("assigned") == mechanism == i.get("fired")),
                on_scenarios=sum(
                    1 for i in items if i["kind"] == "scenario" and i.get("fired") == mechanism
                ),
            )
        )
    return rows


def crosstab(document: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Rows: the mechanism assigned to traps (and "scenario"); columns: what fired, or
    "answered" when nothing refused."""
    table: dict[str, dict[str, int]] = {}
    for item in document["items"]:
        row = "scenario" if item["kind"] == "scenario" else str(item.get("assigned"))
        # Nothing fired: the item was answered (or failed without a deciding mechanism).
        column = item.get("fired") or item["result"].get("status", "unknown")
        cells = table.setdefault(row, {})
        cells[column] = cells.get(column, 0) + 1
    return table


def paper_label(doc_id: str, result: dict[str, Any]) -> str:
    """The document's title as retrieved, else its file name (ids of files are paths)."""
    for passage in result.get("passages") or ():
        if passage.get("doc_id") == doc_id and passage.get("title"):
            return str(passage["title"])
    return PurePath(doc_id).name if "/" in doc_id else doc_id


def question_rows(document: dict[str, Any]) -> list[QuestionRow]:
    rows = []
    for item in document["items"]:
        result = item["result"]
        rows.append(
            QuestionRow(
                id=item["id"],
                kind=item["kind"],
                question=item.get("question") or result.get("question", ""),
                # the scope guard refuses before retrieval: no score to show
                score=None if item.get("fired") == "scope_guard" else gate_score(result),
                band=result.get("band"),
                assigned=item.get("assigned"),
                fired=item.get("fired"),
                status=result.get("status", ""),
                drew_on=tuple(paper_label(d, result) for d in item.get("drew_on") or ()),
                phantoms=len(result.get("phantoms") or ()),
                grade=item["grade"],
                passed=item.get("passed"),
            )
        )
    return rows
