"""The int8 first pass of exact dense search (store/int8.py): the same ids, order and float32
scores as the whole product, its bound never short, the whole product whenever it cannot prove
the answer, and a new pass for each generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lastword.embed.protocol import normalise
from lastword.settings import StoreSettings
from lastword.store import int8
from lastword.store.local import LocalStore
from tests.store.contract import INFO, passages, record
from tests.store.test_ann import clustered

INT8 = StoreSettings(int8_min_passages=1)
EXACT = StoreSettings(int8_min_passages=10**9)


def whole_product(matrix: np.ndarray, query: np.ndarray, k: int) -> tuple[list, list]:
    """The exact search as it ran before the pass: every row scored, ties by row."""
    scores = matrix @ query
    order = np.lexsort((np.arange(len(scores)), -scores))[:k]
    return order.tolist(), scores[order].tolist()


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2,000 clustered passages, with exact duplicates (tied scores) among them."""
    directory = tmp_path_factory.mktemp("int8")
    with LocalStore.open_for_write(directory, INFO, INT8) as store:
        for d in range(200):
            vectors = clustered(d, 10)
            if d % 10 == 1:
                vectors[3] = vectors[4]  # the same passage twice: its two scores tie exactly
            store.put_document(record(f"d{d}", 10), passages(d, 10), vectors)
        store.commit()
        store.refresh_derived()
    return directory


def test_the_bound_is_never_short(index: Path):
    matrix = np.load(next(index.glob("vectors-*.npy")))
    built = int8.Int8Pass(matrix)
    for seed in range(50):
        query = clustered(1000 + seed, 1)[0]
        exact = (matrix @ query).astype(np.float64)
        upper = built.upper(query)
        assert np.all(upper >= exact)
        assert np.max(upper - exact) < 0.05  # and tight enough to leave most rows out


def test_same_ids_order_and_scores_as_the_whole_product(index: Path):
    with LocalStore.open(index, INT8) as fast, LocalStore.open(index, EXACT) as exact:
        matrix = np.asarray(fast._load_matrix()[0])
        ids = fast._load_matrix()[1]
        for seed in range(60):
            query = clustered(2000 + seed, 1)[0]
            for k in (1, 8, 50, 100):
                got = fast.search_ids(query, k)
                rows, scores = whole_product(matrix, query, k)
                assert got[0].tolist() == ids[rows].tolist()
                assert got[1].tolist() == scores  # float32 bits, widened
                again = exact.search_ids(query, k)
                assert (got[0].tolist(), got[1].tolist()) == (again[0].tolist(), again[1].tolist())
        assert fast.int8_counts["proved"] == 240 and fast.int8_counts["whole"] == 0
        assert exact.int8_counts == {"proved": 0, "whole": 0}


def test_ties_come_in_passage_order(index: Path):
    with LocalStore.open(index, INT8) as store:
        matrix, ids = store._load_matrix()
        duplicate = np.asarray(matrix)[13]  # document d1's passages 3 and 4 are the same vector
        found, scores = store.search_ids(duplicate, 8)
        assert found[:2].tolist() == sorted(ids[[13, 14]].tolist())
        assert scores[0] == scores[1]


def test_filters_match_the_whole_product(index: Path):
    with LocalStore.open(index, INT8) as fast, LocalStore.open(index, EXACT) as exact:
        for seed in range(20):
            query = clustered(3000 + seed, 1)[0]
            for where in (
                {"kinds": {"abstract"}},
                {"exclude_doc_ids": {f"d{d}" for d in range(0, 200, 3)}},
                {"kinds": {"body", "caption"}, "exclude_doc_ids": {"d5", "d6"}},
                {"kinds": {"no-such-kind"}},
            ):
                got = fast.search_ids(query, 30, **where)
                want = exact.search_ids(query, 30, **where)
                assert (got[0].tolist(), got[1].tolist()) == (want[0].tolist(), want[1].tolist())
        assert fast.int8_counts["proved"] >= 60
        kept = fast._kind_codes[2][frozenset({"abstract"})]  # asked once, kept for the next
        assert not kept.flags.writeable and kept is fast._kind_mask({"abstract"}, None)


def test_what_the_pool_cannot_prove_the_whole_product_answers(index: Path):
    with LocalStore.open(index, INT8) as fast, LocalStore.open(index, EXACT) as exact:
        query = clustered(4000, 1)[0]
        fast.search_ids(query, 8)  # the pass is built
        fast._int8[1].fixed = fast._int8[1].fixed + 1.0  # every bound now far too loose
        for k in (8, 1900, 5000):  # unprovable; a pool as big as the matrix; more than there is
            got = fast.search_ids(query, k)
            want = exact.search_ids(query, k)
            assert (got[0].tolist(), got[1].tolist()) == (want[0].tolist(), want[1].tolist())
        assert fast.int8_counts == {"proved": 1, "whole": 3}


