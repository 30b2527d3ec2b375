"""Runs an eval set through the same ``Pipeline.ask`` the CLI uses and writes one results file.

The file is ``{"run": {...}, "items": [...]}``. ``run`` holds what a reader needs to trust or
reproduce the numbers (settings, corpus fingerprint, embedder, generator, thresholds, date,
versions, which items were ablated); each item holds its grade and the full result exactly as
``lastword ask --json`` prints it.

Long runs survive a crash: every finished item is appended to ``<out>.partial.jsonl``; a new
run of the same set on the same index and generator picks up where it stopped. The final file
is written to a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastword import __version__
from lastword.atomic import replacing
from lastword.errors import LastwordError
from lastword.evaluate.evalset import EvalItem, EvalSet
from lastword.evaluate.grading import grade
from lastword.evaluate.records import ItemRecord, Results, RunRecord
from lastword.evaluate.retrieval import document_aliases
from lastword.result import Result, Status
from lastword.settings import Settings

if TYPE_CHECKING:
    from lastword.pipeline import Pipeline

ProgressCallback = Callable[[int, int, ItemRecord], None]


def _versions() -> dict[str, str]:
    found = {"lastword": __version__, "python": platform.python_version()}
    for package in ("numpy", "torch", "sentence-transformers", "pydantic"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    found["platform"] = platform.platform()
    return found


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def resolve_documents(item: EvalItem, aliases: dict[str, str]) -> EvalItem:
    """The item with the documents it names (a file name, a path, a JSONL id, a title) as the
    index's doc ids, so grading and ablation compare ids, wherever the corpus lives."""
    if not aliases or not (item.expected_docs or item.exclude_docs):
        return item
    return item.model_copy(
        update={
            "expected_docs": tuple(aliases.get(d, d) for d in item.expected_docs),
            "exclude_docs": tuple(aliases.get(d, d) for d in item.exclude_docs),
        }
    )


def item_record(
    item: EvalItem, result: Result, elapsed_ms: float, aliases: dict[str, str] | None = None
) -> ItemRecord:
    """The record keeps the names the eval set used; grading compares doc ids."""
    graded = grade(resolve_documents(item, aliases or {}), result)
    return ItemRecord(
        **{
            "id": item.id,
            "kind": item.kind.value,
            "assigned": item.assigned.value if item.assigned else None,
            "fired": graded.fired,
            "grade": graded.grade.value,
            "passed": graded.passed,
            "question": item.question,
            "note": item.note,
            "expected_docs": list(item.expected_docs),
            "exclude_docs": list(item.exclude_docs),
            "drew_on": list(graded.drew_on),
            "expected_hit": graded.expected_hit,
            "bait_found": list(graded.bait_found),
            "elapsed_ms": round(elapsed_ms, 2),
            "result": result,
        }
    )


def ask_item(pipeline: Pipeline, item: EvalItem, aliases: dict[str, str] | None = None) -> Result:
    """One item through ``Pipeline.ask``; an ablated item has its documents left out of retrieval.

    A lastword error that escapes the pipeline is recorded as a failed result so one broken
    item does not end a thousand-item run; anything else is a bug and propagates.
    """
    item = resolve_documents(item, aliases or {})
    try:
        if item.exclude_docs:
            return pipeline.ask(item.question, exclude_doc_ids=frozenset(item.exclude_docs))
        return pipeline.ask(item.question)
    except LastwordError as exc:
        return Result(
            question=item.question, status=Status.FAILED, error=f"{type(exc).__name__}: {exc}"
        )


def partial_path(out: Path) -> Path:
    return out.with_name(out.name + ".partial.jsonl")


def _read_partial(path: Path, key: dict[str, Any]) -> dict[str, ItemRecord]:
    """Finished items from an interrupted run with the same key; a torn last line is dropped."""
    if not path.is_file():
        return {}
    done: dict[str, ItemRecord] = {}
    with path.open(encoding="utf-8") as handle:
        try:
            header = json.loads(handle.readline())
        except json.JSONDecodeError:
            return {}
        if header.get("partial_of") != key:
            return {}
        for line in handle:
            try:
                record = ItemRecord.model_validate_json(line)
            except ValueError:  # a torn last line (pydantic's ValidationError is one)
                break
            done[record.id] = record
    return done


def write_json_atomic(data: Any, path: Path) -> None:
    with replacing(path) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
        handle.write("\n")


def run_evalset(
    pipeline: Pipeline,
    evalset: EvalSet,
    settings: Settings,
    out: Path,
    *,
    index_path: Path | None = None,
    resume: bool = True,
    on_item: ProgressCallback | None = None,
) -> Results:
    """Ask every item, grade it, and write ``out``. Returns the written document."""
    info = pipeline.index_info
    generator = pipeline.generator_name
    thresholds = pipeline.thresholds
    key = {
        "evalset_sha256": evalset.sha256,
        "fingerprint": info.fingerprint,
        "embedder": info.embedder.name,
        "generator": generator,
        "thresholds": [thresholds.strong, thresholds.weak],
    }
    partial = partial_path(out)
    done = _read_partial(partial, key) if resume else {}
    started = _now()
    clock = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    # Keep only the records that will be reused (the file replaced whole), then append.
    with replacing(partial) as handle:
        handle.write(json.dumps({"partial_of": key}) + "\n")
        for record in done.values():
            handle.write(record.model_dump_json() + "\n")
    aliases = document_aliases(pipeline.store.documents())
    records: list[ItemRecord] = []
    with partial.open("a", encoding="utf-8") as handle:
        for position, item in enumerate(evalset.items, start=1):
            record = done.get(item.id)
            if record is None:
                tick = time.perf_counter()
                result = ask_item(pipeline, item, aliases)
                record = item_record(item, result, (time.perf_counter() - tick) * 1000, aliases)
                handle.write(record.model_dump_json() + "\n")
                handle.flush()
            records.append(record)
            if on_item is not None:
                on_item(position, len(evalset.items), record)
    elapsed = time.perf_counter() - clock
    item_ms = [r.elapsed_ms for r in records]
    run = {
        "evalset": {
            "name": evalset.name,
            "description": evalset.description,
            "source": evalset.source,
            "sha256": evalset.sha256,
            "items": len(evalset.items),
        },
        "date": started,
        "finished": _now(),
        "elapsed_s": round(elapsed, 3),
        "mean_ms_per_item": round(sum(item_ms) / len(item_ms), 2) if item_ms else None,
        "resumed_items": len(done),
        "index": {
            "path": str(index_path) if index_path else None,
            "fingerprint": info.fingerprint,
            "documents": info.documents,
            "passages": info.passages,
        },
        "embedder": info.embedder.model_dump(mode="json"),
        "generator": generator,
        "thresholds": thresholds.model_dump(mode="json"),
        "settings": settings.model_dump(mode="json"),
        "versions": _versions(),
        "ablated": [item.id for item in evalset.items if item.ablated],
    }
    document = Results(run=RunRecord.model_validate(run), items=records)
    write_json_atomic(document.to_json(), out)
    partial.unlink(missing_ok=True)
    return document
