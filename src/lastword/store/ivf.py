"""Approximate nearest neighbours for the local store: inverted lists (IVF) beside the matrix.

    DIR/ivf-<gen>.npy   the vectors of the matrix of generation <gen>, sorted by list
    DIR/ivf-<gen>.npz   the lists' centroids, the matrix row of each sorted vector, the offsets

Spherical k-means cuts the corpus into ``lists`` cells; a query scores the centroids, then
scans the vectors of its ``probes`` best cells (contiguous slices of the sorted copy, so a scan
is a few small matrix products, no gather), and the scores it returns are the exact cosines.

Why lists and not only a graph: a graph search walks from an entry point toward the query, and
finds nothing to climb on when most of the corpus is unrelated to the question (measured: a
1M-row haystack of random vectors around 4,000 real passages, recall@8 0.71-0.83 with HNSW
M=16). The centroids of the cells that hold a topic point at that topic wherever it sits.

Growth: passages added after the lists were trained are not assigned to stale cells; they
stay in a *tail* that every search scans exactly, and the lists are trained afresh over the
whole corpus once the tail passes ``retrain_share`` of it (or removals shrink the corpus by as
much). Like the graph, the files are derived: written under temporary names after a commit,
the ``.npz`` last, tagged with the generation, and a reader that finds none searches exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lastword.store.files import newest_below, written_whole

FILE_PATTERN = re.compile(r"^ivf-(\d+)\.npz$")
#: train the lists afresh once the untrained tail (or the passages removed) passes this share
RETRAIN_SHARE = 0.1
#: k-means: training sample per list, Lloyd iterations, rows scored per block
SAMPLE_PER_LIST = 48
ITERATIONS = 8
BLOCK = 8192


@dataclass
class Lists:
    """One generation's inverted lists, ready to search."""

    centroids: np.ndarray  # (lists, dim) unit rows
    vectors: np.ndarray  # (indexed, dim) the matrix rows sorted by list (memory-mapped)
    rows: np.ndarray  # (indexed,) matrix row of each sorted vector
    offsets: np.ndarray  # (lists + 1,) where each list starts in ``vectors``
    tail: np.ndarray  # matrix rows in no list (added since training), scanned exactly
    tail_vectors: np.ndarray
    trained_on: int  # corpus size when the centroids were trained


def default_lists(passages: int) -> int:
    """About 2·√N cells: ~500 vectors a cell at 1M, so a probe is a 0.2 MFLOP slice."""
    return max(1, min(65_536, round(2 * passages**0.5)))


def paths(directory: Path, generation: int) -> tuple[Path, Path]:
    return directory / f"ivf-{generation}.npy", directory / f"ivf-{generation}.npz"


def previous(directory: Path, generation: int) -> int | None:
    """The newest older generation whose lists are still on disk, if any."""
    return newest_below(directory, FILE_PATTERN, generation)


# --------------------------------------------------------------------------- training
def _normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return rows / norms


