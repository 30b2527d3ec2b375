"""Approximate nearest neighbours for the local store: an HNSW graph (hnswlib) beside the matrix.

    DIR/hnsw-<gen>.bin   the graph over the matrix of generation <gen>; labels are passage ids

The graph is derived like the matrix: built by a writer after it commits (``refresh_derived``),
written under a temporary name and moved into place whole, tagged with the generation it
describes, so a reader never uses a graph of another corpus. A writer that finds the previous
generation's graph updates it (new passages added, removed ones marked deleted) instead of
building from nothing; past ``REBUILD_DELETED`` deleted entries it builds afresh.

Search fetches ``[store] ann_candidates`` neighbours from the graph and the caller re-scores
them exactly against the matrix, so scores are the exact cosines of the passages returned.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lastword.errors import ConfigError
from lastword.store import pages
from lastword.store.files import newest_below, written_whole

GRAPH_PATTERN = re.compile(r"^hnsw-(\d+)\.bin$")
#: rebuild the graph from nothing once this share of its entries are deleted passages
REBUILD_DELETED = 0.2


def _hnswlib():
    try:
        import hnswlib
    except ImportError:  # pragma: no cover - hnswlib is a core dependency
        raise ConfigError(
            "approximate search needs hnswlib: pip install hnswlib "
            "(or raise [store] ann_min_passages above the corpus size)"
        ) from None
    return hnswlib


def graph_path(directory: Path, generation: int) -> Path:
    return directory / f"hnsw-{generation}.bin"


def previous_graph(directory: Path, generation: int) -> tuple[int, Path] | None:
    """The newest graph of an older generation still on disk, if any."""
    found = newest_below(directory, GRAPH_PATTERN, generation)
    return None if found is None else (found, graph_path(directory, found))


def build_graph(
    matrix: np.ndarray,
    ids: np.ndarray,
    *,
    m: int,
    ef_construction: int,
    previous: tuple[Path, np.ndarray] | None = None,
):
    """A graph over ``matrix`` labelled by ``ids``; updated from ``previous`` when it is close."""
    hnswlib = _hnswlib()
    dim = matrix.shape[1]
    if previous is not None:
        path, old_ids = previous
        graph = hnswlib.Index(space="ip", dim=dim)
        try:
            graph.load_index(str(path), max_elements=max(len(ids), 1))
        except RuntimeError:
            graph = None
        if graph is not None:
            removed = np.setdiff1d(old_ids, ids, assume_unique=True)
            added_rows = np.nonzero(~np.isin(ids, old_ids, assume_unique=True))[0]
            total_after = graph.get_current_count() + len(added_rows)
            deleted_after = total_after - len(ids)  # every entry that is not a live passage
            if deleted_after <= REBUILD_DELETED * max(total_after, 1):
                for label in removed:
                    with contextlib.suppress(RuntimeError):
                        graph.mark_deleted(int(label))
                if len(added_rows):
                    graph.resize_index(total_after)
                    graph.add_items(np.asarray(matrix[added_rows]), ids[added_rows])
                return graph
    graph = hnswlib.Index(space="ip", dim=dim)
    graph.init_index(max_elements=max(len(ids), 1), M=m, ef_construction=ef_construction)
    step = 100_000
    for start in range(0, len(ids), step):
        graph.add_items(np.asarray(matrix[start : start + step]), ids[start : start + step])
    return graph


def save_graph(graph, path: Path) -> None:
    """Write the graph to ``path`` whole or not at all."""
    with written_whole(path) as tmp:
        graph.save_index(str(tmp))


def load_graph(path: Path, dim: int, ef_search: int):
    """The graph at ``path``, or None when it is missing or unreadable (search exactly then)."""
    hnswlib = _hnswlib()
    if not path.is_file():
        return None
    graph = hnswlib.Index(space="ip", dim=dim)
    before = pages.anonymous_mappings()
    try:
        graph.load_index(str(path))
    except RuntimeError:
        return None
    pages.new_mappings_on_huge_pages(before)  # its rows and links, read at random
    graph.set_ef(ef_search)
    graph.set_num_threads(1)
    return graph


def search(
    graph,
    matrix: np.ndarray,
    ids: np.ndarray,
    query: np.ndarray,
    k: int,
    *,
    candidates: int,
    keep: Callable[[np.ndarray], np.ndarray] | None = None,
    walk: Callable[..., np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Matrix rows and exact scores of the best k among the graph's candidates, best first.

    ``walk(graph, query, n)`` gives the candidates' passage ids (-1 matches none): hnswlib's
    (``neighbours``) by default, or faiss's over codes of the rows (``graph_codes``).
    ``keep(rows)`` filters the candidates (exclusions, kinds); when it leaves fewer than k the
    true answer may lie outside them, and None tells the caller to search exactly instead.
    """
    labels = (walk or neighbours)(graph, query, max(candidates, k))
    return rescore(labels, matrix, ids, query, k, keep)


