"""What a reader produces: a document's text, page by page, before it is split into passages."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Block:
    """A span of a page's text with one kind (body, abstract, caption, table, front,
    references, heading). Headings are kept for context but never become passage text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class PageText:
    page: int | None  # 1-based page number, None for sources without pages
    text: str
    #: typed spans of ``text``; empty: the whole text is one body block
    blocks: tuple[Block, ...] = ()


@dataclass(frozen=True)
class Reference:
    """One entry of a document's reference list: its number (or position) and text."""

    number: int
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
    references: tuple[Reference, ...] = ()
    #: pages read by OCR: (page, its words as (text, confidence) in reading order); not stored,
    #: read once by ``ingest.ocr.marks`` to mark each passage's confidence
    ocr_words: tuple[tuple[int, tuple[tuple[str, float], ...]], ...] = ()

    @property
    def paged(self) -> bool:
        return any(p.page is not None for p in self.pages)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def page_from_blocks(page: int | None, blocks: list[tuple[str, str]]) -> PageText:
    """A page's text as its blocks' texts joined by blank lines, with the spans recorded."""
    parts: list[str] = []
    spans: list[Block] = []
    offset = 0
    for kind, text in blocks:
        text = text.strip()
        if not text:
            continue
        if parts:
            offset += 2
        spans.append(Block(kind, offset, offset + len(text)))
        parts.append(text)
        offset += len(text)
    return PageText(page=page, text="\n\n".join(parts), blocks=tuple(spans))
