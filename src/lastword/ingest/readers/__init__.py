"""Document readers, one per format, chosen by file suffix.

A reader turns one file into ``SourceDocument``s. A file that cannot be read at all raises
``IngestError``; a JSONL file yields an ``IngestError`` for a bad line and goes on, so one
broken record never costs the rest of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.document import SourceDocument
from lastword.ingest.readers.jsonl import read_jsonl
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.readers.text import read_text
from lastword.settings import IngestSettings

ReadOutcome = SourceDocument | IngestError
Reader = Callable[[Path, bytes], Iterator[ReadOutcome]]

READERS: dict[str, Reader] = {
    ".pdf": read_pdf,
    ".txt": read_text,
    ".md": read_text,
    ".markdown": read_text,
    ".jsonl": read_jsonl,
}


def reader_for(
    path: Path,
    settings: IngestSettings | None = None,
    on_page: Callable[[str, int, int], None] | None = None,
) -> Reader | None:
    """The reader for a file's suffix, with the settings it reads (PDF: ``join_across_pages``,
    ``subheadings``, ``ocr``...); ``on_page(source, done, total)`` counts pages read by OCR."""
    reader = READERS.get(path.suffix.lower())
    if reader is read_pdf and settings is not None:
        from lastword.ingest.ocr import options_from

        return partial(
            read_pdf,
            join_across_pages=settings.join_across_pages,
            subheadings=settings.subheadings,
            subheading_paragraphs=settings.subheading_paragraphs,
            ocr=settings.ocr,
            ocr_options=options_from(settings),
            on_page=on_page,
        )
    return reader


__all__ = ["READERS", "ReadOutcome", "Reader", "reader_for"]
