"""The scope contract on the local store (exact, HNSW graph, inverted lists) and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.settings import StoreSettings
from tests.store.contract import Where
from tests.store.scope_contract import ScopeContract


class TestLocalScope(ScopeContract):
    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        return Where(StoreSettings(), tmp_path / "index")


class TestLocalScopeGraph(ScopeContract):
    """HNSW from the first passage; a scope above 20% of the passages walks the graph with
    hnswlib's filter (ef high enough here that the walk is exact), a smaller one is scored
    exactly over its rows."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(ann_min_passages=1, ann_candidates=64, ann_ef_search=600)
        return Where(settings, tmp_path / "index")


class TestLocalScopeGraphOnly(ScopeContract):
    """Every scope through the graph walk (scope_exact_share 0)."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(
            ann_min_passages=1, ann_candidates=64, ann_ef_search=600, scope_exact_share=0.0
        )
        return Where(settings, tmp_path / "index")


class TestLocalScopeInvertedLists(ScopeContract):
    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(
            ann="ivf", ann_min_passages=1, ivf_probes=64, scope_exact_share=0.0
        )
        return Where(settings, tmp_path / "index")


class TestPostgresScope(ScopeContract):
    @pytest.fixture
    def where(self, postgres_dsn: str, postgres_schema: str, tmp_path: Path) -> Where:
        settings = StoreSettings(backend="postgres", dsn=postgres_dsn, schema_name=postgres_schema)
        return Where(settings, tmp_path / "unused")


class TestPostgresScopeIndexWalk(ScopeContract):
    """Every scope through pgvector's iterative HNSW scan (scope_exact_share 0)."""

    @pytest.fixture
    def where(self, postgres_dsn: str, postgres_schema: str, tmp_path: Path) -> Where:
        settings = StoreSettings(
            backend="postgres",
            dsn=postgres_dsn,
            schema_name=postgres_schema,
            scope_exact_share=0.0,
            pg_ef_search=600,
        )
        return Where(settings, tmp_path / "unused")
