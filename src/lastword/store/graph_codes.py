"""The store's hnswlib graph as a faiss HNSW index: the same links, rows held as 8- or 4-bit codes.

    DIR/hnswsq8-<gen>.faiss   (or hnswsq4-) the graph hnsw-<gen>.bin, its rows as codes;
                              its ids are passage ids, -1 for entries hnswlib marked deleted

A search through a 1M graph reads rows and link lists at random addresses: 1,536 bytes a row
in float32 at 384 dimensions. faiss's ``IndexHNSWSQ`` walks an HNSW graph whose rows are
scalar codes (384 bytes a row at 8 bits, 192 at 4). Nothing is built again: the links are
copied from hnswlib's saved graph into faiss's ``HNSW`` arrays, and the rows (hnswlib keeps
its own float32 copy of each) are encoded with codes trained on a sample. The codes only
choose candidates; the caller re-scores them exactly against the matrix. A reader puts the
codes and links on 2 MB pages (``store/pages.py``). Measured at 1M (docs/scale.md, stop 24):
15-20% less CPU a search than hnswlib's walk on the same 2 MB pages at the same recall, and a
quarter of the memory (sq4).

hnswlib's file (``hnswalg.h``, ``saveIndex``): a 96-byte header, then per element a level-0
block of [link count (uint16) and flags, maxM0 links (uint32), the vector (float32 x dim),
the label (uint64)], then per element the byte size of its upper-level lists (uint32) and
those lists, one block of [count, maxM links] per level above 0.
"""

from __future__ import annotations

import functools
import struct
from pathlib import Path

import numpy as np

from lastword.errors import ConfigError, CorpusIndexError
from lastword.store import ann, pages
from lastword.store.faiss_files import faiss_module, read_index
from lastword.store.files import written_whole

HEADER = struct.Struct("<QQQQQQiIQQQdQ")  # hnswlib's saveIndex fields, in order (96 bytes)
#: rows sampled to train the 8-bit codes' per-dimension ranges
TRAIN_SAMPLE = 100_000
#: faiss's row formats: float32, scalar codes (16, 8, 6 or 4 bits a dimension) or product codes
SCALAR = {"fp16": "QT_fp16", "sq8": "QT_8bit", "sq6": "QT_6bit", "sq4": "QT_4bit"}
CODES = ("flat", *SCALAR, "pq48", "pq96", "pq192")


def _faiss():
    return faiss_module("ann_codes", 'or set ann_codes = "float32"')


class Graph:
    """The arrays of a saved hnswlib graph, read without loading it into hnswlib."""

    def __init__(self, path: Path):
        with path.open("rb") as f:
            head = f.read(HEADER.size)
        if len(head) < HEADER.size:
            raise ValueError(f"{path}: not an hnswlib graph (short header)")
        (offset0, _max, n, per_element, label_at, data_at, max_level, entry, max_m, max_m0) = (
            HEADER.unpack(head)[:10]
        )
        if offset0 != 0 or per_element != label_at + 8 or data_at != 4 + 4 * max_m0:
            raise ValueError(f"{path}: not an hnswlib graph this reader knows")
        self.n, self.max_level, self.entry, self.max_m, self.max_m0 = (
            n,
            max_level,
            entry,
            max_m,
            max_m0,
        )
        self.dim = (label_at - data_at) // 4
        shape = (n, per_element)
        blocks = np.memmap(path, dtype=np.uint8, mode="r", offset=HEADER.size, shape=shape)
        self.blocks = blocks
        head0 = blocks[:, :4].copy().view(np.uint32).ravel()
        self.count0 = (head0 & 0xFFFF).astype(np.int64)
        self.deleted = ((head0 >> 16) & 0xFF).astype(bool)
        self.links0 = blocks[:, 4:data_at]  # uint8 view; .view(uint32) per slice (strided)
        self.data_at, self.label_at = data_at, label_at
        self.labels = blocks[:, label_at : label_at + 8].copy().view(np.uint64).ravel()
        # upper levels: one size per element, then that many bytes; small (a few % of rows)
        with path.open("rb") as f:
            f.seek(HEADER.size + n * per_element)
            tail = f.read()
        per_level = 4 + 4 * max_m
        levels = np.zeros(n, dtype=np.int32)
        upper_at = np.zeros(n, dtype=np.int64)
        pos = 0
        size_of = struct.Struct("<I").unpack_from
        for i in range(n):
            (size,) = size_of(tail, pos)
            pos += 4
            if size:
                levels[i] = size // per_level
                upper_at[i] = pos
                pos += size
        self.levels, self.upper_at, self.tail = levels, upper_at, tail

    def vectors(self, start: int, stop: int) -> np.ndarray:
        """Rows start..stop of hnswlib's own float32 copy, contiguous."""
        part = np.ascontiguousarray(self.blocks[start:stop, self.data_at : self.label_at])
        return part.view(np.float32).reshape(stop - start, self.dim)

    def rows(self, which: np.ndarray) -> np.ndarray:
        """hnswlib's float32 copy of the rows ``which`` (ascending), contiguous."""
        part = np.ascontiguousarray(self.blocks[which, self.data_at : self.label_at])
        return part.view(np.float32).reshape(len(which), self.dim)

    def level0(self, start: int, stop: int) -> np.ndarray:
        """Level-0 links of rows start..stop, -1 past each row's count."""
        links = np.ascontiguousarray(self.links0[start:stop]).view(np.int32)
        links = links.reshape(stop - start, self.max_m0).copy()
        links[np.arange(self.max_m0) >= self.count0[start:stop, None]] = -1
        return links


