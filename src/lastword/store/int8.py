"""Exact dense search that reads a quarter of the matrix: an int8 first pass, then float32.

The exact search is one float32 matrix-vector product (``matrix @ query``). At 13k passages it
reads 20 MB a question, and its time is the memory traffic, not the arithmetic. This pass keeps
an int8 copy of the matrix (one scale per row, a quarter of the bytes) and, for one query:

1. scores every row with ONNX Runtime's ``MatMulInteger`` (the matrix as the int8 weight, the
   query as two 7-bit rows: its rounding and the rounding of what is left, so the query's own
   error is about 1e-4 of the matrix's);
2. adds to each row's approximate score a bound on its error: the row's rounding error
   ``||x - s q||`` times ``||y||``, the query's leftover times ``||s q||``, and the float32
   rounding of the exact product itself (``384 u ||x|| ||y||``). So a row's exact float32
   score can never exceed its ``upper`` score;
3. takes the pool of the rows with the highest upper scores and scores them exactly, by the
   same float32 product (``exact_rows``: the rows packed in whole groups of the kernel, or
   their whole aligned blocks, as the build check finds, so the BLAS kernel computes each row
   the way it does inside the whole matrix, to the last bit);
4. proves the answer: when the k-th best exact score in the pool is above every upper score
   outside it, no row outside the pool can be in the top k. Otherwise ``search`` answers None
   and the caller runs the whole product (``store/local_search.py``).

So the top k, their order and their scores are those of the whole product, whenever it answers.
On the SciFact claims over 13,339 passages the top 100 needs a pool of at most 142 rows
(bench/retrieval.py prints how often the proof held). Built in memory from the verified matrix
at the first search of a generation (no file to go stale); used from ``[store]
int8_min_passages`` passages on, below ``ann_min_passages``.
"""

from __future__ import annotations

import numpy as np

#: rows per aligned block when re-scoring, tried in turn when the pass is built: the first
#: that gives the whole product's bits on sample queries is used (OpenBLAS's Haswell kernel,
#: here, needs 4: its column groups; a row alone, outside its group, differs 474 times in 60,000)
BLOCKS = (4, 16, 64)
#: the float32 product's worst rounding per unit of ||x|| ||y||: dim * 2^-24, with margin
_ROUNDING = 2.0**-24 * 1.05
_CHUNK = 2048


class Int8Pass:
    """The int8 copy of one matrix and its error bounds, and the ONNX session that scores it."""

    def __init__(self, matrix: np.ndarray) -> None:
        import onnxruntime as ort

        rows = np.asarray(matrix, dtype=np.float32)
        self.rows, self.dim = rows.shape
        codes = np.empty(rows.shape, dtype=np.int8)
        scale = np.empty(self.rows, dtype=np.float32)
        error = np.empty(self.rows, dtype=np.float32)
        rebuilt_norm = np.empty(self.rows, dtype=np.float32)
        norm = np.empty(self.rows, dtype=np.float32)
        for start in range(0, self.rows, _CHUNK):  # in float32, a chunk at a time: in cache
            part = rows[start : start + _CHUNK]
            at = slice(start, start + len(part))
            peak = np.abs(part).max(axis=1)
            scale[at] = np.where(peak > 0, peak / np.float32(127), np.float32(1))
            codes[at] = np.clip(np.rint(part / scale[at, None]), -127, 127)
            rebuilt = codes[at] * scale[at, None]
            left = part - rebuilt
            error[at] = np.sqrt(np.einsum("ij,ij->i", left, left))
            rebuilt_norm[at] = np.sqrt(np.einsum("ij,ij->i", rebuilt, rebuilt))
            norm[at] = np.sqrt(np.einsum("ij,ij->i", part, part))
        self.scale = scale
        # Rounded up: float32 arithmetic is off by far less than these margins (1e-4 relative,
        # 1e-6 absolute: a row's rounding error is about 7e-3), and a bound must never be short.
        # ``fixed``: the row's own rounding error and the float32 product's, per unit of ||y||.
        fixed = error.astype(np.float64) * (1 + 1e-4) + 1e-6
        fixed += norm.astype(np.float64) * (1 + 1e-4) * (self.dim * _ROUNDING)
        self.fixed = np.nextafter(fixed.astype(np.float32), np.float32(np.inf))
        self.max_rebuilt = float(rebuilt_norm.max(initial=0.0)) * (1 + 1e-4)
        self.max_norm = max(1.0, float(norm.max(initial=0.0)))
        model = _model(np.ascontiguousarray(codes.T), self.dim, self.rows)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # one query: a pool of threads costs more than it saves
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.block, self.packed = _layout_for(rows)

    @property
    def usable(self) -> bool:
        """False when no block size reproduced the whole product (search it whole then)."""
        return self.block > 0

    def upper(self, query: np.ndarray) -> np.ndarray:
        """Per row, a score its exact float32 cosine with ``query`` cannot exceed (float32)."""
        y = np.asarray(query, dtype=np.float64).reshape(-1)
        # 7-bit query values (-63..63, stored as uint8 around 64): MLAS's AVX2 kernel adds
        # pairs of uint8 x int8 products in int16, which 8-bit values could overflow. The two
        # scales are float32 numbers, so the float32 arithmetic below uses them exactly.
        first_scale = np.float32(np.abs(y).max() / 63.0) or np.float32(1)
        first = np.rint(y / first_scale)
        left = y - first * float(first_scale)
        second_scale = np.float32(np.abs(left).max() / 63.0) or np.float32(1)
        second = np.rint(left / second_scale)
        leftover = float(np.linalg.norm(left - second * float(second_scale)))
        feed = (np.stack([first, second]) + 64).astype(np.uint8)
        dots = self._session.run(None, {"query": feed})[0]
        # The integer dots are exact (|dot| < 2^24: exact in float32 too); the few float32
        # roundings from here on are under 1e-6 (|scores| <= ~1), added to the bound.
        upper = dots[0].astype(np.float32)
        upper *= first_scale
        part = dots[1].astype(np.float32)
        part *= second_scale
        upper += part
        upper *= self.scale
        norm = float(np.linalg.norm(y))
        upper += self.fixed * np.float32(norm * (1 + 1e-6))
        upper += np.float32(self.max_rebuilt * leftover + 4e-6 * max(norm, 1.0) * self.max_norm)
        return upper


