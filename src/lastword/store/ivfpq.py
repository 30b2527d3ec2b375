"""Approximate search for the local store: inverted lists over 4-bit codes, re-scored exactly.

    DIR/ivfpq-<gen>.faiss   a faiss IndexIVFPQFastScan over the matrix of generation <gen>;
                            its ids are passage ids
    DIR/ivfpq-<gen>.json    the corpus size its codes were trained on, and the passages
                            added and removed since (when to train afresh)

Why: at 1M x 384 the float32 inverted lists (``store/ivf.py``) need 128 of 2,003 cells for
recall@8 0.98 on PubMedQA's questions (66,000 rows, 100 MB read a question: ~20 ms), and an
HNSW graph walk does not reach 0.98 at all on that haystack (docs/scale.md). The same cells
with each row held as a product-quantized code of 4 bits per 4 dimensions (48 bytes a row at
384 dimensions against float32's 1,536) are scanned by faiss's fast-scan kernel (lookup tables
held in SIMD registers), so 128 cells cost about a millisecond, and the best
``ivfpq_candidates`` by code are re-scored exactly against the matrix: the scores returned
are exact cosines, and the codes only choose which rows get scored.

The cells are the store's own spherical k-means (``ivf.train``, about 2·√N cells); the codes
are trained on a sample of the rows. Like the graph and the float32 lists, the file is derived:
a writer builds it after it commits (``refresh_derived``), writes it under a temporary name and
renames it into place whole, tagged with its generation; a reader that finds none for its
generation (or one of another size) searches exactly. The next writer updates the previous
generation's codes in place (removed passages dropped, new ones encoded with the same cells
and codebooks) until the passages added and removed since training pass
``ivf.RETRAIN_SHARE`` of the corpus, then trains afresh (at 1M rows about 3 minutes here).

faiss is optional (``pip install 'lastword[faiss]'``): only ``[store] ann = "ivfpq"`` needs it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lastword.store import ann, ivf
from lastword.store.faiss_files import faiss_module, read_index
from lastword.store.files import newest_below, write_atomically, written_whole

FILE_PATTERN = re.compile(r"^ivfpq-(\d+)\.faiss$")
#: dimensions per 4-bit code: 4 (96 codes at 384 dimensions). Measured at 1M: 8 dimensions a
#: code (PQ48) lost recall that no candidate count won back (0.961 against 0.980 at 128 cells)
DIMS_PER_CODE = 4
#: rows sampled to train the codes (faiss wants ~39 per centroid: 16 centroids per sub-space)
TRAIN_SAMPLE = 100_000
#: below this many rows there is nothing to train codes on: no file, exact search
MIN_ROWS = 64
#: faiss's fast-scan kernel for one query (``IndexIVFFastScan.implem``; 0 lets faiss choose).
#: Measured at 1M, 128 cells, 256 candidates, the kernels interleaved query by query (thread
#: CPU p50, load ~12): 0 (faiss's choice) 1.27 ms, 10 1.08, 11 0.95, 12 1.13, 13 1.04
FAST_SCAN_IMPLEM = 11


def _faiss():
    return faiss_module('ann = "ivfpq"', 'or use ann = "hnsw" or "ivf"')


def is_index(found: object) -> bool:
    """Whether ``found`` (a loaded graph, lists or index) is one of this module's."""
    return type(found).__module__.startswith("faiss")


def path(directory: Path, generation: int) -> Path:
    return directory / f"ivfpq-{generation}.faiss"


def info_path(directory: Path, generation: int) -> Path:
    """How far the corpus has moved since the codes were trained (read by the next writer)."""
    return directory / f"ivfpq-{generation}.json"


def codes_per_row(dim: int) -> int:
    """The number of 4-bit codes a row gets: one per ``DIMS_PER_CODE`` dimensions, or the
    largest divisor of ``dim`` below that count (faiss cuts a vector into equal parts)."""
    wanted = max(1, dim // DIMS_PER_CODE)
    return next(m for m in range(wanted, 0, -1) if dim % m == 0)


def build(matrix: np.ndarray, ids: np.ndarray, *, lists: int, seed: int = 0):
    """A faiss index over ``matrix`` (labels: ``ids``), or None below ``MIN_ROWS`` rows."""
    faiss = _faiss()
    n, dim = matrix.shape
    if n < MIN_ROWS:
        return None
    centroids = ivf.train(matrix, lists or ivf.default_lists(n), seed=seed)
    quantizer = faiss.IndexFlatIP(dim)
    quantizer.add(np.ascontiguousarray(centroids, dtype=np.float32))
    index = faiss.IndexIVFPQFastScan(
        quantizer, dim, len(centroids), codes_per_row(dim), 4, faiss.METRIC_INNER_PRODUCT
    )
    index.own_fields = True
    quantizer.this.disown()  # the index frees it
    index.by_residual = False  # one lookup table for every cell: inner products need no residual
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(n, size=TRAIN_SAMPLE, replace=False)) if n > TRAIN_SAMPLE else None
    training = matrix[sample] if sample is not None else matrix
    index.train(np.ascontiguousarray(training, dtype=np.float32))
    for start in range(0, n, ivf.BLOCK * 8):
        block = np.ascontiguousarray(matrix[start : start + ivf.BLOCK * 8], dtype=np.float32)
        index.add_with_ids(block, np.ascontiguousarray(ids[start : start + len(block)]))
    return index


