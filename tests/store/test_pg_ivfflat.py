"""pgvector's ivfflat lists: none on an empty table, built by the writer once rows exist, built
again only when the corpus has doubled or halved, and used by searches (EXPLAIN says so)."""

from __future__ import annotations

import numpy as np
import psycopg

from lastword.settings import StoreSettings
from lastword.store.postgres import PostgresStore
from lastword.store.postgres_extras import ivfflat_lists
from tests.store.contract import INFO, passages, record, vectors


def index_of(dsn: str, schema: str) -> tuple[str | None, str | None]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT am.amname, pg_get_indexdef(i.oid) FROM pg_class i "
            "JOIN pg_am am ON am.oid = i.relam JOIN pg_namespace n ON n.oid = i.relnamespace "
            "WHERE n.nspname = %s AND i.relname = 'passages_embedding'",
            (schema,),
        ).fetchone()
    return (row[0], row[1]) if row else (None, None)


def ivfflat_settings(dsn: str, schema: str, **more) -> StoreSettings:
    """A Postgres store with ivfflat over 4 lists, and ``more``."""
    return StoreSettings(
        backend="postgres", dsn=dsn, schema_name=schema, pg_index="ivfflat", pg_lists=4, **more
    )


def test_ivfflat_lists_follow_the_corpus(postgres_dsn: str, postgres_schema: str):
    settings = ivfflat_settings(postgres_dsn, postgres_schema, pg_probes=4, pg_precision="half")
    with PostgresStore.open_for_write(postgres_dsn, INFO, settings) as store:
        assert index_of(postgres_dsn, postgres_schema) == (None, None)  # nothing to train on
        for d in range(10):
            store.put_document(record(f"d{d}", 20), passages(d, 20), vectors(d, 20))
        store.commit()
        store.refresh_derived()
        kind, definition = index_of(postgres_dsn, postgres_schema)
        assert kind == "ivfflat" and "lists='4'" in definition.replace(" ", "")
        assert store._meta("ivfflat_rows") == "200"
        store.put_document(record("d10", 20), passages(10, 20), vectors(10, 20))
        store.commit()
        store.refresh_derived()
        assert store._meta("ivfflat_rows") == "200"  # 220 rows: the lists are kept
        for d in range(11, 21):
            store.put_document(record(f"d{d}", 20), passages(d, 20), vectors(d, 20))
        store.commit()
        store.refresh_derived()
        assert store._meta("ivfflat_rows") == "420"  # doubled: trained again
    with PostgresStore.open(postgres_dsn, settings) as reader:
        target = vectors(3, 20)[5]
        hit = reader.search(target, 1)[0]
        assert (hit.passage.doc_id, hit.passage.position) == ("d3", 5)
        assert np.isclose(hit.score, 1.0, atol=1e-5)
        with reader._conn() as conn:
            assert conn.execute("SHOW ivfflat.probes").fetchone()[0] == "4"
            conn.execute("SET enable_seqscan = off")
            plan = " ".join(
                r[0]
                for r in conn.execute(
                    f"EXPLAIN SELECT id FROM {postgres_schema}.passages "
                    f"ORDER BY embedding::halfvec({INFO.dim}) <=> %s::halfvec({INFO.dim}) LIMIT 8",
                    ("[" + ",".join(str(float(x)) for x in target) + "]",),
                )
            )
            conn.execute("RESET enable_seqscan")
        assert "passages_embedding" in plan
        assert reader.vector_precision() == "half"
    hnsw = settings.model_copy(update={"pg_index": "hnsw"})
    with PostgresStore.open_for_write(postgres_dsn, INFO, hnsw) as store:
        store.refresh_derived()  # switched back: the HNSW index replaces the lists
    assert index_of(postgres_dsn, postgres_schema)[0] == "hnsw"


def test_default_list_count():
    assert ivfflat_lists(0) == 1 and ivfflat_lists(2_500) == 150
    assert ivfflat_lists(1_000_000) == 3000 and ivfflat_lists(4_000_000) == 6000


