"""The local store's HNSW graph searched by faiss over 8-bit codes (``[store] ann_codes``): the
graph read from hnswlib's file is the same graph, the codes are written per generation beside
it, and a reader without them (or with damaged ones) uses the float32 graph."""

from __future__ import annotations

from pathlib import Path

import hnswlib
import numpy as np
import pytest

from lastword.errors import ConfigError
from lastword.settings import StoreSettings
from lastword.store import graph_codes
from lastword.store.local import LocalStore
from tests.store.contract import INFO
from tests.store.test_ann import (
    EXACT,
    assert_filters_hold,
    build,
    clustered,
    next_generation,
    recall,
    top_ids,
)

faiss = pytest.importorskip("faiss")

SQ8 = StoreSettings(ann_min_passages=500, ann_codes="sq8")


def test_the_graph_read_from_hnswlib_is_the_same_graph(tmp_path: Path):
    """With float32 rows faiss's walk over the converted links finds what hnswlib finds."""
    vectors = clustered(3, 4000)
    labels = np.arange(4000, dtype=np.int64) * 7 + 3
    graph = hnswlib.Index(space="ip", dim=INFO.dim)
    graph.init_index(max_elements=4000, M=16, ef_construction=64)
    graph.add_items(vectors, labels)
    graph.mark_deleted(int(labels[11]))
    graph.save_index(str(tmp_path / "g.bin"))
    index = graph_codes.from_hnswlib(tmp_path / "g.bin", codes="flat")
    assert index.ntotal == 4000
    queries = clustered(4, 50)
    graph.set_ef(40)
    coded = graph_codes.CodedGraph(index, 40)
    same = []
    for q in queries:
        theirs, _ = graph.knn_query(q.reshape(1, -1), k=20)
        ours = graph_codes.neighbours(coded, q, 20)
        same.append(len(set(theirs[0].tolist()) & set(ours.tolist())) / 20)
    assert np.mean(same) >= 0.99
    # the deleted element is still walked but never returned as a passage
    found = graph_codes.neighbours(coded, vectors[11], 5)
    assert int(labels[11]) not in found.tolist() and -1 in found.tolist()


@pytest.mark.parametrize("codes", ["sq8", "sq4"])
def test_codes_written_beside_the_graph_and_searched(tmp_path: Path, codes: str):
    settings = SQ8.model_copy(update={"ann_codes": codes})
    build(tmp_path, 300, settings=settings)  # 3,000 passages
    names = sorted(p.name for p in tmp_path.glob("hnsw*"))
    assert names == ["hnsw-1.bin", f"hnsw{codes}-1.faiss"]
    assert not list(tmp_path.glob(".tmp-*"))
    queries = clustered(99, 100)
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, settings) as approx:
        truth = top_ids(exact, queries)
        assert recall(top_ids(approx, queries), truth) >= 0.98
        assert isinstance(approx._graph, graph_codes.CodedGraph)
        hit = approx.search(queries[0], 1)[0]
        assert hit.score == exact.search(queries[0], 1)[0].score  # re-scored exactly
        assert_filters_hold(approx, exact, queries)


def test_codes_follow_each_generation(tmp_path: Path):
    build(tmp_path, 60, settings=SQ8)
    new = clustered(7, 4)
    next_generation(tmp_path, SQ8, new)
    assert sorted(p.name for p in tmp_path.glob("hnsw*")) == ["hnsw-2.bin", "hnswsq8-2.faiss"]
    with LocalStore.open(tmp_path, SQ8) as store:
        assert store.search(new[2], 1)[0].passage.doc_id == "fresh"
        assert all(h.passage.doc_id != "d0" for h in store.search(new[0], 50))
        assert store._graph.ntotal == 600 + 4  # d0's entries stay in the walk, never returned


def test_missing_or_damaged_codes_mean_the_float32_graph(tmp_path: Path):
    build(tmp_path, 60, settings=SQ8)
    codes = tmp_path / "hnswsq8-1.faiss"
    queries = clustered(5, 20)
    with LocalStore.open(tmp_path, EXACT) as exact:
        truth = top_ids(exact, queries)
    codes.write_bytes(b"not a faiss index")
    with LocalStore.open(tmp_path, SQ8) as reader:
        assert recall(top_ids(reader, queries), truth) >= 0.98
        assert isinstance(reader._graph, hnswlib.Index)
    codes.unlink()  # as if the writer died between the graph and its codes
    with LocalStore.open(tmp_path, SQ8) as reader:
        assert top_ids(reader, queries[:1]) == truth[:1]
        assert isinstance(reader._graph, hnswlib.Index)
    with LocalStore.open_for_write(tmp_path, INFO, SQ8) as writer:
        writer.refresh_derived()  # the graph exists: only the codes are written
    assert codes.is_file()
    with LocalStore.open(tmp_path, SQ8) as reader:
        assert recall(top_ids(reader, queries), truth) >= 0.98
        assert isinstance(reader._graph, graph_codes.CodedGraph)


def test_codes_of_a_smaller_corpus_are_not_used(tmp_path: Path):
    build(tmp_path, 60, settings=SQ8)
    assert graph_codes.load(tmp_path / "hnswsq8-1.faiss", 601, 32) is None
    assert graph_codes.load(tmp_path / "hnswsq8-1.faiss", 600, 32) is not None
    assert graph_codes.load(tmp_path / "hnswsq8-9.faiss", 600, 32) is None


def test_not_an_hnswlib_graph(tmp_path: Path):
    (tmp_path / "g.bin").write_bytes(b"\0" * 40)
    with pytest.raises(ValueError, match="short header"):
        graph_codes.from_hnswlib(tmp_path / "g.bin")
    with pytest.raises(ConfigError, match="unknown graph codes"):
        graph_codes.from_hnswlib(tmp_path / "g.bin", codes="sq3")
