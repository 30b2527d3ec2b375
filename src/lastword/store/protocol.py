"""The store seam: where passages and their vectors live.

The embedded default is ``LocalStore`` (SQLite + a memory-mapped float32 matrix, an HNSW graph
past ``[store] ann_min_passages``); ``PostgresStore`` keeps the same data in PostgreSQL with
pgvector. ``lastword.store.open_store`` picks one from the settings; every caller holds a
``Store`` and nothing else. ``tests/store/contract.py`` is the behaviour every store must show.

Writes: ``put_document``/``remove_document`` open a batch, ``commit`` makes it durable all or
nothing (and changes the fingerprint), ``rollback`` drops it, ``refresh_derived`` brings search
structures (a matrix, a graph, a lexicon) up to the committed state. Only a store opened for
writing accepts writes, and only one writer at a time holds an index.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.result import Passage
from lastword.scope import Scope
from lastword.store.library import CollectionInfo


@dataclass(frozen=True)
class DocumentRecord:
    doc_id: str
    title: str
    source: str  # the file it came from (absolute path, internal: never shown), for --sync
    content_hash: str
    pages: int | None
    passages: int
    added_at: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class NewPassage:
    """A passage about to be stored (no id yet)."""

    page: int | None
    position: int
    char_start: int
    char_end: int
    text: str
    kind: str = "body"  # body | abstract | caption | table | front | references | heading
    #: sentences that address a reader or a model (``lastword.injection``), found at ingest
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReferenceEntry:
    """One entry of a document's reference list (its number, or its position when unnumbered)."""

    number: int
    text: str


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float


@dataclass(frozen=True)
class IndexInfo:
    embedder: EmbedderInfo
    documents: int
    passages: int
    fingerprint: str  # changes whenever the corpus changes
    created_at: str
    updated_at: str


#: the index format every backend writes and reads; 2: content-hash document ids, passage kinds
#: and flags, sources, reference lists. An index of another format is refused, never guessed at.
FORMAT_VERSION = "2"


def initial_meta(embedder: EmbedderInfo, now: str) -> dict[str, str]:
    """The meta rows every backend writes when it creates an index."""
    return {
        "format_version": FORMAT_VERSION,
        "embedder_name": embedder.name,
        "embedder_model": embedder.model,
        "embedder_dim": str(embedder.dim),
        "generation": "0",
        "fingerprint": "",
        "created_at": now,
        "updated_at": now,
    }


def check_vectors(vectors: np.ndarray, passages: int, dim: int) -> None:
    """A ``CorpusIndexError`` unless ``vectors`` is one float32 row of ``dim`` per passage."""
    if vectors.shape != (passages, dim) or vectors.dtype != np.float32:
        from lastword.errors import CorpusIndexError

        raise CorpusIndexError(
            f"vectors of shape {vectors.shape} {vectors.dtype} do not fit "
            f"{passages} passages of a {dim}-d float32 index"
        )


