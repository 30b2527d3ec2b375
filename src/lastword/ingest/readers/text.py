"""Plain text and Markdown: one page-less document per file, strict UTF-8."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.document import Reference, SourceDocument, content_hash, page_from_blocks
from lastword.ingest.structure import is_reference_heading, reference_entries


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


_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _blocks(text: str, markdown: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """(kind, text) per paragraph, and the lines of the references section.

    A Markdown heading ("# Results") is a heading block, shown as context but never a
    passage's text; a references heading (Markdown, or a short line alone in plain text)
    makes what follows ``references`` up to the next heading of the same or a higher level.
    """
    blocks: list[tuple[str, str]] = []
    reference_lines: list[str] = []
    in_references: int | None = None  # the level of the references heading
    for paragraph in _PARAGRAPH_BREAK.split(text):
        lines = [line for line in paragraph.split("\n") if line.strip()]
        if not lines:
            continue
        body: list[str] = []
        for line in [*lines, None]:
            if line is None:
                _flush(body, in_references is not None, blocks, reference_lines)
                break
            heading = _HEADING.match(line) if markdown else None
            plain_heading = not markdown and len(lines) == 1 and is_reference_heading(line.strip())
            if heading or plain_heading:
                _flush(body, in_references is not None, blocks, reference_lines)
                level = len(heading.group(1)) if heading else 1
                title = heading.group(2) if heading else line.strip()
                if in_references is not None and level <= in_references:
                    in_references = None
                if is_reference_heading(title):
                    in_references = level
                blocks.append(("heading", title))
            else:
                body.append(line)
    return blocks, reference_lines


def _flush(
    body: list[str], references: bool, blocks: list[tuple[str, str]], reference_lines: list[str]
) -> None:
    if body:
        if references:
            reference_lines.extend(body)
        blocks.append(("references" if references else "body", "\n".join(body)))
        body.clear()


def read_text(path: Path, data: bytes) -> Iterator[SourceDocument]:
    source = str(path)
    text = decode_utf8(data, source).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise IngestError("empty file", source)
    title = _title(text, path)
    markdown = path.suffix.lower() in (".md", ".markdown")
    blocks, reference_lines = _blocks(text, markdown)
    references = reference_entries(reference_lines, set())
    yield SourceDocument(
        doc_id=content_hash(data),
        title=title,
        source=source,
        pages=(page_from_blocks(None, blocks),),
        content_hash=content_hash(data),
        metadata={"file": path.name, "format": path.suffix.lower().lstrip(".")},
        references=tuple(Reference(e.number, e.text) for e in references),
    )
