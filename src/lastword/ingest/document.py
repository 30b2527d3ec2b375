"""What a reader produces: a document's text, page by page, before it is split into passages."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PageText:
    page: int | None  # 1-based page number, None for sources without pages
    text: str


@dataclass(frozen=True)
class SourceDocument:
    doc_id: str
    title: str
    source: str  # the file it came from
    pages: tuple[PageText, ...]
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)
    #: JSONL text: each blank-line paragraph is its own passage (the author chose the breaks)
    paragraphs_are_passages: bool = False

    @property
    def paged(self) -> bool:
        return any(p.page is not None for p in self.pages)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
