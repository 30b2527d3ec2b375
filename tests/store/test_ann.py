"""The local store's HNSW graph: recall against exact search, kept per generation, updated in
place, rebuilt when missing, never used when stale."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lastword.embed.protocol import normalise
from lastword.settings import StoreSettings
from lastword.store import ann
from lastword.store.local import LocalStore
from tests.store.contract import INFO, passages, record

ANN = StoreSettings(ann_min_passages=500)
EXACT = StoreSettings(ann_min_passages=10**9)


def clustered(seed: int, n: int) -> np.ndarray:
    """Vectors around 40 centres: neighbours that matter, like real embeddings."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, INFO.dim))
    points = centres[rng.integers(0, 40, size=n)] + 0.6 * rng.normal(size=(n, INFO.dim))
    return normalise(points).astype(np.float32)


def build(
    directory: Path,
    documents: int,
    per_doc: int = 10,
    seed: int = 0,
    settings: StoreSettings = ANN,
) -> None:
    """``documents`` documents of ``per_doc`` clustered vectors, committed and derived."""
    with LocalStore.open_for_write(directory, INFO, settings) as store:
        for d in range(documents):
            store.put_document(
                record(f"d{d}", per_doc),
                passages(d, per_doc),
                clustered(seed * 10_000 + d, per_doc),
            )
        store.commit()
        store.refresh_derived()


def top_ids(store: LocalStore, queries: np.ndarray, **filters) -> list[list[int]]:
    return [[h.passage.passage_id for h in store.search(q, 8, **filters)] for q in queries]


def recall(found: list[list[int]], truth: list[list[int]]) -> float:
    return float(
        np.mean([len(set(a) & set(b)) / len(b) for a, b in zip(found, truth, strict=True)])
    )


def test_graph_recall_and_exact_scores(tmp_path: Path):
    build(tmp_path, 300)  # 3,000 passages
    graphs = list(tmp_path.glob("hnsw-*.bin"))
    assert [g.name for g in graphs] == ["hnsw-1.bin"]
    queries = clustered(99, 100)
    with LocalStore.open(tmp_path, EXACT) as exact, LocalStore.open(tmp_path, ANN) as approx:
        truth = top_ids(exact, queries)
        found = top_ids(approx, queries)
        assert approx._graph is not None and exact._graph is None
        assert recall(found, truth) >= 0.98
        # candidates are re-scored exactly: the scores are the true cosines
        hit = approx.search(queries[0], 1)[0]
        assert hit.score == exact.search(queries[0], 1)[0].score
        assert_filters_hold(approx, exact, queries)


def assert_filters_hold(approx: LocalStore, exact: LocalStore, queries: np.ndarray) -> None:
    """Kinds and left-out documents on top of an approximate structure: the same recall as
    without them, and a kind too rare for its candidates falls back to exact, never short."""
    kinds = {"abstract", "caption"}
    assert (
        recall(top_ids(approx, queries, kinds=kinds), top_ids(exact, queries, kinds=kinds)) >= 0.98
    )
    excluded = {f"d{d}" for d in range(0, 300, 3)}
    filtered = top_ids(approx, queries, exclude_doc_ids=excluded)
    assert recall(filtered, top_ids(exact, queries, exclude_doc_ids=excluded)) >= 0.98
    assert not any(h.passage.doc_id in excluded for h in approx.search(queries[0], 8, excluded))
    rare = approx.search(queries[0], 8, kinds={"references"}, exclude_doc_ids=excluded)
    assert len(rare) == 8 and {h.passage.kind for h in rare} == {"references"}


def next_generation(directory: Path, settings: StoreSettings, fresh: np.ndarray) -> None:
    """The store's second generation: document "fresh" (the ``fresh`` vectors) added and
    "d0" removed, committed and derived, as every approximate index must follow."""
    with LocalStore.open_for_write(directory, INFO, settings) as store:
        store.put_document(record("fresh", len(fresh)), passages(1, len(fresh)), fresh)
        store.remove_document("d0")
        store.commit()
        store.refresh_derived()


def test_graph_follows_each_generation(tmp_path: Path):
    build(tmp_path, 60)  # 600 passages: past the threshold of 500
    new = clustered(7, 4)
    next_generation(tmp_path, ANN, new)
    assert [g.name for g in tmp_path.glob("hnsw-*.bin")] == ["hnsw-2.bin"]  # updated, old gone
    with LocalStore.open(tmp_path, ANN) as store:
        assert store.search(new[2], 1)[0].passage.doc_id == "fresh"
        assert all(h.passage.doc_id != "d0" for h in store.search(new[0], 50))
        assert store._graph.get_current_count() == 600 + 4  # added in place, d0 marked deleted