@runtime_checkable
class Store(Protocol):
    #: where the index is, for messages (a directory, or a database and schema; no password)
    location: str

    @property
    def embedder(self) -> EmbedderInfo:
        """The embedder whose vectors this index holds."""
        ...

    def info(self) -> IndexInfo: ...

    def search(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k passages by cosine similarity to a unit-norm query vector, best first.

        ``kinds``: only passages of these kinds (None: every kind). ``scope``: only passages
        of the documents it admits (collections, years, authors, tags, documents, the reader's
        permissions), applied inside the search, never to results fetched first.
        """
        ...

    def search_lexical(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k passages by BM25 (higher is better) for the question's terms, best first.

        Written in the same transaction as the passages; ``kinds`` and ``scope`` as in
        ``search``.
        """
        ...

    def search_ids(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``search`` as (passage ids int64, cosines float64), best first: no passage is built.

        The same passages, order and scores as ``search``; hybrid retrieval's candidate stage.
        """
        ...

    def search_lexical_ids(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``search_lexical`` as (passage ids int64, scores float64), best first."""
        ...

    def reading(self) -> AbstractContextManager[None]:
        """One question's reads: within, the store may decide once which committed generation
        its in-memory parts describe instead of at every call (the local store: one meta query
        instead of six). Nothing is locked; rows read by SQL are as fresh as ever."""
        ...

    def passage_texts(self, passage_ids: Sequence[int]) -> dict[int, str]:
        """``title + "\\n" + text`` of each of these passages (what re-ranking reads)."""
        ...

    def passage_docs(self, passage_ids: Sequence[int]) -> dict[int, str]:
        """The document id of each of these passages."""
        ...

    def cosines(self, query: np.ndarray, passage_ids: Sequence[int]) -> dict[int, float]:
        """The cosine similarity of each of these passages to a unit-norm query vector."""
        ...

    def documents(self) -> Iterator[DocumentRecord]: ...

    def document_text(self, doc_id: str) -> str:
        """All of a document's passages, in order."""
        ...

    def lexicon(self) -> tuple[int, dict[str, int]]:
        """(number of passages, passages containing each term): IDF for the lexical signal."""
        ...

    def document_hashes(self) -> dict[str, str]:
        """doc_id -> content hash of every stored document."""
        ...

    def document_sources(self) -> dict[str, str]:
        """doc_id -> the source it was read from (for --sync and removal)."""
        ...

    def passages_by_id(self, passage_ids: Sequence[int]) -> dict[int, Passage]: ...

    def export_document(self, doc_id: str) -> tuple[list[NewPassage], np.ndarray]:
        """A document's passages and vectors as they were put (to copy an index elsewhere)."""
        ...

    def put_document(
        self,
        record: DocumentRecord,
        passages: Sequence[NewPassage],
        vectors: np.ndarray,
        references: Sequence[ReferenceEntry] = (),
    ) -> None:
        """Add or replace a document with its passages, their vectors and its reference list
        (not yet durable). Replacing a document forgets its sources."""
        ...

    def add_source(self, doc_id: str, source: str, path: str) -> None:
        """Record that ``doc_id`` is (also) at ``source``; ``path`` is what users see."""
        ...

    def remove_source(self, source: str) -> str | None:
        """Forget one path; returns the document left without any path (to remove), if any."""
        ...

    def sources(self) -> dict[str, str]:
        """Absolute source path -> doc_id, for every recorded path (internal)."""
        ...

    def source_paths(self, doc_id: str) -> list[tuple[str, str]]:
        """(source, shown path) of every recorded path of one document, oldest first."""
        ...

    def kind_counts(self) -> dict[str, int]:
        """Passages of each kind."""
        ...

    def read_meta(self, key: str) -> str | None:
        """One row of the index's key/value meta (None when absent)."""
        ...

    def write_meta(self, key: str, value: str) -> None:
        """Store one meta row durably now, outside any batch (writers only, with no batch
        open). The corpus's generation and fingerprint do not change."""
        ...

    def remove_document(self, doc_id: str) -> None: ...

    def references(self, doc_ids: Collection[str]) -> dict[str, list[ReferenceEntry]]:
        """The reference-list entries of these documents (a document without any: absent)."""
        ...

    # ----------------------------------------------------------------- the library
    def scope_documents(self, scope: Scope | None) -> list[str] | None:
        """The ids of the documents ``scope`` admits, sorted; None when it admits all."""
        ...

    def collections(self, scope: Scope | None = None) -> list[CollectionInfo]:
        """Every collection with its documents' count; for a reader (``scope.reader``) only
        those they may read, counting only documents they may see, no readers listed."""
        ...

    def document_collections(self, doc_ids: Collection[str]) -> dict[str, list[str]]:
        """doc_id -> the collections it belongs to."""
        ...

    def add_to_collection(self, name: str, doc_ids: Sequence[str]) -> int:
        """Put documents in a collection (created if new), in the open batch; how many
        memberships were new."""
        ...

    def remove_from_collection(self, name: str, doc_ids: Sequence[str] | None = None) -> int:
        """Take documents out of a collection (``None``: delete the collection)."""
        ...

    def set_readers(self, name: str, principals: Sequence[str], *, add: bool = True) -> None:
        """Give (``add``) or take away readers (``user:``/``group:``/``room:``) of a collection."""
        ...

    def update_document(self, doc_id: str, title: str, metadata: dict[str, Any]) -> bool:
        """Replace a document's title and metadata in the open batch (nothing re-embedded)."""
        ...

    def commit(self) -> None:
        """Make every change since the last commit durable, all or nothing."""
        ...

    def rollback(self) -> None:
        """Drop every change since the last commit."""
        ...

    def refresh_derived(self) -> None:
        """Bring derived search structures up to the committed state (writers, after commits)."""
        ...

    def close(self) -> None:
        """Release the store; an uncommitted batch is rolled back."""
        ...

    def __enter__(self) -> Store: ...

    def __exit__(self, *exc: object) -> None: ...
