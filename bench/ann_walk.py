"""A graph walk that starts near the question: HNSW's bottom layer, entered from IVF cells.

A bench-only prototype (``bench/ann_designs.py --walk``), kept out of the store: at 1M it
reached recall@8 0.97 at best against the 0.98 target, below the faiss codes (docs/scale.md).

Why: hnswlib enters its graph at one fixed node and descends greedily through the upper
layers. When most of the corpus is unrelated to the question (measured: 1M random vectors
around 3,358 real PubMedQA passages), that descent lands far from the question's passages and
the beam at the bottom has nothing to climb on: recall@8 0.79 at ef 256 with M = 16. The
bottom layer itself is fine: the real passages are linked to one another there, so a walk
that *starts* among them finds them. The inverted lists (``store/ivf.py``) know where to
start: the question's nearest one or two passages (rank-1 cosine median 0.78) sit in its best
cells.

So a search here:

1. scores the IVF centroids and scans the ``probes`` best cells exactly (their rows become the
   walk's first pool, already scored);
2. walks hnswlib's bottom layer from that pool, a batch at a time: the ``expand`` best
   unexpanded nodes of the pool give up their neighbours, those not seen yet are scored, and
   the pool keeps its best ``ef``; it stops when every node in the pool has been expanded
   (the rule of HNSW's own search, done in batches so numpy does the work);
3. returns the passage ids of the best ``candidates``, which the caller re-scores exactly
   against the matrix (``ann.search``), as for hnswlib's own answer.

The graph is read where it lies: hnswlib's saved file (``hnsw-<gen>.bin``) is memory-mapped,
its bottom layer seen as arrays (link counts, links, vectors, labels) without loading it into
a second copy. The file layout is hnswlib 0.8's (``HierarchicalNSW::saveIndex``), checked at
load: a file that does not match it gives None (and the caller uses hnswlib's own search).
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lastword.store import ivf

#: hnswlib 0.8's header: offsetLevel0, max_elements, cur_element_count, size_data_per_element,
#: label_offset, offsetData (size_t), maxlevel (int), enterpoint_node (uint32), maxM, maxM0, M
#: (size_t), mult (double), ef_construction (size_t)
_HEADER = struct.Struct("<6QiI3QdQ")
#: hnswlib marks a deleted element in the third byte of its bottom-layer link count
_DELETE_MARK = 0x01


@dataclass
class Level0:
    """hnswlib's bottom layer, memory-mapped: per internal id, its links, vector and label."""

    counts: np.ndarray  # (n,) uint16: links in use
    links: np.ndarray  # (n, maxM0) uint32: internal ids
    vectors: np.ndarray  # (n, dim) float32 (as inserted)
    labels: np.ndarray  # (n,) passage ids
    deleted: np.ndarray  # (n,) bool
    internal_of_row: np.ndarray  # (matrix rows,) internal id of each matrix row, -1 if none
    row_of_internal: np.ndarray  # (n,) matrix row of each internal id, -1 if none

    @property
    def size(self) -> int:
        return len(self.labels)


