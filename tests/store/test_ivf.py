"""The local store's inverted lists (IVF): recall against exact search, exact scores, filters,
the untrained tail, retraining, one set of files per generation, crash safety, and the haystack
where a graph walk fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lastword.settings import StoreSettings
from lastword.store import ivf
from lastword.store.local import LocalStore
from tests.store.contract import INFO, passages, record
from tests.store.test_ann import assert_filters_hold, clustered, next_generation, recall, top_ids
from tests.store.test_ann import build as build_clustered

IVF = StoreSettings(ann="ivf", ann_min_passages=500, ivf_probes=32)
EXACT = StoreSettings(ann_min_passages=10**9)


def build(directory: Path, documents: int, per_doc: int = 10, seed: int = 0) -> None:
    build_clustered(directory, documents, per_doc, seed, settings=IVF)


def test_lists_recall_exact_scores_and_filters(tmp_path: Path):
    build(tmp_path, 300)  # 3,000 passages: about 110 cells of about 27
    assert sorted(p.name for p in tmp_path.glob("ivf-*")) == ["ivf-1.npy", "ivf-1.npz"]
    queries = clustered(99, 100)
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, IVF) as approx:
        truth = top_ids(exact, queries)
        assert recall(top_ids(approx, queries), truth) >= 0.98
        assert isinstance(approx._graph, ivf.Lists) and len(approx._graph.tail) == 0
        assert len(approx._graph.centroids) == ivf.default_lists(3000)
        hit = approx.search(queries[0], 1)[0]
        assert hit.score == pytest.approx(exact.search(queries[0], 1)[0].score, abs=1e-6)
        assert_filters_hold(approx, exact, queries)


def test_added_passages_wait_in_the_tail_then_the_lists_are_trained_again(tmp_path: Path):
    build(tmp_path, 100)  # 1,000 passages
    fresh = clustered(7, 4)
    next_generation(tmp_path, IVF, fresh)
    assert sorted(p.name for p in tmp_path.glob("ivf-*")) == ["ivf-2.npy", "ivf-2.npz"]
    with LocalStore.open(tmp_path, IVF) as store:
        lists = store.search(fresh[2], 1) and store._graph
        assert isinstance(lists, ivf.Lists)
        assert len(lists.tail) == 4 and lists.trained_on == 1000  # same cells, d0 left out
        assert len(lists.rows) == 1000 - 10
        assert store.search(fresh[2], 1)[0].passage.doc_id == "fresh"  # found in the tail
        assert all(h.passage.doc_id != "d0" for h in store.search(fresh[0], 50))
    with LocalStore.open_for_write(tmp_path, INFO, IVF) as store:  # grow past RETRAIN_SHARE
        for d in range(12):
            store.put_document(record(f"new{d}", 10), passages(d, 10), clustered(500 + d, 10))
        store.commit()
        store.refresh_derived()
    with LocalStore.open(tmp_path, IVF) as store:
        store.search(fresh[0], 1)
        assert len(store._graph.tail) == 0 and store._graph.trained_on == 1000 - 10 + 4 + 120


def test_a_killed_writer_leaves_exact_search_and_the_next_writer_builds(tmp_path: Path):
    build(tmp_path, 60)
    (tmp_path / "ivf-1.npz").unlink()  # as if the writer died between the two files
    queries = clustered(5, 20)
    with LocalStore.open(tmp_path, EXACT) as exact:
        truth = top_ids(exact, queries)
    with LocalStore.open(tmp_path, IVF) as reader:
        assert top_ids(reader, queries) == truth and reader._graph is None
    with LocalStore.open_for_write(tmp_path, INFO, IVF) as writer:
        writer.refresh_derived()
    assert (tmp_path / "ivf-1.npz").is_file() and not list(tmp_path.glob(".tmp-*"))
    with LocalStore.open(tmp_path, IVF) as reader:
        assert recall(top_ids(reader, queries), truth) >= 0.98
        assert isinstance(reader._graph, ivf.Lists)


def test_a_topic_in_a_haystack_of_unrelated_vectors(tmp_path: Path):
    """Most rows unrelated to any question (random unit vectors), one topic of 300 passages:
    the cells that hold the topic point at it, so probing a few finds all of its neighbours."""
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(6_000, INFO.dim)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    centre = rng.normal(size=INFO.dim)
    topic = centre + 0.9 * rng.normal(size=(300, INFO.dim)) * np.linalg.norm(centre) / 20
    topic = (topic / np.linalg.norm(topic, axis=1, keepdims=True)).astype(np.float32)
    with LocalStore.open_for_write(tmp_path, INFO, IVF) as store:
        for d in range(60):
            store.put_document(
                record(f"n{d}", 100), passages(d, 100), noise[d * 100 : d * 100 + 100]
            )
        for d in range(30):
            store.put_document(record(f"t{d}", 10), passages(d, 10), topic[d * 10 : d * 10 + 10])
        store.commit()
        store.refresh_derived()
    queries = topic[::15] + 0.05 * rng.normal(size=(20, INFO.dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, IVF) as approx:
        assert recall(top_ids(approx, queries), top_ids(exact, queries)) >= 0.98


def test_bad_probe_and_list_settings_are_refused():
    with pytest.raises(ValueError, match="ivf_probes"):
        StoreSettings(ann="ivf", ivf_probes=0)
    with pytest.raises(ValueError, match="ann"):
        StoreSettings(ann="faiss")
