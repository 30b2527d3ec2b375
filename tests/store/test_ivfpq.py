"""The local store's inverted lists over 4-bit codes (faiss IVF-PQ fast scan): recall against
exact search, exact scores, filters, one file per generation, stale and damaged files, and
the install hint when faiss is missing."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

from lastword.errors import ConfigError
from lastword.settings import StoreSettings
from lastword.store import ivfpq
from lastword.store.local import LocalStore
from tests.store.contract import INFO
from tests.store.test_ann import assert_filters_hold, clustered, next_generation, recall, top_ids
from tests.store.test_ann import build as build_clustered

# 16 dimensions make a 16-bit code (4 codes of 4 bits): coarse, so more candidates than at 384
PQ = StoreSettings(ann="ivfpq", ann_min_passages=500, ivfpq_probes=32, ivfpq_candidates=512)
EXACT = StoreSettings(ann_min_passages=10**9)


def build(directory: Path, documents: int, per_doc: int = 10) -> None:
    build_clustered(directory, documents, per_doc, 0, settings=PQ)


def test_codes_recall_exact_scores_and_filters(tmp_path: Path):
    build(tmp_path, 300)  # 3,000 passages, about 110 cells
    assert sorted(p.name for p in tmp_path.glob("ivfpq-*")) == ["ivfpq-1.faiss", "ivfpq-1.json"]
    queries = clustered(99, 100)
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, PQ) as approx:
        truth = top_ids(exact, queries)
        assert recall(top_ids(approx, queries), truth) >= 0.98
        assert ivfpq.is_index(approx._graph) and approx._graph.ntotal == 3000
        assert approx._graph.nlist == 110  # the store's own cells: about 2 x sqrt(N)
        for query in queries[:10]:  # the scores are exact cosines, in the whole product's order
            got = approx.search(query, 8)
            want = exact.search(query, 8)
            assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-6)
        assert_filters_hold(approx, exact, queries)


def test_fewer_probes_and_candidates_cost_recall(tmp_path: Path):
    """The two settings are what they say: fewer cells or fewer re-scored rows find less."""
    build(tmp_path, 300)
    queries = clustered(99, 100)
    narrow = PQ.model_copy(update={"ivfpq_probes": 2, "ivfpq_candidates": 16})
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, narrow) as approx:
        assert recall(top_ids(approx, queries), top_ids(exact, queries)) < 0.9


def test_the_next_commit_updates_the_codes_in_place_then_trains_afresh(tmp_path: Path):
    build(tmp_path, 100)  # 1,000 passages
    fresh = clustered(7, 4)
    next_generation(tmp_path, PQ, fresh)
    names = sorted(p.name for p in tmp_path.glob("ivfpq-*"))
    assert names == ["ivfpq-2.faiss", "ivfpq-2.json"]  # generation 1's are gone
    # carried over: the same cells and codebooks, 10 codes dropped and 4 encoded
    assert json.loads((tmp_path / "ivfpq-2.json").read_text()) == {
        "trained_on": 1000,
        "changed": 14,
    }
    with LocalStore.open(tmp_path, PQ) as store:
        hits = store.search(fresh[0], 1)
        assert hits[0].passage.doc_id == "fresh"
        assert store._graph.ntotal == 994
        assert all(h.passage.doc_id != "d0" for h in store.search(clustered(0, 1)[0], 8))
        queries = clustered(99, 50)
        with LocalStore.open(tmp_path, EXACT) as exact:
            assert recall(top_ids(store, queries), top_ids(exact, queries)) >= 0.98
    # past a tenth of the corpus changed since training: trained afresh over every row
    with LocalStore.open_for_write(tmp_path, INFO, PQ) as store:
        for d in range(1, 11):
            store.remove_document(f"d{d}")
        store.commit()
        store.refresh_derived()
    assert json.loads((tmp_path / "ivfpq-3.json").read_text()) == {
        "trained_on": 894,
        "changed": 0,
    }
    with LocalStore.open(tmp_path, PQ) as store:
        assert all(h.passage.doc_id != "d5" for h in store.search(clustered(5, 1)[0], 8))
        assert store._graph.ntotal == 894


def test_missing_stale_or_damaged_file_means_exact_search(tmp_path: Path):
    build(tmp_path, 100)
    queries = clustered(99, 20)
    with LocalStore.open(tmp_path, EXACT) as exact:
        truth = top_ids(exact, queries)
    target = tmp_path / "ivfpq-1.faiss"
    target.write_bytes(target.read_bytes()[:1000])  # a torn file: unreadable
    with LocalStore.open(tmp_path, PQ) as store:
        assert top_ids(store, queries) == truth
        assert store._graph is None
    target.unlink()
    with LocalStore.open(tmp_path, PQ) as store:
        assert top_ids(store, queries) == truth and store._graph is None
    # an index of another corpus size is never used
    matrix = np.load(tmp_path / "vectors-1.npy")
    ids = np.load(tmp_path / "ids-1.npy")
    ivfpq.save(ivfpq.build(matrix[:500], ids[:500], lists=8), target)
    assert ivfpq.load(target, 1000) is None
    with LocalStore.open(tmp_path, PQ) as store:
        assert top_ids(store, queries) == truth and store._graph is None


def test_a_corpus_too_small_for_codes_searches_exactly(tmp_path: Path):
    small = PQ.model_copy(update={"ann_min_passages": 1})
    build_clustered(tmp_path, 5, 10, 0, settings=small)  # 50 rows, under MIN_ROWS
    assert not list(tmp_path.glob("ivfpq-*"))
    with LocalStore.open(tmp_path, small) as store, LocalStore.open(tmp_path, EXACT) as exact:
        queries = clustered(3, 5)
        assert top_ids(store, queries) == top_ids(exact, queries)


def test_without_faiss_the_setting_fails_with_the_install_hint(tmp_path: Path, monkeypatch):
    real_import = builtins.__import__

    def no_faiss(name, *args, **kwargs):
        if name == "faiss" or name.startswith("faiss."):
            raise ImportError("no faiss here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_faiss)
    with pytest.raises(ConfigError, match=r"lastword\[faiss\]"):
        build(tmp_path, 100)
    # the default store (hnsw) never needs it
    build_clustered(tmp_path / "hnsw", 100, 10, 0, settings=StoreSettings(ann_min_passages=500))
    assert list((tmp_path / "hnsw").glob("hnsw-*.bin"))
