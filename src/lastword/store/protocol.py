"""The store seam: where passages and their vectors live.

The embedded default is ``LocalStore`` (SQLite + a memory-mapped float32 matrix); a server
engine (pgvector, Qdrant) implements the same protocol.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.result import Passage


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


@runtime_checkable
class Store(Protocol):
    def info(self) -> IndexInfo: ...

    def search(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
    ) -> list[Hit]:
        """Top-k passages by cosine similarity to a unit-norm query vector, best first.

        ``kinds``: only passages of these kinds (None: every kind).
        """
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

    def put_document(
        self, record: DocumentRecord, passages: Sequence[NewPassage], vectors: np.ndarray
    ) -> None:
        """Add or replace a document with its passages and their vectors (not yet durable)."""
        ...

    def remove_document(self, doc_id: str) -> None: ...

    def references(self, doc_ids: Collection[str]) -> dict[str, list[ReferenceEntry]]:
        """The reference-list entries of these documents (a document without any: absent)."""
        ...

    def commit(self) -> None:
        """Make every change since the last commit durable, all or nothing."""
        ...

    def close(self) -> None: ...