def test_exact_rows_gives_the_whole_products_bits(index: Path):
    matrix = np.load(next(index.glob("vectors-*.npy")))
    built = int8.Int8Pass(matrix)
    assert built.block in int8.BLOCKS  # a block size reproduced the product on this machine
    rng = np.random.default_rng(5)
    for seed in range(20):
        query = clustered(5000 + seed, 1)[0]
        rows = np.unique(np.concatenate([rng.choice(len(matrix), 37), [len(matrix) - 1]]))
        got = int8.exact_rows(matrix, rows, query, built.block, built.packed)
        assert np.array_equal(got, (matrix @ query)[rows])


def test_packed_rows_give_the_whole_products_bits_where_the_kernel_allows(index: Path):
    """The packed layout (the rows alone, in whole groups, the short last block last) is chosen
    only when it reproduces the product; then it does for pools with and without that block."""
    matrix = np.load(next(index.glob("vectors-*.npy")))
    built = int8.Int8Pass(matrix)
    rng = np.random.default_rng(9)
    tail = len(matrix) - len(matrix) % built.block
    for seed in range(30):
        query = clustered(6000 + seed, 1)[0]
        whole = matrix @ query
        size = int(rng.integers(1, 300))
        rows = np.sort(rng.choice(len(matrix), size, replace=False))
        for pool in (rows, rows[rows < tail]):
            got = int8.exact_rows(matrix, pool, query, built.block, packed=True)
            if built.packed:
                assert np.array_equal(got, whole[pool])
            assert got.shape == pool.shape and np.allclose(got, whole[pool], atol=1e-5)
    assert int8.exact_rows(matrix, rows[:0], query, built.block, packed=True).shape == (0,)


def test_each_generation_gets_its_own_pass(tmp_path: Path):
    with LocalStore.open_for_write(tmp_path, INFO, INT8) as store:
        for d in range(20):
            store.put_document(record(f"d{d}", 10), passages(d, 10), clustered(d, 10))
        store.commit()
        store.refresh_derived()
        before = store.search_ids(clustered(0, 1)[0], 8)
        first = store._int8
        far = normalise(np.ones((1, INFO.dim))).astype(np.float32)
        store.put_document(record("new", 1), passages(99, 1), far)
        store.commit()
        store.refresh_derived()
        found, scores = store.search_ids(far[0], 1)
        assert store._int8 is not first
        assert store.passages_by_id(found.tolist())[int(found[0])].doc_id == "new"
        assert scores[0] == pytest.approx(1.0, abs=1e-6)
        assert len(before[0]) == 8


def test_one_reading_reads_the_generation_once_and_sees_the_next(tmp_path: Path):
    """``reading()``: the derived parts are chosen by one meta query for a whole retrieval;
    after it, a commit made meanwhile is seen."""
    with LocalStore.open_for_write(tmp_path, INFO, INT8) as writer:
        for d in range(20):
            writer.put_document(record(f"d{d}", 10), passages(d, 10), clustered(d, 10))
        writer.commit()
        writer.refresh_derived()
    far = normalise(np.ones((1, INFO.dim))).astype(np.float32)
    with LocalStore.open(tmp_path, INT8) as reader:
        statements: list[str] = []

        def read_all() -> None:
            reader.search_ids(far[0], 8)
            reader.search_lexical_ids("passage", 8)
            reader.cosines(far[0], [1, 2])
            reader.lexicon()
            reader.passage_docs([1, 2])
            reader.passage_texts([1, 2])

        read_all()  # loaded once per process: the matrix, the postings, the lexicon...
        reader._conn.set_trace_callback(statements.append)
        read_all()
        assert sum("'generation'" in s for s in statements) == 6  # each part asks
        statements.clear()
        with reader.reading(), reader.reading():  # nested: the outer one holds it
            for _ in range(3):
                read_all()
        assert sum("'generation'" in s for s in statements) == 1
        with LocalStore.open_for_write(tmp_path, INFO, INT8) as writer:
            writer.put_document(record("new", 1), passages(99, 1), far)
            writer.commit()
            writer.refresh_derived()
        with reader.reading():
            found = reader.search_ids(far[0], 1)[0].tolist()
            assert reader.passage_docs(found) == {found[0]: "new"}


def test_cosines_are_each_rows_own_dot_product(index: Path):
    """``cosines`` (one vecdot call on numpy 2) gives each row's own ``dot``, to the bit: the
    lexical-only candidates' cosines the fusion sums."""
    with LocalStore.open(index, INT8) as store:
        matrix, ids = store._load_matrix()
        rng = np.random.default_rng(8)
        for seed in range(30):
            query = clustered(6000 + seed, 1)[0]
            rows = rng.choice(len(ids), 60, replace=False)
            wanted = [*ids[rows].tolist(), 10**9]  # and one that is not there
            expected = {int(ids[r]): float(np.asarray(matrix)[r].dot(query)) for r in rows}
            assert store.cosines(query, wanted) == expected
        assert store.cosines(clustered(1, 1)[0], []) == {}
