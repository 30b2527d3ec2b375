"""Plain text and Markdown: one page-less document per file, strict UTF-8."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.document import PageText, SourceDocument, content_hash


def decode_utf8(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(
            f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it first, e.g. iconv -f latin1 -t utf-8",
            source,
        ) from None


def _title(text: str, path: Path) -> str:
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("#"):
            return line.lstrip("#").strip() or path.stem
        return line if len(line) <= 120 and path.suffix.lower() == ".txt" else path.stem
    return path.stem


_HEADING_MARK = re.compile(r"^#{1,6}[ \t]+", re.MULTILINE)


def read_text(path: Path, data: bytes) -> Iterator[SourceDocument]:
    source = str(path)
    text = decode_utf8(data, source).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise IngestError("empty file", source)
    title = _title(text, path)
    if path.suffix.lower() in (".md", ".markdown"):
        text = _HEADING_MARK.sub("", text)  # "# Results" is shown and embedded as "Results"
    yield SourceDocument(
        doc_id=source,
        title=title,
        source=source,
        pages=(PageText(page=None, text=text),),
        content_hash=content_hash(data),
        metadata={"file": path.name, "format": path.suffix.lower().lstrip(".")},
    )