def previous(directory: Path, generation: int) -> int | None:
    """The newest older generation whose codes are still on disk, if any."""
    return newest_below(directory, FILE_PATTERN, generation)


def refresh(
    directory: Path,
    generation: int,
    matrix: np.ndarray,
    ids: np.ndarray,
    *,
    lists: int,
    old: tuple[int, np.ndarray] | None = None,
) -> None:
    """Write the codes of ``generation``: those of ``old`` (generation, its ids) updated in
    place (removed passages' codes dropped, new passages encoded with its cells and codebooks)
    while the passages added and removed since they were trained stay within
    ``ivf.RETRAIN_SHARE`` of the corpus they were trained on; else trained afresh.

    ``ivfpq-<gen>.json`` (written first) keeps that count; the ``.faiss`` file is written
    last, so a reader sees either no codes for the generation or whole ones."""
    carried = _carry_over(directory, old, matrix, ids) if old is not None else None
    if carried is not None:
        index, trained_on, changed = carried
    else:
        index, trained_on, changed = build(matrix, ids, lists=lists), len(ids), 0
        if index is None:
            return
    info = {"trained_on": trained_on, "changed": changed}
    write_atomically(info_path(directory, generation), info)
    save(index, path(directory, generation))


def _carry_over(directory: Path, old: tuple[int, np.ndarray], matrix: np.ndarray, ids: np.ndarray):
    """(index, trained_on, changed) from the old generation's codes, or None when the corpus
    has moved too far since they were trained (or the old files are unreadable)."""
    faiss = _faiss()
    generation, old_ids = old
    try:
        info = json.loads(info_path(directory, generation).read_text())
        trained_on, changed = int(info["trained_on"]), int(info["changed"])
        index = faiss.read_index(str(path(directory, generation)))
    except (OSError, ValueError, KeyError, TypeError, RuntimeError):
        return None
    if index.ntotal != len(old_ids) or index.d != matrix.shape[1]:
        return None
    removed = np.setdiff1d(old_ids, ids, assume_unique=True)
    added = np.nonzero(~np.isin(ids, old_ids, assume_unique=True))[0]
    changed += len(removed) + len(added)
    if changed > ivf.RETRAIN_SHARE * trained_on:
        return None
    if len(removed):
        index.remove_ids(faiss.IDSelectorBatch(removed.astype(np.int64)))
    for start in range(0, len(added), ivf.BLOCK * 8):
        rows = added[start : start + ivf.BLOCK * 8]
        block = np.ascontiguousarray(matrix[rows], dtype=np.float32)
        index.add_with_ids(block, np.ascontiguousarray(ids[rows], dtype=np.int64))
    return index, trained_on, changed


def save(index, target: Path) -> None:
    """Write ``index`` to ``target`` whole or not at all."""
    faiss = _faiss()
    with written_whole(target) as tmp:
        faiss.write_index(index, str(tmp))


def load(target: Path, passages: int):
    """The index at ``target``, or None when it is missing, unreadable or of another corpus
    size (search exactly then)."""
    if not target.is_file():
        return None
    faiss = _faiss()
    index = read_index(faiss, target)
    if index is None or index.ntotal != passages or not isinstance(index, faiss.IndexIVFPQFastScan):
        return None
    # One query searches on one core, as the matrix products do (the store's searches run side
    # by side in threads): faiss's OpenMP threads would only compete with them.
    faiss.omp_set_num_threads(1)
    index.implem = FAST_SCAN_IMPLEM
    return index


def search(
    index,
    matrix: np.ndarray,
    ids: np.ndarray,
    query: np.ndarray,
    k: int,
    *,
    probes: int,
    candidates: int,
    keep: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Matrix rows and exact scores of the best k among the codes' best ``candidates`` in the
    ``probes`` nearest cells, best first (equal scores by row, as the whole product ranks).

    ``keep(rows)`` filters (exclusions, kinds); when fewer than k survive, None tells the
    caller to search exactly instead.
    """
    wanted = min(max(candidates, k), index.ntotal)
    params = _search_parameters(min(probes, index.nlist))
    _, labels = index.search(query.reshape(1, -1).astype(np.float32), wanted, params=params)
    return ann.rescore(labels[0][labels[0] >= 0], matrix, ids, query, k, keep)


@functools.lru_cache(maxsize=16)
def _search_parameters(probes: int):
    """faiss's search parameters for ``probes`` cells, made once (read-only during a search,
    so threads share them): making them per search cost ~0.05 ms of a ~1 ms search."""
    return _faiss().SearchParametersIVF(nprobe=probes)
