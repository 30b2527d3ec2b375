"""PubMedQA and SciFact builders on the real data (skipped when the data are absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lastword.errors import InputError
from lastword.evaluate.datasets.pubmedqa import build_pubmedqa
from lastword.evaluate.datasets.scifact import build_scifact, paragraphs
from lastword.evaluate.evalset import Assigned, Kind, load_evalset


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_pubmedqa_test_split_with_ablation(datasets_dir: Path, tmp_path: Path) -> None:
    built = build_pubmedqa(datasets_dir / "pubmedqa", "test", True, tmp_path)
    corpus = read_jsonl(built.corpus)
    assert built.documents == len(corpus) == 1000
    paragraphs_total = sum(len(r["text"].split("\n\n")) for r in corpus)
    assert paragraphs_total == 3358
    first = corpus[0]
    assert first["title"] == f"PubMed {first['id']}"
    assert first["metadata"]["meshes"] and first["metadata"]["labels"]
    evalset = load_evalset(built.evalset)
    assert (built.scenarios, built.traps) == (500, 500)
    test_ids = set(json.loads((datasets_dir / "pubmedqa" / "test_ground_truth.json").read_text()))
    for item in evalset.items:
        pmid = item.metadata["pmid"]
        assert pmid in test_ids
        if item.kind is Kind.SCENARIO:
            assert item.expected_docs == (pmid,) and not item.exclude_docs
        else:
            assert item.assigned is Assigned.RETRIEVAL_GATE
            assert item.exclude_docs == (pmid,)
            assert item.id == f"pqa-{pmid}-ablated"


def test_pubmedqa_dev_split_is_the_other_half(datasets_dir: Path, tmp_path: Path) -> None:
    dev = load_evalset(build_pubmedqa(datasets_dir / "pubmedqa", "dev", False, tmp_path).evalset)
    test_ids = set(json.loads((datasets_dir / "pubmedqa" / "test_ground_truth.json").read_text()))
    assert len(dev.items) == 500 and not dev.traps
    assert not {i.metadata["pmid"] for i in dev.items} & test_ids


def test_scifact_dev_with_ablation(datasets_dir: Path, tmp_path: Path) -> None:
    folder = datasets_dir / "scifact"
    built = build_scifact(folder, "dev", True, tmp_path)
    assert built.documents == 5183
    claims = read_jsonl(folder / "claims_dev.jsonl")
    with_evidence = [c for c in claims if c["evidence"]]
    assert built.scenarios == built.traps == len(with_evidence)
    evalset = load_evalset(built.evalset)
    corpus_ids = {r["id"] for r in read_jsonl(built.corpus)}
    for item in evalset.traps:
        assert item.exclude_docs and set(item.exclude_docs) <= corpus_ids
    for item in evalset.scenarios:
        assert item.expected_docs and set(item.expected_docs) <= corpus_ids


def test_scifact_paragraphs_group_sentences() -> None:
    sentences = [" ".join(["word"] * 50) + "."] * 5
    grouped = paragraphs(sentences)
    assert len(grouped) == 2  # 150 words, then the remaining 100
    assert paragraphs(["", "  "]) == []


def test_missing_data_and_bad_split(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"ori_pqal\.json not found"):
        build_pubmedqa(tmp_path, "test", False, tmp_path / "out")
    with pytest.raises(InputError, match="dev or test"):
        build_pubmedqa(tmp_path, "train", False, tmp_path / "out")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="dev or train"):
        build_scifact(tmp_path, "test", False, tmp_path / "out")  # type: ignore[arg-type]