def rescore(
    labels: np.ndarray,
    matrix: np.ndarray,
    ids: np.ndarray,
    query: np.ndarray,
    k: int,
    keep: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The best k of an index's candidate passage ids, scored exactly against the matrix.

    Ids no longer in the matrix are skipped; ``keep(rows)`` filters the rest. Fewer than k
    left means the true answer may lie outside them: None tells the caller to search exactly.
    Equal scores come back by row, as the whole product ranks them.
    """
    rows = rows_of(ids, labels)
    if keep is not None:
        rows = rows[keep(rows)]
    if len(rows) < min(k, len(ids)):
        return None
    scores = np.asarray(matrix[rows]) @ query
    order = np.argsort(-scores, kind="stable")[:k]
    return rows[order], scores[order]


def rows_of(ids: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The matrix rows (ascending) of those passage ids in ``labels`` that ``ids`` (the
    matrix's ids, ascending and unique) holds; each id once (an index gives no repeats).

    Ids without gaps (a store nothing was removed from: the bench's 1M) are a row number plus
    the first id: no search through the 8 MB of ids at random places, which cost ~0.04 ms of
    a 1M search (docs/scale.md, stop 24, second round). Otherwise a binary search per label."""
    n = len(ids)
    if n and int(ids[-1]) - int(ids[0]) == n - 1:  # ascending and unique: exactly first..last
        rows = np.sort(labels) - ids[0]
        if len(rows) and (rows[0] < 0 or rows[-1] >= n):  # -1 (none found), or not this matrix's
            rows = rows[(rows >= 0) & (rows < n)]
        return rows
    labels = np.sort(labels)  # sorted keys: searchsorted starts each search at the last one
    rows = np.searchsorted(ids, labels)
    valid = rows < n
    valid[valid] = ids[rows[valid]] == labels[valid]
    return rows[valid]


def neighbours(graph, query: np.ndarray, n: int) -> np.ndarray:
    """Passage ids of (about) the ``n`` nearest neighbours of ``query`` in ``graph``."""
    n = min(n, graph.get_current_count())
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    graph.set_ef(max(graph.ef, n))
    try:
        labels, _ = graph.knn_query(query.reshape(1, -1), k=n)
    except RuntimeError:  # fewer live elements than n (many deleted): ask for fewer
        labels, _ = graph.knn_query(query.reshape(1, -1), k=max(1, n // 2))
    return labels[0].astype(np.int64)


def neighbours_within(graph, query: np.ndarray, n: int, admit) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Passage ids of (about) the ``n`` nearest neighbours of ``query`` among the labels
    ``admit(label)`` accepts: hnswlib's filtered search, which walks past the rest."""
    n = min(n, graph.get_current_count())
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    graph.set_ef(max(graph.ef, n))
    try:
        labels, _ = graph.knn_query(query.reshape(1, -1), k=n, filter=admit)
    except RuntimeError:  # the walk found fewer than n: the caller searches exactly
        return np.empty(0, dtype=np.int64)
    return labels[0].astype(np.int64)
