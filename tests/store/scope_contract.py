"""What every store must do with a ``Scope``: a base class of tests, subclassed per backend.

Thirty documents in two collections with readers, years, authors and tags; every search (dense,
lexical, whole hits and ids) under every kind of filter must return exactly what an exact
search over the admitted documents alone returns, and nothing of any other document.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lastword.errors import InputError
from lastword.scope import Reader, Scope, make_scope
from lastword.store import Store
from tests.store.contract import Where, passages, record, vectors

DOCS = 30
PER_DOC = 20
A = [f"d{i}" for i in range(10)]  # collection A, read by alice
B = [f"d{i}" for i in range(10, 30)]  # collection B, read by bob and the group lab


def _meta(i: int) -> dict:
    return {"year": 2000 + i, "authors": [f"Ann Auth{i % 3}", "Zed Common"], "tags": [f"t{i % 2}"]}


def fill(store: Store) -> None:
    for i in range(DOCS):
        doc = f"d{i}"
        store.put_document(
            replace(record(doc, PER_DOC), metadata=_meta(i)),
            passages(i, PER_DOC),
            vectors(i, PER_DOC),
        )
    store.commit()
    store.add_to_collection("A", A)
    store.add_to_collection("B", B)
    store.set_readers("A", ["user:alice"])
    store.set_readers("B", ["user:bob", "group:lab"])
    store.commit()
    store.refresh_derived()


def admitted(scope: Scope) -> set[str]:
    """The documents a scope admits, computed here from the same facts, without the store."""
    out = set()
    for i in range(DOCS):
        doc, meta = f"d{i}", _meta(i)
        where = {"A"} if doc in A else {"B"}
        if scope.collections and not scope.collections & where:
            continue
        if scope.years:
            lo, hi = scope.years
            if (lo and meta["year"] < lo) or (hi and meta["year"] > hi):
                continue
        names = [a.lower() for a in meta["authors"]]
        if scope.authors and not any(a.lower() in n for a in scope.authors for n in names):
            continue
        if scope.tags and not {t.lower() for t in scope.tags} & set(meta["tags"]):
            continue
        if scope.doc_ids and doc not in scope.doc_ids:
            continue
        r = scope.reader
        if r is not None and not r.admin:
            readers = {"A": {"user:alice"}, "B": {"user:bob", "group:lab"}}
            if not any(readers[c] & r.principals() for c in where):
                continue
        out.add(doc)
    return out


SCOPES = [
    make_scope(collections=["A"]),
    make_scope(collections=["B"]),
    make_scope(collections=["A", "B"]),
    make_scope(years="2005..2012"),
    make_scope(years="2025.."),
    make_scope(authors=["auth1"]),
    make_scope(tags=["T1"]),
    make_scope(doc_ids=["d3", "d17"]),
    make_scope(collections=["B"], years="..2015", tags=["t0"]),
    Scope(reader=Reader("alice")),
    Scope(reader=Reader("bob")),
    Scope(reader=Reader("carol", groups=frozenset({"lab"}))),
    Scope(reader=Reader("eve")),
    Scope(reader=Reader("root", admin=True)),
    make_scope(collections=["B"], reader=Reader("alice")),
]


class ScopeContract:
    @pytest.fixture
    def where(self) -> Where:
        raise NotImplementedError

    @pytest.fixture
    def store(self, where: Where):
        with where.writer() as writer:
            fill(writer)
        with where.reader() as reader:
            yield reader

    def _exact(self, store: Store, query: np.ndarray, docs: set[str], k: int) -> list[int]:
        """The top k of an exact search over the admitted documents' passages alone."""
        ids, _ = store.search_ids(query, DOCS * PER_DOC)  # every passage, exactly ranked
        owners = store.passage_docs(ids.tolist())
        return [pid for pid in ids.tolist() if owners[pid] in docs][:k]

    def test_dense_search_is_the_exact_search_of_the_scope(self, store: Store):
        for scope in SCOPES:
            docs = admitted(scope)
            found = store.scope_documents(scope)
            assert set([f"d{i}" for i in range(DOCS)] if found is None else found) == docs
            for seed in (101, 102, 103):
                query = vectors(seed, 1)[0]
                ids, _ = store.search_ids(query, 8, scope=scope)
                assert ids.tolist() == self._exact(store, query, docs, 8), scope
                hits = store.search(query, 8, scope=scope)
                assert [h.passage.passage_id for h in hits] == ids.tolist()
                assert {h.passage.doc_id for h in hits} <= docs

    def test_lexical_search_stays_inside_the_scope(self, store: Store):
        everything, _ = store.search_lexical_ids("statin insulin aspirin", 10_000)
        owners = store.passage_docs(everything.tolist())
        for scope in SCOPES:
            docs = admitted(scope)
            expected = [pid for pid in everything.tolist() if owners[pid] in docs][:8]
            ids, _ = store.search_lexical_ids("statin insulin aspirin", 8, scope=scope)
            assert set(ids.tolist()) == set(expected), scope
            hits = store.search_lexical("statin insulin aspirin", 8, scope=scope)
            assert {h.passage.doc_id for h in hits} <= docs

    def test_scope_with_kinds_and_exclusions(self, store: Store):
        scope = make_scope(collections=["B"])
        query = vectors(7, 1)[0]
        ids, _ = store.search_ids(query, 8, ["d11", "d12"], ["body"], scope=scope)
        found = store.passages_by_id(ids.tolist())
        assert ids.size == 8
        assert all(p.doc_id in B and p.doc_id not in ("d11", "d12") for p in found.values())
        assert all(p.kind == "body" for p in found.values())

    def test_collections_seen_by_a_reader(self, store: Store):
        everything = {c.name: c for c in store.collections()}
        assert everything["A"].documents == 10 and everything["B"].documents == 20
        assert everything["B"].readers == ("group:lab", "user:bob")
        alice = store.collections(Scope(reader=Reader("alice")))
        assert [(c.name, c.documents, c.readers) for c in alice] == [("A", 10, ())]
        assert store.collections(Scope(reader=Reader("eve"))) == []

    def test_writes_move_documents_between_collections(self, where: Where):
        with where.writer() as writer:
            fill(writer)
            writer.remove_from_collection("A", ["d0"])
            writer.add_to_collection("B", ["d0"])
            writer.commit()
            writer.refresh_derived()
            assert writer.document_collections(["d0", "d1"]) == {"d0": ["B"], "d1": ["A"]}
            bob = Scope(reader=Reader("bob"))
            assert "d0" in writer.scope_documents(bob)
            assert "d0" not in writer.scope_documents(Scope(reader=Reader("alice")))
            writer.remove_from_collection("A")  # the collection itself
            writer.commit()
            assert {c.name for c in writer.collections()} == {"B"}
            with pytest.raises(InputError):
                writer.set_readers("A", ["user:alice"])
            # a document in no collection with readers: open to readers, unless told otherwise
            assert "d1" in writer.scope_documents(Scope(reader=Reader("eve")))
            closed = Reader("eve", open_documents=False)
            assert "d1" not in (writer.scope_documents(Scope(reader=closed)) or [])

    def test_metadata_update_changes_filters_not_vectors(self, where: Where):
        with where.writer() as writer:
            fill(writer)
            before = writer.export_document("d4")[1]
            assert writer.update_document("d4", "Renamed", {"year": 1990, "authors": ["X Y"]})
            writer.commit()
            writer.refresh_derived()
            assert writer.scope_documents(make_scope(years="..1999")) == ["d4"]
            assert np.array_equal(writer.export_document("d4")[1], before)
            query = vectors(4, PER_DOC)[0]
            hit = writer.search(query, 1, scope=make_scope(doc_ids=["d4"]))[0]
            assert hit.passage.title == "Renamed" and hit.passage.metadata["year"] == 1990
