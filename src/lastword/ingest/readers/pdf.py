"""PDF: text per page with its page number, via pypdfium2 (PDFium, Apache-2.0/BSD)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.document import PageText, SourceDocument, content_hash

_HYPHEN_BREAK = re.compile(r"(\w)-\r?\n(?=[a-z])")


def _clean(text: str) -> str:
    text = text.replace("\x00", "").replace("\ufffe", "")
    text = _HYPHEN_BREAK.sub(r"\1", text)  # re-join words hyphenated at a line end
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_pdf(path: Path, data: bytes) -> Iterator[SourceDocument]:
    import pypdfium2 as pdfium

    source = str(path)
    if not data.strip():
        raise IngestError("empty file", source)
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise IngestError("not a PDF file (no %PDF header); is it corrupt or misnamed?", source)
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise IngestError("encrypted PDF: a password is required to read it", source) from None
        raise IngestError(f"corrupt or unreadable PDF ({message})", source) from None
    try:
        pages = []
        for number in range(len(pdf)):
            page = pdf[number]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_range()
                finally:
                    textpage.close()
            finally:
                page.close()
            pages.append(PageText(page=number + 1, text=_clean(text)))
        title = (pdf.get_metadata_dict().get("Title") or "").strip()
    except pdfium.PdfiumError as exc:
        raise IngestError(f"corrupt PDF: a page could not be read ({exc})", source) from None
    finally:
        pdf.close()
    if not pages:
        raise IngestError("the PDF has no pages", source)
    if not any(p.text.strip() for p in pages):
        raise IngestError(
            f"no extractable text in {len(pages)} page(s): an image-only (scanned) PDF needs "
            "OCR first, e.g. ocrmypdf",
            source,
        )
    yield SourceDocument(
        doc_id=source,
        title=title or path.stem,
        source=source,
        pages=tuple(pages),
        content_hash=content_hash(data),
        metadata={"file": path.name, "format": "pdf"},
    )