def from_hnswlib(path: Path, *, codes: str = "sq8", seed: int = 0):
    """A faiss HNSW index with hnswlib's links at ``path``, labelled by hnswlib's labels.

    Deleted elements stay in the walk (as in hnswlib) under label -1, which no passage has.
    """
    faiss = _faiss()
    if codes not in CODES:
        raise ConfigError(f"unknown graph codes {codes!r}: one of {', '.join(CODES)}")
    graph = Graph(path)
    n, dim, m = graph.n, graph.dim, graph.max_m
    if graph.max_m0 != 2 * m:
        raise ValueError(f"{path}: level 0 holds {graph.max_m0} links, faiss wants 2M = {2 * m}")
    metric = faiss.METRIC_INNER_PRODUCT
    if codes == "flat":
        inner = faiss.IndexHNSWFlat(dim, m, metric)
    elif codes in SCALAR:
        kind = getattr(faiss.ScalarQuantizer, SCALAR[codes])
        inner = faiss.IndexHNSWSQ(dim, kind, m, metric)
    else:
        inner = faiss.IndexHNSWPQ(dim, int(codes[2:]), m, 8, metric)
    index = faiss.IndexIDMap(inner)  # made while empty, as faiss wants
    index.own_fields = True
    inner.this.disown()
    hnsw = inner.hnsw
    cum = faiss.vector_to_array(hnsw.cum_nneighbor_per_level).astype(np.int64)
    if len(cum) <= graph.max_level + 1:
        raise ValueError(f"{path}: {graph.max_level + 1} levels, faiss holds {len(cum) - 1}")
    # faiss: levels[i] = the element's top level + 1; offsets[i] where its links start
    levels = graph.levels + 1
    offsets = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(cum[levels], out=offsets[1:])
    total = int(offsets[-1])
    neighbors = np.full(total, -1, dtype=np.int32)
    starts = offsets[:-1].astype(np.int64)
    step = 100_000
    width0 = int(cum[1])
    for start in range(0, n, step):
        stop = min(n, start + step)
        where = starts[start:stop, None] + np.arange(width0)
        neighbors[where] = graph.level0(start, stop)
    per_level = 4 + 4 * m
    for i in np.nonzero(graph.levels)[0]:
        for level in range(1, graph.levels[i] + 1):
            at = int(graph.upper_at[i]) + (level - 1) * per_level
            count = struct.unpack_from("<I", graph.tail, at)[0] & 0xFFFF
            links = np.frombuffer(graph.tail, dtype=np.int32, count=count, offset=at + 4)
            base = int(starts[i]) + int(cum[level])
            neighbors[base : base + count] = links
    faiss.copy_array_to_vector(levels.astype(np.int32), hnsw.levels)
    faiss.copy_array_to_vector(offsets, hnsw.offsets)
    faiss.copy_array_to_vector(neighbors, hnsw.neighbors)
    hnsw.entry_point = int(graph.entry)
    hnsw.max_level = int(graph.max_level)
    storage = faiss.downcast_index(inner.storage)
    if codes != "flat":
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(n, size=min(n, TRAIN_SAMPLE), replace=False))
        training = graph.rows(sample)
        storage.train(np.ascontiguousarray(training, dtype=np.float32))
    for start in range(0, n, step):
        storage.add(graph.vectors(start, min(n, start + step)))
    inner.ntotal = n
    inner.is_trained = True
    labels = graph.labels.astype(np.int64)
    labels[graph.deleted] = -1
    faiss.copy_array_to_vector(labels, index.id_map)
    index.ntotal = n
    return index


