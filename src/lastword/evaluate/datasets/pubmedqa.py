"""PubMedQA PQA-L: 1,000 expert-labelled questions, each with its own abstract.

The corpus is all 1,000 abstracts (CONTEXTS as paragraphs; LONG_ANSWER, the abstract's
conclusion, is left out as the original task does). The split picks the questions: ``test`` is
the 500 ids of ``test_ground_truth.json``, ``dev`` the other 500. Every question is a scenario
expecting its own abstract; with ``ablate`` the same question is also a trap, assigned to the
retrieval gate, with its abstract excluded from retrieval: an unanswerable question about the
same field.
"""

from __future__ import annotations

import json
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

Split = Literal["dev", "test"]


def load_pubmedqa(data_dir: Path) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """(records by PubMed id, ids of the test split)."""
    source = require_file(data_dir / "ori_pqal.json", "PubMedQA ori_pqal.json")
    truth = require_file(data_dir / "test_ground_truth.json", "PubMedQA test_ground_truth.json")
    try:
        records = json.loads(source.read_text(encoding="utf-8"))
        test_ids = set(json.loads(truth.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise InputError(f"PubMedQA file is not valid JSON: {exc}") from None
    return records, test_ids


def corpus_record(pmid: str, record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": pmid,
        "title": f"PubMed {pmid}",
        "text": "\n\n".join(part.strip() for part in record["CONTEXTS"]),
        "metadata": {
            "source": "pubmedqa",
            "pmid": pmid,
            "year": record.get("YEAR"),
            "meshes": record.get("MESHES", []),
            "labels": record.get("LABELS", []),
        },
    }


def eval_items(pmid: str, record: dict[str, Any], ablate: bool) -> list[EvalItem]:
    return scenario_and_ablation(
        f"pqa-{pmid}",
        record["QUESTION"],
        expected=(pmid,),
        excluded=(pmid,) if ablate else None,
        notes=(
            "PubMedQA question with its own abstract in the corpus",
            "the same question with its abstract removed from the corpus",
        ),
        metadata={"pmid": pmid, "final_decision": record.get("final_decision")},
    )


def build_pubmedqa(data_dir: Path, split: Split, ablate: bool, out_dir: Path) -> BuiltDataset:
    if split not in ("dev", "test"):
        raise InputError(f"PubMedQA split must be dev or test, got {split!r}")
    records, test_ids = load_pubmedqa(data_dir)
    chosen = [pmid for pmid in records if (pmid in test_ids) == (split == "test")]
    items = [item for pmid in chosen for item in eval_items(pmid, records[pmid], ablate)]
    corpus = (corpus_record(pmid, record) for pmid, record in records.items())
    return write_outputs(out_dir, corpus, items)
