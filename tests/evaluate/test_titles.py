"""A label-free eval set from an index's own titles (``eval dataset titles``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.errors import InputError
from lastword.evaluate.datasets.titles import MIN_DOCUMENTS, build_title_set, usable_title
from lastword.evaluate.evalset import Kind, load_evalset
from lastword.store.local import LocalStore
from lastword.store.protocol import DocumentRecord

from .conftest import TITLED_DOCS


def doc(title: str, doc_id: str = "d1", source: str = "/papers/smith2021.pdf") -> DocumentRecord:
    return DocumentRecord(
        doc_id=doc_id, title=title, source=source, content_hash="h", pages=None, passages=1,
        added_at="2026-11-30", metadata={},
    )  # fmt: skip


def test_usable_titles() -> None:
    assert usable_title(doc("Statins and muscle symptoms in older adults"))
    assert not usable_title(doc("Results"))  # too short to stand for a question
    assert not usable_title(doc("smith2021"))  # the PDF's file name, ingest's fallback
    assert not usable_title(doc("scan of page one.pdf"))
    assert not usable_title(doc("PubMed 21645374"))
    assert not usable_title(doc("2021 03 04 11", source="/x/y.txt"))  # no letters
    assert not usable_title(doc("a b c d", doc_id="a b c d"))


def test_title_set_from_a_real_index(titled_index: Path, tmp_path: Path) -> None:
    out = tmp_path / "titles.jsonl"
    with LocalStore.open(titled_index) as store:
        used, total = build_title_set(store, out, limit=100)
        titles = {d.doc_id: d.title for d in store.documents()}
    assert (used, total) == (TITLED_DOCS, TITLED_DOCS + 1)  # the file-name title is skipped
    items = load_evalset(out).items
    scenarios = [i for i in items if i.kind is Kind.SCENARIO]
    traps = [i for i in items if i.kind is Kind.TRAP]
    assert len(scenarios) == len(traps) == TITLED_DOCS
    for scenario in scenarios:
        (doc_id,) = scenario.expected_docs
        assert scenario.question == titles[doc_id] and not scenario.exclude_docs
        trap = next(t for t in traps if t.id == f"{scenario.id}-ablated")
        assert trap.question == scenario.question and trap.exclude_docs == (doc_id,)
        assert trap.assigned is not None and trap.assigned.value == "retrieval_gate"
    assert "scan-0042" not in {d for s in scenarios for d in s.expected_docs}


def test_title_sample_is_seeded_and_limited(titled_index: Path, tmp_path: Path) -> None:
    with LocalStore.open(titled_index) as store:
        build_title_set(store, tmp_path / "a.jsonl", limit=MIN_DOCUMENTS, seed=1)
        build_title_set(store, tmp_path / "b.jsonl", limit=MIN_DOCUMENTS, seed=1)
        build_title_set(store, tmp_path / "c.jsonl", limit=MIN_DOCUMENTS, seed=2)
        with pytest.raises(InputError, match="--limit must be at least"):
            build_title_set(store, tmp_path / "d.jsonl", limit=3)
    a, b, c = (load_evalset(tmp_path / f"{n}.jsonl").items for n in "abc")
    assert len(a) == 2 * MIN_DOCUMENTS and a == b and {i.id for i in a} != {i.id for i in c}


def test_too_few_titles_is_one_clear_error(demo_index: Path, tmp_path: Path) -> None:
    out = tmp_path / "titles.jsonl"
    with LocalStore.open(demo_index) as store, pytest.raises(InputError, match="usable title"):
        build_title_set(store, out)
    assert not out.exists()  # nothing written