def test_missing_graph_means_exact_search_until_a_writer_rebuilds_it(tmp_path: Path):
    build(tmp_path, 60)
    (tmp_path / "hnsw-1.bin").unlink()  # as if the writer died before writing it
    queries = clustered(5, 20)
    with LocalStore.open(tmp_path, EXACT) as exact:
        truth = top_ids(exact, queries)
    with LocalStore.open(tmp_path, ANN) as reader:
        assert top_ids(reader, queries) == truth and reader._graph is None
    with LocalStore.open_for_write(tmp_path, INFO, ANN) as writer:
        writer.refresh_derived()
    assert (tmp_path / "hnsw-1.bin").is_file() and not list(tmp_path.glob(".tmp-*"))
    with LocalStore.open(tmp_path, ANN) as reader:
        assert recall(top_ids(reader, queries), truth) >= 0.98 and reader._graph is not None


def test_a_stale_graph_is_never_used(tmp_path: Path):
    build(tmp_path, 60)
    with LocalStore.open(tmp_path, ANN) as reader:
        reader.search(clustered(1, 1)[0], 8)
        assert reader._graph_generation == 1
        # another process commits a change but dies before refreshing the derived files
        with LocalStore.open_for_write(tmp_path, INFO, ANN) as writer:
            writer.put_document(record("late", 2), passages(2, 2), clustered(8, 2))
            writer.commit()
        hit = reader.search(clustered(8, 2)[1], 1)[0]
        assert hit.passage.doc_id == "late"  # the reader rebuilt the matrix, searched exactly
        assert reader._graph_generation == 2 and reader._graph is None


def test_below_the_threshold_no_graph(tmp_path: Path):
    with LocalStore.open_for_write(tmp_path, INFO, ANN) as store:
        store.put_document(record("a", 5), passages(1, 5), clustered(1, 5))
        store.commit()
        store.refresh_derived()
    assert not list(tmp_path.glob("hnsw-*"))


def _rows_by_search(ids: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The rows of the labels ``ids`` holds, by a binary search per label (the general way)."""
    at = np.searchsorted(ids, labels)
    found = at < len(ids)
    found[found] = ids[at[found]] == labels[found]
    return np.sort(at[found])


def test_rows_of_ids_without_gaps_and_with_them():
    """Contiguous ids map by arithmetic, gapped ones by search: the same rows either way, ids
    outside the matrix (removed passages, -1) left out, ascending."""
    rng = np.random.default_rng(3)
    contiguous = np.arange(7, 7 + 1_000, dtype=np.int64)
    gapped = np.sort(rng.choice(5_000, size=1_000, replace=False)).astype(np.int64)
    for ids in (contiguous, gapped, contiguous[:1], np.empty(0, dtype=np.int64)):
        labels = np.concatenate(
            [rng.choice(ids, size=min(40, len(ids)), replace=False), [-1, 6, 99_999, 1_007]]
        ).astype(np.int64)
        rows = ann.rows_of(ids, labels)
        np.testing.assert_array_equal(rows, _rows_by_search(ids, labels))
        assert np.all(np.diff(rows) > 0)
        assert set(ids[rows].tolist()) == set(labels.tolist()) & set(ids.tolist())


def test_rescore_ranks_candidates_exactly_whichever_way_rows_are_found():
    """The best k of the candidates by the exact product, ties by row, with or without gaps."""
    matrix = clustered(5, 300)
    query = matrix[17]
    for ids in (np.arange(1, 301, dtype=np.int64), np.arange(1, 601, 2, dtype=np.int64)):
        labels = ids[[250, 17, 3, 99, 18, 200, 5, 42]]
        rows, scores = ann.rescore(labels, matrix, ids, query, 4)
        expected = np.sort([250, 17, 3, 99, 18, 200, 5, 42])
        best = expected[np.argsort(-(matrix[expected] @ query), kind="stable")[:4]]
        np.testing.assert_array_equal(rows, best)
        np.testing.assert_array_equal(scores, matrix[best] @ query)
        assert rows[0] == 17
        assert ann.rescore(labels[:3], matrix, ids, query, 4) is None  # fewer than k
