"""JSON Lines: one document per line.

    {"id": str, "title": str, "text": str, "metadata": {...}}
    {"id": str, "title": str, "pages": [str, ...], "metadata": {...}}   # page i+1 is pages[i]

A bad line yields an ``IngestError`` naming the file and line; the other lines go on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lastword.errors import IngestError
from lastword.ingest.document import PageText, SourceDocument, content_hash
from lastword.ingest.readers.text import decode_utf8
from lastword.text_check import invalid_unicode_at

_KEYS = {"id", "title", "text", "pages", "metadata"}


def _record(obj: Any, source: str, line: int) -> SourceDocument:
    if not isinstance(obj, dict):
        raise IngestError("expected a JSON object", source, line)
    unknown = set(obj) - _KEYS
    if unknown:
        raise IngestError(
            f"unknown field(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}", source, line
        )
    doc_id, title = obj.get("id"), obj.get("title", "")
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise IngestError('"id" must be a non-empty string', source, line)
    if not isinstance(title, str):
        raise IngestError('"title" must be a string', source, line)
    metadata = obj.get("metadata", {})
    if not isinstance(metadata, dict):
        raise IngestError('"metadata" must be an object', source, line)
    if ("text" in obj) == ("pages" in obj):
        raise IngestError('give exactly one of "text" or "pages"', source, line)
    if "text" in obj:
        if not isinstance(obj["text"], str):
            raise IngestError('"text" must be a string', source, line)
        pages: tuple[PageText, ...] = (PageText(page=None, text=obj["text"]),)
    else:
        raw = obj["pages"]
        if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
            raise IngestError('"pages" must be a list of strings', source, line)
        pages = tuple(PageText(page=i + 1, text=p) for i, p in enumerate(raw))
    if not any(p.text.strip() for p in pages):
        raise IngestError("the document has no text", source, line)
    canonical = json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return SourceDocument(
        doc_id=doc_id,
        title=title.strip() or doc_id,
        source=source,
        pages=pages,
        content_hash=content_hash(canonical),
        metadata=metadata,
        paragraphs_are_passages=True,
    )


def read_jsonl(path: Path, data: bytes) -> Iterator[SourceDocument | IngestError]:
    source = str(path)
    text = decode_utf8(data, source)
    seen: set[str] = set()
    any_line = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        any_line = True
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield IngestError(f"malformed JSON ({exc.msg} at column {exc.colno})", source, number)
            continue
        if invalid_unicode_at(json.dumps(obj, ensure_ascii=False)) is not None:
            yield IngestError("a string is not valid Unicode (a lone surrogate)", source, number)
            continue
        try:
            document = _record(obj, source, number)
        except IngestError as exc:
            yield exc
            continue
        if document.doc_id in seen:
            yield IngestError(f'duplicate id "{document.doc_id}" in this file', source, number)
            continue
        seen.add(document.doc_id)
        yield document
    if not any_line:
        raise IngestError("empty file", source)