def load_level0(path: Path, dim: int, ids: np.ndarray) -> Level0 | None:
    """The bottom layer of the hnswlib graph saved at ``path``, labelled by passage ids that
    ``ids`` (the matrix's, ascending) maps to rows; None when the file is not one we can read."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEADER.size)
        (
            offset0,
            _max_elements,
            count,
            per_element,
            label_offset,
            data_offset,
            _maxlevel,
            _entry,
            _max_m,
            max_m0,
            _m,
            _mult,
            _ef_construction,
        ) = _HEADER.unpack(head)
    except (OSError, struct.error):
        return None
    links_end = 4 + 4 * max_m0
    if (
        offset0 != 0
        or data_offset != links_end
        or label_offset != data_offset + 4 * dim
        or per_element != label_offset + 8
        or path.stat().st_size < _HEADER.size + count * per_element
    ):
        return None
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=_HEADER.size, shape=(count, per_element))
    counts = raw[:, 0:2].view(np.uint16)[:, 0]
    deleted = (raw[:, 2] & _DELETE_MARK).astype(bool)
    links = raw[:, 4:links_end].view(np.uint32)
    vectors = raw[:, data_offset:label_offset].view(np.float32)
    labels = np.array(raw[:, label_offset:per_element]).view(np.uint64)[:, 0].astype(np.int64)
    rows = np.searchsorted(ids, labels)
    known = rows < len(ids)
    known[known] = ids[rows[known]] == labels[known]
    row_of_internal = np.where(known, rows, -1)
    internal_of_row = np.full(len(ids), -1, dtype=np.int64)
    live = known & ~deleted
    internal_of_row[rows[live]] = np.nonzero(live)[0]
    return Level0(
        counts=counts,
        links=links,
        vectors=vectors,
        labels=labels,
        deleted=deleted | ~known,
        internal_of_row=internal_of_row,
        row_of_internal=row_of_internal,
    )


class _Seen(threading.local):
    """Per thread: a stamp per node, so 'seen in this walk' needs no clearing between walks."""

    stamps: np.ndarray | None = None
    tick: int = 0

    def next(self, size: int) -> tuple[np.ndarray, int]:
        if self.stamps is None or len(self.stamps) != size or self.tick >= 2**32 - 2:
            self.stamps = np.zeros(size, dtype=np.uint32)
            self.tick = 0
        self.tick += 1
        return self.stamps, self.tick


_seen = _Seen()


def seeds(found: ivf.Lists, query: np.ndarray, probes: int) -> tuple[np.ndarray, np.ndarray]:
    """(matrix rows, exact scores) of every row in the ``probes`` best cells and the tail."""
    cells = found.centroids @ query
    probes = min(probes, len(cells))
    best = np.argpartition(-cells, probes - 1)[:probes] if probes < len(cells) else range(probes)
    scores, rows = [], []
    for cell in best:
        start, stop = found.offsets[cell], found.offsets[cell + 1]
        if stop > start:
            scores.append(found.vectors[start:stop] @ query)
            rows.append(found.rows[start:stop])
    if len(found.tail):
        scores.append(found.tail_vectors @ query)
        rows.append(found.tail)
    if not rows:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    return np.concatenate(rows), np.concatenate(scores)


def walk(
    level0: Level0,
    query: np.ndarray,
    start_rows: np.ndarray,
    start_scores: np.ndarray,
    *,
    ef: int,
    expand: int = 8,
    candidates: int = 64,
) -> tuple[np.ndarray, int]:
    """(matrix rows of the best ``candidates`` found, nodes scored) by a batched beam search
    over the bottom layer from the pool ``start_rows`` (already scored: ``start_scores``)."""
    stamps, tick = _seen.next(level0.size)
    nodes = level0.internal_of_row[start_rows]
    usable = nodes >= 0
    nodes, scores = nodes[usable], np.asarray(start_scores[usable], dtype=np.float32)
    stamps[nodes] = tick
    if len(nodes) > ef:
        keep = np.argpartition(-scores, ef - 1)[:ef]
        nodes, scores = nodes[keep], scores[keep]
    opened = np.zeros(len(nodes), dtype=bool)
    scored = 0
    width = level0.links.shape[1]
    slots = np.arange(width)
    while True:
        waiting = np.flatnonzero(~opened)
        if not len(waiting):
            break
        if len(waiting) > expand:
            waiting = waiting[np.argpartition(-scores[waiting], expand - 1)[:expand]]
        opened[waiting] = True
        batch = nodes[waiting]
        linked = level0.links[batch]
        linked = linked[slots < level0.counts[batch][:, None]]
        linked = np.unique(linked)
        fresh = linked[stamps[linked] != tick]
        if not len(fresh):
            continue
        stamps[fresh] = tick
        fresh = fresh.astype(np.int64)
        fresh_scores = level0.vectors[fresh] @ query
        scored += len(fresh)
        nodes = np.concatenate([nodes, fresh])
        scores = np.concatenate([scores, fresh_scores])
        opened = np.concatenate([opened, np.zeros(len(fresh), dtype=bool)])
        if len(nodes) > ef:
            keep = np.argpartition(-scores, ef - 1)[:ef]
            nodes, scores, opened = nodes[keep], scores[keep], opened[keep]
    live = ~level0.deleted[nodes]
    nodes, scores = nodes[live], scores[live]
    if len(nodes) > candidates:
        keep = np.argpartition(-scores, candidates - 1)[:candidates]
        nodes = nodes[keep]
    return level0.row_of_internal[nodes], scored