def test_precision_half_and_full_find_the_same(postgres_dsn: str, postgres_schema: str):
    """The half-precision index's candidates are re-scored in float32: the same hits and the
    same exact scores as the float32 index; changing ``pg_precision`` rebuilds the index."""
    settings = StoreSettings(
        backend="postgres", dsn=postgres_dsn, schema_name=postgres_schema, pg_precision="half"
    )
    with PostgresStore.open_for_write(postgres_dsn, INFO, settings) as store:
        for d in range(12):
            store.put_document(record(f"d{d}", 20), passages(d, 20), vectors(d, 20))
        store.commit()
        store.refresh_derived()
    assert "halfvec" in index_of(postgres_dsn, postgres_schema)[1]
    queries = [vectors(d, 20)[p] + 0.3 * vectors(d + 1, 20)[p] for d, p in ((0, 3), (5, 7))]
    queries = [q / np.linalg.norm(q) for q in queries]
    with PostgresStore.open(postgres_dsn, settings) as reader:
        assert reader.vector_precision() == "half"
        half = [reader.search_ids(q, 8) for q in queries]
        assert_search_is_its_ids_and_passages(reader, queries)
    full = settings.model_copy(update={"pg_precision": "full"})
    with PostgresStore.open_for_write(postgres_dsn, INFO, full) as store:
        store.refresh_derived()
    assert "halfvec" not in index_of(postgres_dsn, postgres_schema)[1]
    with PostgresStore.open(postgres_dsn, full) as reader:
        assert reader.vector_precision() == "full"
        for q, (ids, scores) in zip(queries, half, strict=True):
            exact_ids, exact_scores = reader.search_ids(q, 8)
            assert list(ids) == list(exact_ids)
            assert np.allclose(scores, exact_scores, atol=1e-6)
            assert np.all(np.diff(scores) <= 0)
        assert_search_is_its_ids_and_passages(reader, queries)


def assert_search_is_its_ids_and_passages(reader: PostgresStore, queries) -> None:
    """``search`` reads the nearest rows with their passages in one statement: the same
    hits, scores and passages as ``search_ids`` then ``passages_by_id``, filtered or not."""
    for q in queries:
        for exclude, kinds in (((), None), (("d0", "d5"), ("body", "caption"))):
            ids, scores = reader.search_ids(q, 8, exclude, kinds)
            hits = reader.search(q, 8, exclude, kinds)
            assert [h.passage.passage_id for h in hits] == ids.tolist()
            assert [h.score for h in hits] == scores.tolist()
            by_id = reader.passages_by_id(ids.tolist())
            assert [h.passage for h in hits] == [by_id[pid] for pid in ids.tolist()]
            assert not {h.passage.doc_id for h in hits} & set(exclude)
            assert kinds is None or {h.passage.kind for h in hits} <= set(kinds)


def test_iterative_scans_only_for_filtered_searches(postgres_dsn: str, postgres_schema: str):
    """A search without a filter runs with iterative scans off (the lists first scanned hold
    its k rows); a filtered one turns them on and still fills k from one probed list of four;
    the connection's mode is set only when it changes."""
    settings = ivfflat_settings(postgres_dsn, postgres_schema, pg_probes=1)
    with PostgresStore.open_for_write(postgres_dsn, INFO, settings) as store:
        for d in range(10):
            store.put_document(record(f"d{d}", 20), passages(d, 20), vectors(d, 20))
        store.commit()
        store.refresh_derived()
    q = vectors(4, 20)[2]
    with PostgresStore.open(postgres_dsn, settings) as reader:

        def mode() -> str:
            with reader._conn() as conn:
                return conn.execute("SHOW ivfflat.iterative_scan").fetchone()[0]

        assert mode() == "relaxed_order"  # as opened
        with reader._conn() as conn:  # 200 rows: make the planner use the lists anyway
            conn.execute("SET enable_seqscan = off")
        hits = reader.search(q, 8)
        assert len(hits) == 8 and hits[0].passage.doc_id == "d4" and mode() == "off"
        assert reader.search_ids(q, 8)[0].tolist() == [h.passage.passage_id for h in hits]
        # one kind of four (50 rows) in four lists: one list alone holds too few for 40
        kinds = {hits[-1].passage.kind}
        filtered = reader.search(q, 40, kinds=kinds)
        assert len(filtered) == 40 and {h.passage.kind for h in filtered} == kinds
        assert mode() == "relaxed_order"
        excluded = reader.search(q, 8, exclude_doc_ids={"d4"})
        assert len(excluded) == 8 and "d4" not in {h.passage.doc_id for h in excluded}
        assert mode() == "relaxed_order"
        assert reader.search(q, 8) == hits and mode() == "off"
