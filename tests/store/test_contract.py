"""The store contract on every backend: the local directory and PostgreSQL with pgvector."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.settings import StoreSettings
from tests.store.contract import StoreContract, Where


class TestLocalStore(StoreContract):
    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        return Where(StoreSettings(), tmp_path / "index")


class TestLocalStoreRowsFromTables(StoreContract):
    """The same contract with no passage rows held in memory: every text from SQLite."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        return Where(StoreSettings(rows_in_memory_max_passages=0), tmp_path / "index")


class TestLocalStoreApproximate(StoreContract):
    """The same contract with the HNSW graph on from the first passage."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(ann_min_passages=1, ann_candidates=16, ann_ef_search=32)
        return Where(settings, tmp_path / "index")


class TestLocalStoreApproximateCodes(StoreContract):
    """The same contract with the graph searched by faiss over 8-bit codes of its rows."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        pytest.importorskip("faiss")
        settings = StoreSettings(
            ann_min_passages=1, ann_candidates=16, ann_ef_search=32, ann_codes="sq8"
        )
        return Where(settings, tmp_path / "index")


class TestLocalStoreInt8(StoreContract):
    """The same contract with the int8 first pass on from the first passage (store/int8.py):
    results must equal brute force, the pass proving its pool or the whole product answering."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        return Where(StoreSettings(int8_min_passages=1), tmp_path / "index")


class TestLocalStoreInvertedLists(StoreContract):
    """The same contract with inverted lists (IVF) on from the first passage (every cell
    probed at this size, so results must equal brute force; partial probing: test_ivf.py)."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(ann="ivf", ann_min_passages=1, ivf_probes=64)
        return Where(settings, tmp_path / "index")


class TestLocalStoreInvertedCodes(StoreContract):
    """The same contract with inverted lists over 4-bit codes (faiss) on from the first passage:
    every cell probed and every row re-scored at this size, so results equal brute force."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(
            ann="ivfpq", ann_min_passages=1, ivfpq_probes=4096, ivfpq_candidates=100_000
        )
        return Where(settings, tmp_path / "index")


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def where(self, postgres_dsn: str, postgres_schema: str, tmp_path: Path) -> Where:
        settings = StoreSettings(backend="postgres", dsn=postgres_dsn, schema_name=postgres_schema)
        return Where(settings, tmp_path / "unused")


class TestPostgresStoreInvertedLists(StoreContract):
    """The same contract on pgvector's ivfflat index (built by refresh_derived), 2 probes."""

    @pytest.fixture
    def where(self, postgres_dsn: str, postgres_schema: str, tmp_path: Path) -> Where:
        settings = StoreSettings(
            backend="postgres",
            dsn=postgres_dsn,
            schema_name=postgres_schema,
            pg_index="ivfflat",
            pg_probes=2,
        )
        return Where(settings, tmp_path / "unused")
