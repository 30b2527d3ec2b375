"""BM25 over in-memory postings (store/bm25.py) gives FTS5's own scores, to the last bit."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from lastword.embed.protocol import EmbedderInfo, normalise
from lastword.ingest import ingest_paths
from lastword.settings import IngestSettings
from lastword.store import bm25, lexical
from lastword.store.local import LocalStore
from lastword.store.protocol import NewPassage

ABSTRACTS = 600
CLAIMS = 120


class RandomVectors:
    """Random unit vectors: these tests read the lexical side only."""

    info = EmbedderInfo(name="random", model="random-8", dim=8)

    def embed_documents(self, texts):
        rng = np.random.default_rng(len(texts))
        return normalise(rng.normal(size=(len(texts), 8))).astype(np.float32)

    embed_queries = embed_documents


@pytest.fixture(scope="module")
def scifact(tmp_path_factory, datasets_dir):
    """A lexical index of real SciFact abstracts, and real claims to search it with."""
    from lastword.evaluate.datasets.scifact import corpus_record

    folder = datasets_dir / "scifact"
    rows = (folder / "corpus.jsonl").read_text().splitlines()[:ABSTRACTS]
    path = tmp_path_factory.mktemp("bm25") / "abstracts.jsonl"
    path.write_text("".join(json.dumps(corpus_record(json.loads(r))) + "\n" for r in rows))
    index = path.parent / "index"
    ingest_paths([path], index, RandomVectors(), IngestSettings())
    claims = (folder / "claims_train.jsonl").read_text().splitlines()[:CLAIMS]
    return index, [json.loads(c)["claim"] for c in claims]


def fts5(store: LocalStore, text: str, k: int, **where) -> tuple[list[int], list[float]]:
    rows = lexical.search(store._conn, text, k, **where)
    return [pid for pid, _ in rows], [score for _, score in rows]


def test_the_same_passages_order_and_scores_as_fts5(scifact):
    index, claims = scifact
    odd = ["IL-6 and TNF-alpha at 2.5 mg/kg", "BRCA1/2 5mg", "the of and", "naïve T-cells"]
    with LocalStore.open(index) as store:
        docs = [r.doc_id for r in store.documents()][:40]
        for n, claim in enumerate([*odd, *claims]):
            for k in (1, 10, 100):
                ids, scores = store.search_lexical_ids(claim, k)
                assert (ids.tolist(), scores.tolist()) == fts5(store, claim, k), claim
            if n > 8:
                continue  # FTS5 with filters takes ~0.7 s a query here: 9 are enough
            where = {"exclude_doc_ids": docs[:20], "kinds": ["body", "abstract"]}
            ids, scores = store.search_lexical_ids(claim, 50, **where)
            assert (ids.tolist(), scores.tolist()) == fts5(store, claim, 50, **where)
        assert store._postings is not None  # the postings answered, not the FTS5 query


def test_postings_are_kept_beside_the_index_and_follow_its_generation(scifact, tmp_path):
    import shutil

    index = tmp_path / "index"
    shutil.copytree(scifact[0], index)
    for old in index.glob("postings-*"):
        old.unlink()
    with LocalStore.open(index) as store:
        first = store.search_lexical_ids("statin myopathy", 5)
        generation = store.generation
    saved = index / f"postings-{generation}.npz"
    assert saved.is_file()
    loaded = bm25.Postings.load(saved)
    assert loaded is not None and loaded.row_count == len(loaded.ids) > ABSTRACTS
    saved.write_bytes(saved.read_bytes()[:1000])  # damaged: built again, same answer
    assert bm25.Postings.load(saved) is None
    with LocalStore.open(index) as store:
        again = store.search_lexical_ids("statin myopathy", 5)
        assert again[0].tolist() == first[0].tolist()
    with LocalStore.open_for_write(index, RandomVectors.info) as store:
        new = [NewPassage(None, 0, 0, 40, "Statin myopathy statin myopathy statins.")]
        store.put_document(_record("new-doc"), new, RandomVectors().embed_documents(["x"]))
        # inside the open batch the FTS5 query answers: it sees the uncommitted passage
        ids, _ = store.search_lexical_ids("statin myopathy", 1)
        assert store.passages_by_id(ids.tolist())[int(ids[0])].doc_id == "new-doc"
        store.commit()
        store.refresh_derived()
        ids, scores = store.search_lexical_ids("statin myopathy", 5)
        assert (ids.tolist(), scores.tolist()) == fts5(store, "statin myopathy", 5)
        assert store.passages_by_id(ids[:1].tolist())[int(ids[0])].doc_id == "new-doc"
    assert not saved.exists()  # the writer removed the older generation's file
    assert (index / f"postings-{generation + 1}.npz").is_file()


def test_a_token_fts5_would_cut_apart_runs_the_fts5_query(scifact):
    index, _ = scifact
    with LocalStore.open(index) as store:
        stemmer = bm25.Stemmer()
        assert stemmer.phrases(store._conn, "Statins and myopathy") == ["statin", "myopathi"]
        assert stemmer.phrases(store._conn, "the of") == []
        stemmer._known["statins"] = ("statin", "s")  # as if FTS5 made two terms of it
        assert stemmer.phrases(store._conn, "statins") is None
        store._stemmer = stemmer
        ids, scores = store.search_lexical_ids("statins trial", 10)
        assert (ids.tolist(), scores.tolist()) == fts5(store, "statins trial", 10)


def test_an_index_too_big_for_memory_keeps_the_fts5_query(scifact, tmp_path, monkeypatch):
    import shutil

    index = tmp_path / "index"
    shutil.copytree(scifact[0], index)
    for old in index.glob("postings-*"):
        old.unlink()
    monkeypatch.setattr(bm25, "MAX_PASSAGES", 100)
    with LocalStore.open(index) as store:
        ids, scores = store.search_lexical_ids("statin myopathy trial", 20)
        assert (ids.tolist(), scores.tolist()) == fts5(store, "statin myopathy trial", 20)
        assert store._postings is None
    assert not list(index.glob("postings-*"))


def test_a_read_only_older_index_and_another_tokenisation(scifact, tmp_path, monkeypatch):
    """Postings of a lexical table built in memory (a read-only index made before the lexical
    index existed) score as FTS5 does; postings saved under another tokenisation are not read."""
    import shutil

    index = tmp_path / "index"
    shutil.copytree(scifact[0], index)
    with sqlite3.connect(index / "index.sqlite") as conn:
        conn.execute("DROP TRIGGER passages_fts_delete")
        conn.execute("DROP TABLE passages_fts")
        conn.execute("DELETE FROM meta WHERE key = ?", (lexical.META_KEY,))
    conn = sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True)
    assert lexical.ready(conn) == "temp"
    postings = bm25.Postings.build(conn, "temp")
    phrases = bm25.Stemmer().phrases(conn, "statin myopathy in older adults")
    ids, scores = postings.search(phrases, 10)
    rows = lexical.search(conn, "statin myopathy in older adults", 10, schema="temp")
    assert (ids.tolist(), scores.tolist()) == ([r[0] for r in rows], [r[1] for r in rows])
    saved = tmp_path / "postings-1.npz"
    postings.save(saved)
    assert bm25.Postings.load(saved) is not None
    monkeypatch.setattr(bm25, "LEXICAL_VERSION", "another")
    assert bm25.Postings.load(saved) is None


def test_postings_by_hand():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE passages (id INTEGER PRIMARY KEY, kind TEXT)")
    conn.execute(
        "CREATE VIRTUAL TABLE passages_fts USING fts5(tokens, tokenize='porter unicode61')"
    )
    conn.executemany(
        "INSERT INTO passages_fts(rowid, tokens) VALUES(?, ?)", [(1, "a b b"), (2, "b c")]
    )
    conn.executemany("INSERT INTO passages VALUES(?, ?)", [(1, "body"), (2, "caption")])
    postings = bm25.Postings.build(conn)
    assert postings.ids.tolist() == [1, 2] and postings.lengths.tolist() == [3.0, 2.0]
    ids, scores = postings.search(["b"], 5)
    assert ids.tolist() == [1, 2] and scores[0] > scores[1] > 0
    assert postings.search(["b"], 5, allowed=postings.of_kinds(["caption"]))[0].tolist() == [2]
    assert postings.search(["b"], 5, excluded=np.array([1, 2]))[0].tolist() == []
    assert postings.search(["zzz"], 5)[0].tolist() == []


def _record(doc_id: str):
    from lastword.store.protocol import DocumentRecord

    return DocumentRecord(
        doc_id=doc_id,
        title="A new one",
        source=f"{doc_id}.txt",
        content_hash=doc_id,
        pages=None,
        passages=1,
        added_at="2026-12-01T00:00:00+00:00",
        metadata={},
    )
