"""Document readers, one per format, chosen by file suffix.

A reader turns one file into ``SourceDocument``s. A file that cannot be read at all raises
``IngestError``; a JSONL file yields an ``IngestError`` for a bad line and goes on, so one
broken record never costs the rest of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.document import SourceDocument
from lastword.ingest.readers.jsonl import read_jsonl
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.readers.text import read_text

ReadOutcome = SourceDocument | IngestError
Reader = Callable[[Path, bytes], Iterator[ReadOutcome]]

READERS: dict[str, Reader] = {
    ".pdf": read_pdf,
    ".txt": read_text,
    ".md": read_text,
    ".markdown": read_text,
    ".jsonl": read_jsonl,
}


def reader_for(path: Path) -> Reader | None:
    return READERS.get(path.suffix.lower())


__all__ = ["READERS", "ReadOutcome", "Reader", "reader_for"]