def assign(matrix: np.ndarray, centroids: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The best cell of each row of ``matrix`` (or of ``rows`` of it), block by block."""
    count = len(matrix) if rows is None else len(rows)
    out = np.empty(count, dtype=np.int32)
    for start in range(0, count, BLOCK):
        stop = min(count, start + BLOCK)
        block = matrix[start:stop] if rows is None else matrix[rows[start:stop]]
        out[start:stop] = np.argmax(np.asarray(block, dtype=np.float32) @ centroids.T, axis=1)
    return out


def train(matrix: np.ndarray, lists: int, *, seed: int = 0) -> np.ndarray:
    """Spherical k-means centroids (unit rows) from a sample of ``matrix``."""
    rng = np.random.default_rng(seed)
    n = len(matrix)
    lists = max(1, min(lists, n))
    take = min(n, lists * SAMPLE_PER_LIST)
    sample_rows = np.sort(rng.choice(n, size=take, replace=False)) if take < n else np.arange(n)
    sample = np.asarray(matrix[sample_rows], dtype=np.float32)
    centroids = sample[rng.choice(len(sample), size=lists, replace=False)].copy()
    for _ in range(ITERATIONS):
        labels = assign(sample, centroids)
        sums = np.zeros_like(centroids)
        _add_by_label(sums, labels, sample)
        counts = np.bincount(labels, minlength=lists)
        empty = np.nonzero(counts == 0)[0]
        if len(empty):  # reseed an empty cell on a random sample row
            sums[empty] = sample[rng.choice(len(sample), size=len(empty), replace=False)]
        centroids = _normalise(sums).astype(np.float32)
    return centroids


def _add_by_label(sums: np.ndarray, labels: np.ndarray, sample: np.ndarray) -> None:
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
    sums[sorted_labels[starts]] = np.add.reduceat(sample[order], starts, axis=0)


# --------------------------------------------------------------------------- building
def build(
    directory: Path,
    generation: int,
    matrix: np.ndarray,
    ids: np.ndarray,
    *,
    lists: int,
    old: tuple[int, np.ndarray] | None = None,
) -> None:
    """Write the lists of ``generation``, keeping the cells of ``old`` (generation, its ids)
    when the corpus has not moved past ``RETRAIN_SHARE`` since they were trained."""
    n = len(ids)
    kept = _carry_over(directory, old, ids) if old is not None else None
    if kept is not None:
        centroids, trained_on, rows, labels = kept
    else:
        centroids = train(matrix, lists or default_lists(n))
        trained_on = n
        rows = np.arange(n, dtype=np.int64)
        labels = assign(matrix, centroids)
    order = np.argsort(labels, kind="stable")
    rows, labels = rows[order], labels[order]
    offsets = np.searchsorted(labels, np.arange(len(centroids) + 1)).astype(np.int64)
    vectors_path, lists_path = paths(directory, generation)
    _write_sorted(vectors_path, matrix, rows)
    with written_whole(lists_path) as tmp, open(tmp, "wb") as handle:
        np.savez(
            handle,
            centroids=centroids,
            rows=rows,
            offsets=offsets,
            trained_on=np.int64(trained_on),
            passages=np.int64(n),
        )


def _carry_over(directory: Path, old: tuple[int, np.ndarray], ids: np.ndarray):
    """(centroids, trained_on, rows, labels) of the old cells mapped onto the new matrix rows,
    or None when the corpus has moved too far (or the old files are unreadable)."""
    generation, old_ids = old
    try:
        with np.load(paths(directory, generation)[1]) as saved:
            centroids, old_rows, offsets = saved["centroids"], saved["rows"], saved["offsets"]
            trained_on = int(saved["trained_on"])
    except (OSError, ValueError, KeyError):
        return None
    labels = np.repeat(np.arange(len(centroids), dtype=np.int32), np.diff(offsets))
    listed_ids = old_ids[old_rows]
    new_rows = np.searchsorted(ids, listed_ids)
    live = new_rows < len(ids)
    live[live] = ids[new_rows[live]] == listed_ids[live]
    tail = len(ids) - int(live.sum())
    removed = trained_on - int(live.sum())
    if tail > RETRAIN_SHARE * len(ids) or removed > RETRAIN_SHARE * trained_on:
        return None
    return centroids, trained_on, new_rows[live].astype(np.int64), labels[live]


def _write_sorted(path: Path, matrix: np.ndarray, rows: np.ndarray) -> None:
    """The matrix rows ``rows`` in that order, as one .npy, whole or not at all."""
    with written_whole(path) as tmp:
        out = np.lib.format.open_memmap(
            tmp, mode="w+", dtype=np.float32, shape=(len(rows), matrix.shape[1])
        )
        for start in range(0, len(rows), 65_536):
            chunk = rows[start : start + 65_536]
            out[start : start + len(chunk)] = matrix[chunk]
        out.flush()
        del out


# --------------------------------------------------------------------------- reading
def load(directory: Path, generation: int, matrix: np.ndarray) -> Lists | None:
    """The lists of ``generation``, or None when missing or unreadable (search exactly then)."""
    vectors_path, lists_path = paths(directory, generation)
    try:
        with np.load(lists_path) as saved:
            centroids, rows, offsets = saved["centroids"], saved["rows"], saved["offsets"]
            trained_on, passages = int(saved["trained_on"]), int(saved["passages"])
        vectors = np.load(vectors_path, mmap_mode="r")
    except (OSError, ValueError, KeyError):
        return None
    if passages != len(matrix) or len(vectors) != len(rows) or offsets[-1] != len(rows):
        return None
    listed = np.zeros(len(matrix), dtype=bool)
    listed[rows] = True
    tail = np.flatnonzero(~listed)
    return Lists(
        centroids=centroids,
        vectors=vectors,
        rows=rows,
        offsets=offsets,
        tail=tail,
        tail_vectors=np.asarray(matrix[tail], dtype=np.float32),
        trained_on=trained_on,
    )


def search(
    found: Lists,
    query: np.ndarray,
    k: int,
    *,
    probes: int,
    keep: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Matrix rows and exact scores of the best k in the ``probes`` nearest cells and the tail.

    ``keep(rows)`` filters (exclusions, kinds); when fewer than k survive, None tells the
    caller to search exactly instead.
    """
    cells = found.centroids @ query
    probes = min(probes, len(cells))
    if probes < len(cells):
        best = np.argpartition(-cells, probes - 1)[:probes]
    else:
        best = np.arange(len(cells))
    offsets, vectors = found.offsets, found.vectors
    scores, rows = [], []
    for cell in best:
        start, stop = offsets[cell], offsets[cell + 1]
        if stop > start:
            scores.append(vectors[start:stop] @ query)
            rows.append(found.rows[start:stop])
    if len(found.tail):
        scores.append(found.tail_vectors @ query)
        rows.append(found.tail)
    if not rows:
        return None
    all_scores, all_rows = np.concatenate(scores), np.concatenate(rows)
    if keep is not None:
        mask = keep(all_rows)
        all_scores, all_rows = all_scores[mask], all_rows[mask]
    if len(all_rows) < k:
        return None
    top = np.argpartition(-all_scores, k - 1)[:k] if k < len(all_rows) else np.arange(len(all_rows))
    top = top[np.argsort(-all_scores[top], kind="stable")]
    return all_rows[top], all_scores[top]
