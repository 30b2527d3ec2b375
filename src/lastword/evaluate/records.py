"""The results file of an eval run, typed: what ``run_evalset`` writes and every reader reads.

``{"run": RunRecord, "items": [ItemRecord, ...]}`` on disk, as JSON. Readers (the summary, the
calibration, the refit, the report, the CLI and the web page) get ``Results`` with attributes,
not a ``dict[str, Any]`` read back by string paths, so a renamed field is a type error in one
place rather than a silent ``None`` in five. Unknown fields are kept (a file written by a newer
lastword still loads).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import InputError
from lastword.result import Result
from lastword.settings import Thresholds


class Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class EvalsetInfo(Record):
    name: str
    description: str = ""
    source: str = ""
    sha256: str = ""
    items: int = Field(ge=0)


class IndexRecord(Record):
    path: str | None = None
    fingerprint: str = ""
    documents: int = 0
    passages: int = 0


class RunRecord(Record):
    """What a reader needs to trust or reproduce the numbers."""

    evalset: EvalsetInfo
    date: str = "unknown"
    finished: str | None = None
    elapsed_s: float | None = None
    mean_ms_per_item: float | None = None
    resumed_items: int = 0
    index: IndexRecord = Field(default_factory=IndexRecord)
    embedder: EmbedderInfo
    generator: str = ""
    thresholds: Thresholds
    settings: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, str] = Field(default_factory=dict)
    ablated: list[str] = Field(default_factory=list)


class ItemRecord(Record):
    """One eval item: its grade, and the full result as ``lastword ask --json`` prints it."""

    id: str
    kind: Literal["trap", "scenario"]
    assigned: str | None = None
    fired: str | None = None
    grade: str
    passed: bool | None = None
    question: str = ""
    note: str = ""
    expected_docs: list[str] = Field(default_factory=list)
    exclude_docs: list[str] = Field(default_factory=list)
    drew_on: list[str] = Field(default_factory=list)
    expected_hit: bool | None = None
    bait_found: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0
    result: Result


class Results(Record):
    run: RunRecord
    items: list[ItemRecord]

    @property
    def traps(self) -> list[ItemRecord]:
        return [item for item in self.items if item.kind == "trap"]

    @property
    def scenarios(self) -> list[ItemRecord]:
        return [item for item in self.items if item.kind == "scenario"]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def parse_results(data: Any, where: str = "results") -> Results:
    """``Results`` from JSON data; a wrong shape is one ``InputError`` naming the field."""
    try:
        return Results.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise InputError(
            f'{where}: not a lastword results file: expected {{"run": {{...}}, "items": [...]}}; '
            f"{field}: {first['msg']} ({exc.error_count()} problem(s))"
        ) from None


def load_results(path: Path) -> Results:
    """Read a results file written by ``run_evalset``; a wrong shape is one clear error."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"results file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a JSON results file: {exc}") from None
    return parse_results(data, str(path))