def exact_rows(
    matrix: np.ndarray, rows: np.ndarray, query: np.ndarray, block: int, packed: bool = False
) -> np.ndarray:
    """``(matrix @ query)[rows]`` to the last bit, reading only the blocks that hold ``rows``.

    Each row (ascending) is computed inside its whole aligned block of ``block`` rows, placed
    at a multiple of ``block`` in the gathered matrix, and the matrix's last (short) block
    stays last: every row sits where the kernel's column groups and tail put it in the whole
    product. ``packed``: the rows alone, side by side (their count padded to a multiple of
    ``block``), then the short last block if any row is in it: a quarter of the rows read,
    for a kernel whose groups compute each row alike wherever it stands in them.
    """
    if packed:
        return _packed_rows(matrix, rows, query, block)
    blocks = np.unique(rows // block)
    index = (blocks[:, None] * block + np.arange(block)).ravel()
    index = index[index < len(matrix)]
    scores = matrix[index] @ query
    return scores[np.searchsorted(index, rows)]


def _packed_rows(matrix: np.ndarray, rows: np.ndarray, query: np.ndarray, group: int) -> np.ndarray:
    """``exact_rows`` packed: the rows before the matrix's short last block, padded (with the
    first of them) to whole groups, then that last block whole when any row is in it."""
    if not len(rows):
        return np.empty(0, dtype=np.float32)
    tail = len(matrix) - len(matrix) % group
    head = int(np.searchsorted(rows, tail))  # rows ascending: rows[:head] are before the tail
    pad = -head % group
    parts = [rows[:head], np.full(pad, rows[0], dtype=rows.dtype)]
    if head < len(rows):
        parts.append(np.arange(tail, len(matrix), dtype=rows.dtype))
    scores = matrix[np.concatenate(parts)] @ query
    if head == len(rows):
        return scores[:head]
    out = np.empty(len(rows), dtype=scores.dtype)
    out[:head] = scores[:head]
    out[head:] = scores[head + pad + (rows[head:] - tail)]
    return out


def search(
    pass_: Int8Pass,
    matrix: np.ndarray,
    query: np.ndarray,
    k: int,
    blocked: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """(rows, float32 scores) of the top k, best first, as ``matrix @ query`` would rank them;
    None when the pool could not prove it (the caller runs the whole product). ``blocked``: a
    boolean mask of rows that may not be returned (excluded documents, other kinds)."""
    if not pass_.usable:
        return None
    upper = pass_.upper(query)
    if blocked is not None:
        upper[blocked] = -np.inf
    n = len(upper)
    size = min(n, k + max(32, k // 2))
    while True:
        if size >= n:
            return None  # the pool would be the matrix: the whole product is cheaper
        part = np.argpartition(-upper, size)
        pool, outside = np.sort(part[:size]), upper[part[size]]  # the best upper score left out
        exact = exact_rows(matrix, pool, query, pass_.block, pass_.packed)
        if blocked is not None:
            exact[blocked[pool]] = -np.inf
        kth = np.partition(exact, size - k)[size - k]  # the k-th best exact score in the pool
        if outside == -np.inf or kth > outside:  # (-inf when fewer than k are allowed)
            break
        size *= 4
    top = best_first(exact, k)  # the pool is in row order: ties go by row, as in the product
    return pool[top], exact[top]


def best_first(scores: np.ndarray, k: int) -> np.ndarray:
    """Indexes of the k highest finite ``scores``, best first; equal scores by index, so the
    same rows in the same order however they were found (a duplicate passage ties exactly)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    kth = scores[part].min()
    better = part[scores[part] > kth]
    tied = np.flatnonzero(scores == kth)[: k - len(better)]
    top = np.concatenate([better, tied])
    top = top[np.lexsort((top, -scores[top]))]
    return top[np.isfinite(scores[top])]


def _layout_for(matrix: np.ndarray) -> tuple[int, bool]:
    """(block, packed): the smallest of ``BLOCKS``, packed if that gives the whole product's
    bits, else aligned, whose gathered products equal the whole product's on a few sample
    queries (rows of the matrix itself) and scattered rows; (0, False) if none does."""
    n = len(matrix)
    if n == 0:
        return 0, False
    sample = np.random.default_rng(n)
    queries = matrix[sample.choice(n, min(n, 4), replace=False)]
    whole = [matrix @ query for query in queries]
    # Scattered rows, as many as leave each remainder that a kernel's tail could handle.
    # With the last row (in the short last block, if there is one) and without it.
    subsets = [
        np.unique(
            np.concatenate(
                [sample.choice(n, min(n, size), replace=False), np.array(last, dtype=np.int64)]
            )
        )
        for size in (*range(1, 17), 31, 33, 63, 65, 127, 150, 200, 600)
        for last in ([n - 1], [])
    ]
    for block in BLOCKS:
        for packed in (True, False):
            same = all(
                np.array_equal(exact_rows(matrix, rows, query, block, packed), expected[rows])
                for rows in subsets
                for query, expected in zip(queries, whole, strict=True)
            )
            if same:
                return block, packed
    return 0, False


# ----------------------------------------------------------------- the ONNX model, by hand
# One MatMulInteger node, written as protobuf bytes directly: the ``onnx`` package is an extra
# (for exporting models) and takes seconds to import; ONNX Runtime reads the bytes.
_UINT8, _INT8, _INT32 = 2, 3, 6  # TensorProto.DataType


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes | str | int) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _value(name: str, elem_type: int, shape: tuple[int, ...]) -> bytes:
    dims = b"".join(_field(1, _field(1, size)) for size in shape)  # Dimension.dim_value
    tensor = _field(1, elem_type) + _field(2, dims)  # TypeProto.Tensor: elem_type, shape
    return _field(1, name) + _field(2, _field(1, tensor))  # ValueInfoProto: name, type


def _header(number: int, length: int) -> bytes:
    """The tag and length of a length-delimited field whose payload follows."""
    return _varint(number << 3 | 2) + _varint(length)


def _model(codes: np.ndarray, dim: int, rows: int) -> bytes:
    """ModelProto: scores (2 x rows, int32) = MatMulInteger(query (2 x dim, uint8, zero point
    64), codes (dim x rows, int8)). The codes are copied once, into the joined bytes."""
    raw = memoryview(np.ascontiguousarray(codes)).cast("B")
    weight_head = b"".join(_field(1, size) for size in codes.shape) + _field(2, _INT8)
    weight_head += _field(8, "codes") + _header(9, len(raw))
    weight_length = len(weight_head) + len(raw)
    zero = b"".join(
        (_field(2, _UINT8), _field(8, "zero"), _field(9, np.array(64, dtype=np.uint8).tobytes()))
    )
    node = b"".join(_field(1, name) for name in ("query", "codes", "zero"))
    node += _field(2, "scores") + _field(4, "MatMulInteger")
    before = _field(1, node) + _field(2, "int8_pass") + _header(5, weight_length) + weight_head
    after = _field(5, zero) + _field(11, _value("query", _UINT8, (2, dim)))
    after += _field(12, _value("scores", _INT32, (2, rows)))
    graph_length = len(before) + len(raw) + len(after)
    opset = _field(8, _field(1, "") + _field(2, 13))
    return b"".join(
        (_field(1, 8), _header(7, graph_length), before, raw, after, opset)
    )  # ir_version, graph (node, name, initializers, input, output), opset_import
