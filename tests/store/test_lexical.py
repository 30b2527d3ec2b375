"""The lexical index: tokenisation, BM25 search, the same transaction as the passages, upgrade."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from lastword.embed.protocol import normalise
from lastword.store import lexical
from lastword.store.lexical import lexical_tokens
from lastword.store.local import LocalStore
from lastword.store.protocol import NewPassage
from tests.store.test_local_store import INFO, record

TEXTS = {
    "brca": ["BRCA1/2 carriers had more IL-6 at 2.5 mg/kg.", "Follow-up lasted 5 years."],
    "trust": ["TrustRank separates good pages from spam.", "Bohnet parsed the corpus."],
    "statin": ["Statins and muscle symptoms in older adults.", "Myopathy was rare."],
    "vitd": ["Vitamin D at 10,000 IU daily.", "Bone density rose in the treated arm."],
}


def fill(index: Path, texts: dict[str, list[str]] = TEXTS) -> None:
    rng = np.random.default_rng(3)
    with LocalStore.open_for_write(index, INFO) as store:
        for doc_id, passages in texts.items():
            new = [
                NewPassage(page=None, position=i, char_start=0, char_end=len(t), text=t)
                for i, t in enumerate(passages)
            ]
            store.put_document(record(doc_id, len(new)), new, normalise(rng.normal(size=(2, 16))))
        store.commit()
        store.refresh_matrix()


def fts_rows(index: Path) -> int:
    with sqlite3.connect(index / "index.sqlite") as conn:
        return conn.execute("SELECT COUNT(*) FROM passages_fts").fetchone()[0]


def test_tokens_keep_codes_units_and_hyphenated_terms():
    tokens = lexical_tokens("IL-6 and TNF-α after 5 mg, BRCA1/2, 2.5mg/kg, COVID-19.")
    for kept in ("il6", "il", "tnfα", "5mg", "brca1", "brca12", "2d5mg", "2d5", "covid19"):
        assert kept in tokens
    assert "and" not in tokens  # stopwords do not go into the index
    # The question and the passage are cut the same way: "5mg" and "5 mg" meet.
    assert "5mg" in lexical_tokens("a 5mg dose") and "5mg" in lexical_tokens("5-mg dose")


def test_rare_names_and_codes_are_found(tmp_path: Path):
    fill(tmp_path)
    with LocalStore.open(tmp_path) as store:
        assert store.search_lexical("What is TrustRank?", 1)[0].passage.doc_id == "trust"
        assert store.search_lexical("IL6 levels", 1)[0].passage.doc_id == "brca"
        assert store.search_lexical("10000 IU vitamin", 1)[0].passage.doc_id == "vitd"
        hits = store.search_lexical("statin myopathy", 4)
        assert {h.passage.doc_id for h in hits} == {"statin"} and hits[0].score > 0
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        excluded = store.search_lexical("TrustRank Bohnet statins", 4, exclude_doc_ids={"trust"})
        assert {h.passage.doc_id for h in excluded} == {"statin"}
        assert store.search_lexical("the of and", 4) == []  # nothing but stopwords
        assert store.search_lexical('"NEAR( OR *', 4) == []  # no FTS5 syntax leaks through
        assert store.search_lexical("TrustRank", 4, kinds={"references"}) == []


def test_replacing_and_removing_documents_keeps_the_index_in_step(tmp_path: Path):
    fill(tmp_path)
    assert fts_rows(tmp_path) == 8
    fill(tmp_path, {"trust": ["PageRank only.", "Nothing else."]})  # replaces the document
    with LocalStore.open_for_write(tmp_path, INFO) as store:
        assert store.search_lexical("TrustRank", 4) == []
        assert store.search_lexical("PageRank", 4)[0].passage.doc_id == "trust"
        store.remove_document("statin")
        store.rollback()  # a rolled-back batch leaves both as they were
        assert store.search_lexical("statins", 1)[0].passage.doc_id == "statin"
        store.remove_document("statin")
        store.commit()
        assert store.search_lexical("statins", 1) == []
    assert fts_rows(tmp_path) == 6


def drop_lexical_index(index: Path) -> None:
    """Make the index look like one built before the lexical index existed."""
    with sqlite3.connect(index / "index.sqlite") as conn:
        conn.execute("DROP TRIGGER passages_fts_delete")
        conn.execute("DROP TABLE passages_fts")
        conn.execute("DELETE FROM meta WHERE key = ?", (lexical.META_KEY,))


def test_an_older_index_gets_its_lexical_index_on_first_use(tmp_path: Path):
    fill(tmp_path)
    drop_lexical_index(tmp_path)
    with LocalStore.open(tmp_path) as store:  # a reader, on a writable file: built in place
        assert store.search_lexical("TrustRank", 1)[0].passage.doc_id == "trust"
    assert fts_rows(tmp_path) == 8
    drop_lexical_index(tmp_path)
    LocalStore.open_for_write(tmp_path, INFO).close()  # a writer builds it when it opens
    assert fts_rows(tmp_path) == 8


def test_a_read_only_older_index_is_searched_from_memory(tmp_path: Path):
    fill(tmp_path)
    drop_lexical_index(tmp_path)
    uri = f"file:{tmp_path / 'index.sqlite'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        assert lexical.ready(conn) == "temp"
        found = lexical.search(conn, "Bohnet", 1, schema="temp")
        doc = conn.execute("SELECT doc_id FROM passages WHERE id = ?", (found[0][0],)).fetchone()
        assert doc[0] == "trust"
    assert not lexical.is_built(sqlite3.connect(tmp_path / "index.sqlite"))  # file untouched
