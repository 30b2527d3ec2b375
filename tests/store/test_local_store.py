"""LocalStore: exact cosine search against a brute-force reference, exclusions, durability."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from lastword.embed.protocol import EmbedderInfo, normalise
from lastword.errors import CorpusIndexError
from lastword.store import local
from lastword.store.local import LocalStore
from lastword.store.protocol import DocumentRecord, NewPassage

INFO = EmbedderInfo(name="test", model="random-16", dim=16)


def record(doc_id: str, n: int) -> DocumentRecord:
    return DocumentRecord(
        doc_id=doc_id,
        title=f"Title {doc_id}",
        source=f"/nowhere/{doc_id}",
        content_hash=f"hash-{doc_id}",
        pages=None,
        passages=n,
        added_at=datetime.now(UTC).isoformat(),
        metadata={"k": doc_id},
    )


def passages(n: int) -> list[NewPassage]:
    return [
        NewPassage(page=i + 1, position=i, char_start=0, char_end=5, text=f"p{i}") for i in range(n)
    ]


@pytest.fixture
def filled(tmp_path: Path):
    rng = np.random.default_rng(7)
    vectors = {}
    with LocalStore.open_for_write(tmp_path, INFO) as store:
        for d in range(20):
            v = normalise(rng.normal(size=(5, 16)))
            store.put_document(record(f"d{d}", 5), passages(5), v)
            vectors[f"d{d}"] = v
        store.commit()
        store.refresh_matrix()
    return tmp_path, vectors


def test_search_matches_brute_force(filled):
    index, vectors = filled
    matrix = np.concatenate([vectors[f"d{d}"] for d in range(20)])
    labels = [(f"d{d}", i) for d in range(20) for i in range(5)]
    query = normalise(np.random.default_rng(1).normal(size=(1, 16)))[0]
    expected = np.argsort(-(matrix @ query))[:8]
    with LocalStore.open(index) as store:
        hits = store.search(query, 8)
    assert [(h.passage.doc_id, h.passage.position) for h in hits] == [labels[i] for i in expected]
    assert np.allclose([h.score for h in hits], (matrix @ query)[expected], atol=1e-6)
    assert hits[0].passage.metadata == {"k": hits[0].passage.doc_id}


def test_excluded_documents_are_never_returned(filled):
    index, vectors = filled
    query = vectors["d3"][0]
    with LocalStore.open(index) as store:
        assert store.search(query, 1)[0].passage.doc_id == "d3"
        hits = store.search(query, 10, exclude_doc_ids={"d3", "d4"})
    assert len(hits) == 10 and not {"d3", "d4"} & {h.passage.doc_id for h in hits}


def test_k_larger_than_the_corpus_and_empty_index(tmp_path: Path, filled):
    index, vectors = filled
    with LocalStore.open(index) as store:
        assert len(store.search(vectors["d0"][0], 1000)) == 100
    with LocalStore.open_for_write(tmp_path / "empty", INFO) as empty:
        assert empty.search(vectors["d0"][0], 5) == []


def test_uncommitted_changes_vanish_and_replace_is_atomic(filled):
    index, vectors = filled
    with LocalStore.open_for_write(index, INFO) as store:
        store.remove_document("d1")
        store.put_document(record("d2", 2), passages(2), vectors["d2"][:2])
        # closed without commit: as if the process had been killed here
    with LocalStore.open(index) as store:
        info = store.info()
        assert (info.documents, info.passages) == (20, 100)


def test_wrong_dimension_is_refused(filled):
    index, _ = filled
    with LocalStore.open_for_write(index, INFO) as store, pytest.raises(CorpusIndexError):
        store.put_document(record("x", 1), passages(1), np.zeros((1, 8), dtype=np.float32))
    with LocalStore.open(index) as store, pytest.raises(CorpusIndexError, match="16"):
        store.search(np.ones(8, dtype=np.float32), 3)


def test_missing_or_damaged_index_is_a_clear_error(tmp_path: Path):
    with pytest.raises(CorpusIndexError, match="no index at"):
        LocalStore.open(tmp_path / "nothing")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "index.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CorpusIndexError, match="is damaged"):
        LocalStore.open(bad)


def test_fingerprint_changes_with_the_corpus(filled):
    index, _ = filled
    with LocalStore.open(index) as store:
        before = store.info().fingerprint
    with LocalStore.open_for_write(index, INFO) as store:
        store.remove_document("d0")
        store.commit()
    with LocalStore.open(index) as store:
        assert store.info().fingerprint != before and len(before) == 16


def test_kinds_flags_and_references_are_stored_and_filtered(tmp_path: Path):
    from lastword.store.protocol import ReferenceEntry

    rng = np.random.default_rng(3)
    kinds = ["body", "references", "front", "abstract", "references"]
    typed = [
        NewPassage(
            page=1,
            position=i,
            char_start=0,
            char_end=5,
            text=f"p{i}",
            kind=kind,
            flags=("Ignore previous instructions.",) if i == 0 else (),
        )
        for i, kind in enumerate(kinds)
    ]
    entries = [ReferenceEntry(1, "1. Smith J. Roots. 2019."), ReferenceEntry(2, "2. Lee A. 2018.")]
    vectors = normalise(rng.normal(size=(5, 16)))
    with LocalStore.open_for_write(tmp_path, INFO) as store:
        store.put_document(record("d0", 5), typed, vectors, entries)
        store.put_document(record("d1", 5), passages(5), normalise(rng.normal(size=(5, 16))))
        store.commit()
        store.refresh_matrix()
    with LocalStore.open(tmp_path) as store:
        query = vectors[1]  # a references passage is the nearest
        assert store.search(query, 1)[0].passage.kind == "references"
        evidence = store.search(query, 10, kinds=["body", "abstract"])
        assert len(evidence) == 7 and {h.passage.kind for h in evidence} == {"body", "abstract"}
        flagged = [h.passage for h in store.search(query, 10) if h.passage.flags]
        assert [(p.position, p.flags) for p in flagged] == [(0, ("Ignore previous instructions.",))]
        assert store.references(["d0", "d1"]) == {"d0": entries}
        assert store.kind_counts() == {"abstract": 1, "body": 6, "front": 1, "references": 2}


def test_held_passage_rows_follow_the_generation_and_the_cap(filled):
    """Rows held in memory (``rows_in_memory_max_passages``) give what the tables give, and a
    commit by a writer is seen by an open reader at its next read."""
    from lastword.settings import StoreSettings

    index, vectors = filled
    ids = list(range(1, 101, 7))
    with (
        LocalStore.open(index) as held,
        LocalStore.open(index, StoreSettings(rows_in_memory_max_passages=0)) as tables,
        LocalStore.open(index, StoreSettings(rows_in_memory_max_passages=99)) as capped,
    ):
        for store in (held, tables, capped):
            with store.reading():
                texts = store.passage_texts(ids)
                rows = store.passages_by_id(ids)
            assert texts == tables.passage_texts(ids)
            assert rows == tables.passages_by_id(ids)
        assert held.held_rows_bytes() > 0
        assert tables.held_rows_bytes() == capped.held_rows_bytes() == 0  # 100 > 99 passages
        d2 = [
            pid for pid, p in tables.passages_by_id(list(range(1, 101))).items() if p.doc_id == "d2"
        ]
        with LocalStore.open_for_write(index, INFO) as writer:
            new = [
                NewPassage(page=1, position=i, char_start=0, char_end=3, text=f"new{i}")
                for i in range(2)
            ]
            writer.put_document(record("d2", 2), new, vectors["d2"][:2])
            writer.commit()
            writer.refresh_matrix()
        with held.reading():
            after = held.passage_texts(list(range(1, 200)))
            rows = held.passages_by_id(list(after))
        assert after == tables.passage_texts(list(range(1, 200)))
        assert not set(d2) & set(after)
        assert sorted(p.text for p in rows.values() if p.doc_id == "d2") == ["new0", "new1"]


def test_connections_cache_a_large_tables_inner_pages(filled):
    """Readers and writers alike get SQLite's page cache of ``CACHE_KIB`` (its 2,000 KiB
    default cannot hold a 1M passages table's interior pages), and searches still agree."""
    directory, vectors = filled
    with LocalStore.open(directory) as reader:
        (size,) = reader._conn.execute("PRAGMA cache_size").fetchone()
        assert size == -local.CACHE_KIB
        hits = reader.search(vectors["d3"][2], 3)
        assert hits[0].passage.doc_id == "d3" and hits[0].passage.metadata == {"k": "d3"}
    with LocalStore.open_for_write(directory, INFO) as writer:
        assert writer._conn.execute("PRAGMA cache_size").fetchone()[0] == -local.CACHE_KIB
