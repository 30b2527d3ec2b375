"""SciFact: 5,183 abstracts and expert-written claims with cited evidence.

The corpus is every abstract. Claims with evidence are scenarios expecting their evidence
abstracts; with ``ablate`` each such claim is also a trap, assigned to the retrieval gate, with
all its cited abstracts excluded from retrieval. Claims without evidence ("not enough info")
are left out: whether the corpus answers them is not known. Split ``dev`` reads
``claims_dev.jsonl``, ``train`` reads ``claims_train.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from lastword.errors import InputError
from lastword.evaluate.datasets import (
    BuiltDataset,
    require_file,
    scenario_and_ablation,
    write_outputs,
)
from lastword.evaluate.evalset import EvalItem

Split = Literal["dev", "train"]
#: sentences are grouped into paragraphs of about this many words (passage boundaries)
PARAGRAPH_WORDS = 120


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: not valid JSON: {exc.msg}") from None


def paragraphs(sentences: list[str]) -> list[str]:
    grouped: list[str] = []
    current: list[str] = []
    words = 0
    for sentence in (s.strip() for s in sentences):
        if not sentence:
            continue
        current.append(sentence)
        words += len(sentence.split())
        if words >= PARAGRAPH_WORDS:
            grouped.append(" ".join(current))
            current, words = [], 0
    if current:
        grouped.append(" ".join(current))
    return grouped


def corpus_record(raw: dict[str, Any]) -> dict[str, Any]:
    doc_id = str(raw["doc_id"])
    return {
        "id": doc_id,
        "title": raw.get("title") or f"SciFact {doc_id}",
        "text": "\n\n".join(paragraphs(raw.get("sentences") or [])),
        "metadata": {"source": "scifact", "structured": bool(raw.get("structured"))},
    }


def eval_items(claim: dict[str, Any], ablate: bool) -> list[EvalItem]:
    evidence = claim.get("evidence") or {}
    if not evidence:
        return []
    evidence_docs = tuple(str(d) for d in evidence)
    cited = tuple(str(d) for d in claim.get("cited_doc_ids") or ()) or evidence_docs
    labels = sorted({e["label"] for sets in evidence.values() for e in sets})
    return scenario_and_ablation(
        f"scifact-{claim['id']}",
        claim["claim"],
        expected=evidence_docs,
        excluded=tuple(dict.fromkeys(cited + evidence_docs)) if ablate else None,
        notes=(
            "SciFact claim with its evidence abstracts in the corpus",
            "the same claim with its cited abstracts removed from the corpus",
        ),
        metadata={"claim_id": claim["id"], "labels": labels},
    )


def build_scifact(data_dir: Path, split: Split, ablate: bool, out_dir: Path) -> BuiltDataset:
    if split not in ("dev", "train"):
        raise InputError(f"SciFact split must be dev or train, got {split!r}")
    corpus_path = require_file(data_dir / "corpus.jsonl", "SciFact corpus.jsonl")
    claims_path = require_file(data_dir / f"claims_{split}.jsonl", f"SciFact claims_{split}.jsonl")
    items = [item for claim in _jsonl(claims_path) for item in eval_items(claim, ablate)]
    records = (corpus_record(raw) for raw in _jsonl(corpus_path))
    return write_outputs(out_dir, records, items)
