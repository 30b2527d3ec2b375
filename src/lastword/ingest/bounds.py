"""Bounds on what one file may cost to read, and the way to stop an ingest on request.

A crafted file must not hold the index: a PDF page with tens of thousands of characters, a
file of thousands of pages, a few hundred KB of Flate streams that inflate to gigabytes, or a
file that simply takes too long. Each bound crossed is one ``IngestError`` naming the file and
the ``[ingest]`` setting to raise; the rest of the ingest goes on.

``reading(source, bounds, cancel)`` is entered around each file (``ingest.run``); readers call
``checkpoint()`` between pages (and long loops call it now and then), which raises when the
file's time is up or the ingest was cancelled (``IngestCancelled``, which stops the whole run:
every batch committed before stays). Outside ``reading`` the page bounds still apply, with the
defaults, and ``checkpoint`` does nothing.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from lastword.errors import IngestCancelled, IngestError

MB = 1024 * 1024


@dataclass(frozen=True)
class Bounds:
    max_page_chars: int = 50_000
    max_pages: int = 5_000
    max_decoded_mb: float = 16.0
    max_image_mb: float = 256.0
    max_seconds: float = 300.0

    @classmethod
    def from_settings(cls, settings: object) -> Bounds:
        """The bounds of an ``IngestSettings`` (its ``max_*`` fields)."""
        return cls(
            max_page_chars=settings.max_page_chars,  # type: ignore[attr-defined]
            max_pages=settings.max_pages,  # type: ignore[attr-defined]
            max_decoded_mb=settings.max_decoded_mb,  # type: ignore[attr-defined]
            max_image_mb=settings.max_image_mb,  # type: ignore[attr-defined]
            max_seconds=settings.max_seconds_per_file,  # type: ignore[attr-defined]
        )


@dataclass
class _Reading:
    source: str
    bounds: Bounds
    deadline: float
    cancel: threading.Event | None


_current: ContextVar[_Reading | None] = ContextVar("lastword_ingest_reading", default=None)


@contextlib.contextmanager
def reading(source: str, bounds: Bounds, cancel: threading.Event | None = None) -> Iterator[None]:
    """The bounds (and the cancel flag) in force while ``source`` is read."""
    token = _current.set(_Reading(source, bounds, time.monotonic() + bounds.max_seconds, cancel))
    try:
        yield
    finally:
        _current.reset(token)


def check_cancelled(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise IngestCancelled("the ingest was cancelled; every batch committed before stays")


def checkpoint() -> None:
    """Raise when the file being read is over its time, or the ingest was cancelled."""
    current = _current.get()
    if current is None:
        return
    check_cancelled(current.cancel)
    if time.monotonic() > current.deadline:
        raise IngestError(
            f"reading it took longer than {current.bounds.max_seconds:g} s; not indexed "
            "([ingest] max_seconds_per_file)",
            current.source,
        )


def _bounds() -> tuple[Bounds, str]:
    current = _current.get()
    return (Bounds(), "") if current is None else (current.bounds, current.source)


def check_pages(pages: int, source: str) -> None:
    bounds, _ = _bounds()
    if pages > bounds.max_pages:
        raise IngestError(
            f"{pages} pages, over the bound of {bounds.max_pages}; not indexed "
            "([ingest] max_pages)",
            source,
        )


def check_page_chars(chars: int, page: int, source: str = "") -> None:
    bounds, current = _bounds()
    if chars > bounds.max_page_chars:
        raise IngestError(
            f"page {page} holds {chars} characters, over the bound of {bounds.max_page_chars}; "
            "not indexed ([ingest] max_page_chars)",
            source or current or None,
        )
    checkpoint()


_STREAM = re.compile(rb"stream\r?\n")
_CHUNK = 64 * 1024


def check_decoded(data: bytes, source: str) -> None:
    """Refuse a PDF whose Flate streams inflate past the bounds (a decompression bomb): page
    content, fonts and object streams together past ``max_decoded_mb`` (PDFium parses them
    whole, at many times their size in memory), images past ``max_image_mb``. Each stream is
    inflated in pieces and counted, none of it kept."""
    bounds, _ = _bounds()
    limits = {False: int(bounds.max_decoded_mb * MB), True: int(bounds.max_image_mb * MB)}
    totals = {False: 0, True: 0}
    position = 0
    while (found := _STREAM.search(data, position)) is not None:
        start = found.end()
        head = data[max(0, found.start() - 4096) : found.start()]
        image = b"/Image" in head[head.rfind(b" obj") + 1 :]
        inflater = zlib.decompressobj()
        offset = start
        try:
            while offset < len(data):
                piece = data[offset : offset + _CHUNK]
                offset += len(piece)
                out = inflater.decompress(piece, _CHUNK)
                totals[image] += len(out)
                while out and inflater.unconsumed_tail and not inflater.eof:
                    if totals[image] > limits[image]:
                        break
                    out = inflater.decompress(inflater.unconsumed_tail, _CHUNK)
                    totals[image] += len(out)
                if totals[image] > limits[image]:
                    raise _over(bounds, image, source)
                if inflater.eof:
                    break
        except zlib.error:
            pass  # not Flate data (an image's own coding, plain text): nothing to count
        position = max(start, offset - len(inflater.unused_data)) if inflater.eof else start
        checkpoint()


def _over(bounds: Bounds, image: bool, source: str) -> IngestError:
    what, mb, key = (
        ("its images", bounds.max_image_mb, "max_image_mb")
        if image
        else ("its page contents and fonts", bounds.max_decoded_mb, "max_decoded_mb")
    )
    return IngestError(
        f"{what} inflate to more than {mb:g} MB; not indexed ([ingest] {key})", source
    )
