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


@pytest.fixture
def walk_at_any_size(monkeypatch):
    """The filtered graph walk at this test's size (it starts at 100k passages)."""
    monkeypatch.setattr("lastword.store.local_search.SCOPE_WALK_MIN", 0)


@pytest.mark.usefixtures("walk_at_any_size")
class TestLocalScopeGraph(ScopeContract):
    """HNSW from the first passage; a scope above 20% of the passages walks the graph with
    hnswlib's filter (ef high enough here that the walk is exact), a smaller one is scored
    exactly over its rows."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(ann_min_passages=1, ann_candidates=64, ann_ef_search=600)
        return Where(settings, tmp_path / "index")


@pytest.mark.usefixtures("walk_at_any_size")
class TestLocalScopeGraphOnly(ScopeContract):
    """Every scope through the graph walk (scope_exact_share 0)."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Where:
        settings = StoreSettings(
            ann_min_passages=1, ann_candidates=64, ann_ef_search=600, scope_exact_share=0.0
        )
        return Where(settings, tmp_path / "index")


@pytest.mark.usefixtures("walk_at_any_size")
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


def test_the_filtered_walk_is_what_answers(tmp_path: Path, monkeypatch):
    """With the walk on, a large scope goes through hnswlib's filtered search (not the exact
    fallback), and every label it returns is the scope's."""
    from lastword.scope import make_scope
    from lastword.store import ann
    from tests.store.contract import vectors
    from tests.store.scope_contract import B, fill

    monkeypatch.setattr("lastword.store.local_search.SCOPE_WALK_MIN", 0)
    seen: list = []
    original = ann.neighbours_within

    def spy(graph, query, n, admit):
        labels = original(graph, query, n, admit)
        seen.append(labels)
        return labels

    monkeypatch.setattr(ann, "neighbours_within", spy)
    settings = StoreSettings(ann_min_passages=1, ann_candidates=64, ann_ef_search=600)
    where = Where(settings, tmp_path / "index")
    with where.writer() as writer:
        fill(writer)
    with where.reader() as reader:
        scope = make_scope(collections=["B"])
        ids, _ = reader.search_ids(vectors(5, 1)[0], 8, scope=scope)
        assert seen and len(seen[-1]) > 0
        owners = reader.passage_docs([int(x) for x in seen[-1]])
        assert set(owners.values()) <= set(B)
        assert set(reader.passage_docs(ids.tolist()).values()) <= set(B)
