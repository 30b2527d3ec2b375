"""Evaluation sets: YAML or JSONL files of questions the system should answer or refuse.

YAML form (a mapping with ``items``, or a bare list of items)::

    name: demo
    description: ...
    items:
      - id: vitd-bone
        question: Does vitamin D supplementation reduce fractures?
        kind: scenario
        expected_docs: [vitd-trial]
      - id: dose-exact
        question: What exact daily dose of vitamin D prevents all fractures?
        kind: trap
        assigned: generator
        bait: ["\\d+\\s*IU"]
        note: baits a dose the corpus never states

JSONL form: one item per line. Every problem is one ``InputError`` naming the file and the
item (line for JSONL, position for YAML) and the offending field.
"""

from __future__ import annotations

import hashlib
import json
import re
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lastword.atomic import replacing
from lastword.errors import InputError


class Kind(StrEnum):
    TRAP = "trap"  # should be refused (or the baited specific declined)
    SCENARIO = "scenario"  # should be answered


class Assigned(StrEnum):
    """The mechanism an eval set expects to catch a trap."""

    SCOPE_GUARD = "scope_guard"
    RETRIEVAL_GATE = "retrieval_gate"
    GENERATOR = "generator"
    VERIFIER = "verifier"


class EvalItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Unique within the set.")
    question: str = Field(min_length=1)
    kind: Kind
    assigned: Assigned | None = Field(
        None, description="For traps: the mechanism expected to catch it. Not for scenarios."
    )
    expected_docs: tuple[str, ...] = Field(
        (), description="Document ids an answer is expected to draw on."
    )
    exclude_docs: tuple[str, ...] = Field(
        (), description="Documents removed from retrieval for this item (corpus ablation)."
    )
    bait: tuple[str, ...] = Field(
        (),
        description="Regular expressions for the specific a trap baits; an answer that contains "
        "none of them, with zero phantoms, has declined the bait.",
    )
    note: str = Field("", description="What the trap baits, or what the scenario checks.")
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is blank")
        return value.strip()

    @field_validator("bait")
    @classmethod
    def _compiles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(
                    f"bait pattern {pattern!r} is not a regular expression: {exc}"
                ) from None
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> EvalItem:
        if self.kind is Kind.TRAP and self.assigned is None:
            raise ValueError(
                "a trap needs 'assigned': one of " + ", ".join(m.value for m in Assigned)
            )
        if self.kind is Kind.SCENARIO and self.assigned is not None:
            raise ValueError("'assigned' is for traps only; a scenario should be answered")
        if self.kind is Kind.SCENARIO and self.bait:
            raise ValueError("'bait' is for traps only")
        return self

    @property
    def ablated(self) -> bool:
        return bool(self.exclude_docs)


class EvalSet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    items: tuple[EvalItem, ...]
    source: str = Field("", description="The file it was read from.")
    sha256: str = Field("", description="Hash of the file's bytes: ties a run to its set.")

    @property
    def traps(self) -> tuple[EvalItem, ...]:
        return tuple(item for item in self.items if item.kind is Kind.TRAP)

    @property
    def scenarios(self) -> tuple[EvalItem, ...]:
        return tuple(item for item in self.items if item.kind is Kind.SCENARIO)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        parts.append(f"{key}: {message}" if key else message)
    return "; ".join(parts)


def _item(raw: Any, where: str) -> EvalItem:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: an item must be a mapping, got {type(raw).__name__}")
    try:
        return EvalItem.model_validate(raw)
    except ValidationError as exc:
        name = f" (id {raw['id']!r})" if isinstance(raw.get("id"), str) else ""
        raise InputError(f"{where}{name}: {_describe(exc)}") from None


def _read_yaml(path: Path, text: str) -> tuple[dict[str, Any], list[EvalItem]]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from None
    header: dict[str, Any] = {}
    if isinstance(data, dict):
        unknown = set(data) - {"name", "description", "items"}
        if unknown:
            raise InputError(f"{path}: unknown top-level key(s): {', '.join(sorted(unknown))}")
        header = {k: v for k, v in data.items() if k != "items"}
        data = data.get("items")
    if not isinstance(data, list) or not data:
        raise InputError(f"{path}: expected a non-empty list of items (or a mapping with 'items')")
    return header, [_item(raw, f"{path}: item {i}") for i, raw in enumerate(data, start=1)]


def _read_jsonl(path: Path, text: str) -> list[EvalItem]:
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None
        items.append(_item(raw, f"{path}:{number}"))
    if not items:
        raise InputError(f"{path}: no items")
    return items


def load_evalset(path: Path) -> EvalSet:
    """Read and validate an eval set (``.yaml``/``.yml`` or ``.jsonl``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"eval set not found: {path}")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    suffix = path.suffix.lower()
    header: dict[str, Any] = {}
    if suffix in {".yaml", ".yml"}:
        header, items = _read_yaml(path, text)
    elif suffix in {".jsonl", ".ndjson"}:
        items = _read_jsonl(path, text)
    else:
        raise InputError(f"{path}: an eval set is a .yaml, .yml or .jsonl file")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise InputError(f"{path}: duplicate item id {item.id!r}")
        seen.add(item.id)
    return EvalSet(
        name=str(header.get("name") or path.stem),
        description=str(header.get("description") or ""),
        items=tuple(items),
        source=str(path),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def write_evalset_jsonl(items: list[EvalItem], path: Path) -> None:
    """One item a line, omitting empty optional fields (the form ``load_evalset`` reads).

    The file is replaced whole: an error part-way leaves the previous one as it was."""
    with replacing(path) as handle:
        for item in items:
            record = item.model_dump(mode="json", exclude_defaults=True)
            record["kind"] = item.kind.value
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