def path(directory: Path, generation: int, codes: str) -> Path:
    """The faiss index of generation ``generation``'s graph over rows held as ``codes``."""
    return directory / f"hnsw{codes}-{generation}.faiss"


def refresh(directory: Path, generation: int, codes: str) -> bool:
    """Write the faiss index of this generation's graph (``ann.graph_path``) unless it exists;
    False when there is no graph to read. Written under a temporary name and renamed whole."""
    target = path(directory, generation, codes)
    if target.exists():
        return True
    graph = ann.graph_path(directory, generation)
    if not graph.is_file():
        return False
    index = from_hnswlib(graph, codes=codes)
    faiss = _faiss()
    with written_whole(target) as tmp:
        faiss.write_index(index, str(tmp))
    return True


class CodedGraph:
    """A loaded faiss index of the graph, and the beam width its searches use.

    Its size is read once: reading an attribute of a faiss index through SWIG took ~0.02 ms,
    2% of a 1M search (docs/scale.md, stop 24, second round); a loaded index never grows."""

    def __init__(self, index, ef_search: int):
        self.index, self.ef = index, ef_search
        self.ntotal, self.dim = int(index.ntotal), int(index.d)
        self._search = index.search_c  # faiss's C++ search, without its Python wrapper
        self._pointer = _faiss().swig_ptr


def load(target: Path, passages: int, ef_search: int) -> CodedGraph | None:
    """The index at ``target``, or None when it is missing, unreadable or holds fewer entries
    than the corpus has passages (deleted passages stay in a graph: more is fine)."""
    if not target.is_file():
        return None
    faiss = _faiss()
    index = read_index(faiss, target)
    if index is None or index.ntotal < passages or not isinstance(index, faiss.IndexIDMap):
        return None
    faiss.omp_set_num_threads(1)  # one query on one core, as ivfpq.load explains
    on_huge_pages(index)
    return CodedGraph(index, ef_search)


def on_huge_pages(index) -> None:
    """Ask for 2 MB pages under what a walk reads at random: rows, link lists, their offsets."""
    faiss = _faiss()
    inner = faiss.downcast_index(index.index)
    storage = faiss.downcast_index(inner.storage)
    for vector in (storage.codes, inner.hnsw.neighbors, inner.hnsw.offsets):
        if vector.size():
            pages.huge_pages(faiss.rev_swig_ptr(vector.data(), vector.size()))


def neighbours(graph: CodedGraph, query: np.ndarray, n: int, *, bounded: bool = True):
    """Labels of (about) the ``n`` nearest entries by code; -1 where fewer were found.

    faiss's bounded queue (``SearchParametersHNSW.bounded_queue``, its default) measured
    faster than the unbounded one at the same recall (docs/scale.md, stop 24)."""
    n = min(n, graph.ntotal)
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    params = _search_parameters(max(graph.ef, n), bounded)
    # faiss's own ``search`` wrapper, inlined: the same C++ call on arrays made here
    query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
    if query.shape[1] != graph.dim:  # the C++ call would read past the vector
        raise CorpusIndexError(f"query has {query.shape[1]} dimensions; the graph {graph.dim}")
    distances = np.empty((1, n), dtype=np.float32)
    labels = np.empty((1, n), dtype=np.int64)
    pointer = graph._pointer
    graph._search(1, pointer(query), n, pointer(distances), pointer(labels), params)
    return labels[0]


@functools.lru_cache(maxsize=16)
def _search_parameters(ef: int, bounded: bool):
    """faiss's search parameters, made once per beam width (threads share them read-only)."""
    return _faiss().SearchParametersHNSW(efSearch=ef, bounded_queue=bounded)
