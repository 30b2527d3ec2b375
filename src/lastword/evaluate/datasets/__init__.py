"""Built-in eval sets from public data: a corpus JSONL plus an eval set JSONL per data set.

Both builders write ``corpus.jsonl`` (one ``{"id", "title", "text", "metadata"}`` record per
abstract, the form ``lastword ingest`` reads) and ``evalset.jsonl`` (the form
``lastword eval run`` reads). The data are used by path, never copied into the project.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lastword.atomic import replacing
from lastword.errors import InputError
from lastword.evaluate.evalset import Assigned, EvalItem, Kind, write_evalset_jsonl


@dataclass(frozen=True)
class BuiltDataset:
    corpus: Path
    evalset: Path
    documents: int
    scenarios: int
    traps: int


def default_data_dir(name: str) -> Path | None:
    """``$LASTWORD_DATASETS/<name>``, else ``../shared/datasets/<name>`` beside a checkout."""
    env = os.environ.get("LASTWORD_DATASETS")
    if env:
        return Path(env) / name
    checkout = Path(__file__).resolve().parents[4]  # src/lastword/evaluate/datasets -> repo
    candidate = checkout.parent / "shared" / "datasets" / name
    return candidate if candidate.is_dir() else None


def require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise InputError(f"{what} not found: {path} (point --data at the data set's folder)")
    return path


def scenario_and_ablation(
    item_id: str,
    question: str,
    expected: tuple[str, ...],
    excluded: tuple[str, ...] | None,
    notes: tuple[str, str],
    metadata: dict[str, Any] | None = None,
) -> list[EvalItem]:
    """The question as a scenario expecting ``expected``; with ``excluded``, again as a trap for
    the retrieval gate with those documents excluded from retrieval (corpus ablation).
    ``notes``: (the scenario's, the trap's)."""
    meta = metadata or {}
    items = [
        EvalItem(
            id=item_id,
            question=question,
            kind=Kind.SCENARIO,
            expected_docs=expected,
            note=notes[0],
            metadata=meta,
        )
    ]
    if excluded:
        items.append(
            EvalItem(
                id=f"{item_id}-ablated",
                question=question,
                kind=Kind.TRAP,
                assigned=Assigned.RETRIEVAL_GATE,
                exclude_docs=excluded,
                note=notes[1],
                metadata=meta,
            )
        )
    return items


def write_outputs(
    out_dir: Path, records: Iterable[dict[str, Any]], items: list[EvalItem]
) -> BuiltDataset:
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus, evalset = out_dir / "corpus.jsonl", out_dir / "evalset.jsonl"
    documents = 0
    with replacing(corpus) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            documents += 1
    write_evalset_jsonl(items, evalset)
    traps = sum(1 for item in items if item.kind.value == "trap")
    return BuiltDataset(corpus, evalset, documents, len(items) - traps, traps)
