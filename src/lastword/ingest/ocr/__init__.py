"""OCR for PDF pages without a usable text layer (``[ingest] ocr``).

``pages_to_ocr`` (``quality``) picks the pages; each is rendered within a pixel budget
(``image.render``), and its reading is looked up by the page image's hash in the OCR cache
(``<cache>/ocr``): a re-ingest, an ``--sync`` or another index of the same file never reads
a page twice. A page not cached is deskewed, read, and when it reads poorly turned upright (the
engine's orientation, else the best of the four quarter turns) and read again; its words become
``layout.Line``s (``lines.ocr_page``) that the PDF reader's structure pass reads like any page.
Pages are read ``ocr_workers`` at a time (the engines run outside the GIL); a page that fails
is one ``IngestError`` naming file and page and the other pages go on.

Engines: ``tesseract`` (the default; Debian's ``tesseract-ocr``) and ``rapidocr`` (the
``[ocr-rapid]`` extra). ``bench/ocr.py`` measures both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lastword.atomic import replacing
from lastword.ingest.ocr.engine import Engine, OcrFailed, OcrWord
from lastword.ingest.ocr.image import digest, render, skew_angle, turned
from lastword.ingest.ocr.quality import pages_to_ocr

#: changes whenever a cached reading would come out differently from the same image
READING_VERSION = "2"
#: a reading this confident (mean word confidence) with this many words is upright
_GOOD_CONFIDENCE = 0.7
_GOOD_WORDS = 8


@dataclass(frozen=True)
class OcrOptions:
    engine: str = "tesseract"
    dpi: int = 300
    max_pixels: int = 12_000_000
    page_seconds: float = 120.0
    workers: int = 2
    cache_dir: Path | None = None  # None: <user cache>/ocr; set LASTWORD_CACHE_DIR to move it


@dataclass(frozen=True)
class PageReading:
    """One page as OCR read it: words in pixels of the upright image."""

    words: tuple[OcrWord, ...]
    width: int  # the upright image's size in pixels
    height: int
    scale: float  # pixels per PDF point
    rotation: int  # clockwise degrees the rendered page was turned to read upright
    skew: float  # degrees it was then turned to level its lines
    engine: str
    cached: bool = False

    @property
    def confidence(self) -> float:
        """Mean word confidence, each word weighted by its characters."""
        chars = sum(len(w.text) for w in self.words)
        if not chars:
            return 0.0
        return sum(w.confidence * len(w.text) for w in self.words) / chars


def make_engine(name: str) -> Engine:
    if name == "tesseract":
        from lastword.ingest.ocr.tesseract import TesseractEngine

        return TesseractEngine()
    if name == "rapidocr":
        from lastword.ingest.ocr.rapid import RapidEngine

        return RapidEngine()
    raise ValueError(f"unknown OCR engine {name!r} (tesseract or rapidocr)")


def cache_dir(options: OcrOptions) -> Path:
    if options.cache_dir is not None:
        return options.cache_dir
    from lastword.embed.onnx_export import cache_root

    return cache_root() / "ocr"


def _cached(path: Path) -> PageReading | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        words = tuple(OcrWord(*w) for w in data["words"])
        return PageReading(
            words,
            data["width"],
            data["height"],
            data["scale"],
            data["rotation"],
            data["skew"],
            data["engine"],
            cached=True,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, or a torn or foreign file: read the page again


def _store(path: Path, reading: PageReading) -> None:
    data = {
        "engine": reading.engine,
        "width": reading.width,
        "height": reading.height,
        "scale": reading.scale,
        "rotation": reading.rotation,
        "skew": reading.skew,
        "words": [
            [
                w.text,
                w.x0,
                w.top,
                w.x1,
                w.bottom,
                round(w.confidence, 4),
                w.line,
                w.line_top,
                w.line_bottom,
                w.vertical,
            ]
            for w in reading.words
        ],
    }
    try:
        with replacing(path) as handle:
            json.dump(data, handle, ensure_ascii=False, separators=(",", ":"))
    except OSError:
        pass  # a read-only cache: the reading is still used, only not kept


def _score(words: list[OcrWord]) -> float:
    chars = sum(len(w.text) for w in words)
    return sum(w.confidence * len(w.text) for w in words) if chars else 0.0


def _good(words: list[OcrWord]) -> bool:
    """Enough words, read confidently, on lines across the image (an engine reads a page
    turned by a quarter as vertical lines, sometimes confidently)."""
    chars = sum(len(w.text) for w in words)
    vertical = sum(len(w.text) for w in words if w.vertical or _tall(w))
    return (
        len(words) >= _GOOD_WORDS
        and _score(words) >= _GOOD_CONFIDENCE * chars
        and vertical < 0.3 * chars
    )


def _tall(word: OcrWord) -> bool:
    return len(word.text) >= 4 and (word.bottom - word.top) > 1.5 * (word.x1 - word.x0)


def read_image(image: object, scale: float, engine: Engine, timeout: float) -> PageReading:
    """Read one rendered page image upright (no cache)."""

    def attempt(rotation: int) -> tuple[list[OcrWord], object, float]:
        upright = turned(image, -rotation) if rotation else image
        skew = skew_angle(upright)
        level = turned(upright, skew) if skew else upright
        return engine.read(level, timeout), level, skew

    words, level, skew = attempt(0)
    rotation = 0
    if not _good(words):
        told = engine.orientation(image, timeout)
        tries = [told] if told else [90, 180, 270]
        for candidate in tries:
            if not candidate:
                continue
            more, more_level, more_skew = attempt(candidate)
            # a turn is taken when it reads well, or far better than upright (a page of two
            # words reads a few words more confidently in some turn by chance)
            if _good(more) or (len(more) >= 3 and _score(more) > 2 * _score(words)):
                words, level, skew, rotation = more, more_level, more_skew, candidate
            if _good(words):
                break
    width, height = level.size  # type: ignore[attr-defined]
    return PageReading(tuple(words), width, height, scale, rotation, skew, engine.name)


def _read_one(
    image: object, scale: float, engine: Engine, options: OcrOptions, path: Path | None
) -> PageReading:
    reading = read_image(image, scale, engine, options.page_seconds)
    if path is not None:
        _store(path, reading)
    return reading


def read_pages(
    pdf: object,
    numbers: list[int],
    options: OcrOptions,
    on_page: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, PageReading | OcrFailed]]:
    """Each page of ``numbers`` (1-based) as (number, reading or the failure), in order;
    ``on_page(number)`` as each is done. Rendering stays on this thread (PDFium is not
    thread-safe); the engine reads ``options.workers`` pages at a time."""
    if not numbers:
        return
    engine = make_engine(options.engine)
    root = cache_dir(options)
    key = f"{engine.name}|{READING_VERSION}"
    workers = max(1, options.workers)
    pending: list[tuple[int, Future | PageReading | OcrFailed]] = []

    def finished(item: Future | PageReading | OcrFailed) -> PageReading | OcrFailed:
        if isinstance(item, Future):
            try:
                return item.result()
            except OcrFailed as exc:
                return exc
        return item

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for number in numbers:
            page = pdf[number - 1]  # type: ignore[index]
            try:
                image, scale = render(page, options.dpi, options.max_pixels)
            except Exception as exc:  # pypdfium2 raises its own errors for a bad page
                pending.append((number, OcrFailed(f"the page could not be rendered ({exc})")))
                continue
            finally:
                page.close()
            name = digest(image, key)
            path = root / name[:2] / f"{name}.json"
            cached = _cached(path)
            if cached is not None:
                pending.append((number, cached))
            else:
                pending.append(
                    (number, pool.submit(_read_one, image, scale, engine, options, path))
                )
            del image
            while len([p for _, p in pending if isinstance(p, Future)]) > workers:
                done_number, item = pending.pop(0)
                result = finished(item)
                if on_page is not None:
                    on_page(done_number)
                yield done_number, result
        while pending:
            done_number, item = pending.pop(0)
            result = finished(item)
            if on_page is not None:
                on_page(done_number)
            yield done_number, result


def options_from(settings: object) -> OcrOptions:
    """The OCR options of ``[ingest]`` settings (``IngestSettings``)."""
    return OcrOptions(
        engine=settings.ocr_engine,  # type: ignore[attr-defined]
        dpi=settings.ocr_dpi,  # type: ignore[attr-defined]
        max_pixels=settings.ocr_max_pixels,  # type: ignore[attr-defined]
        page_seconds=settings.ocr_page_seconds,  # type: ignore[attr-defined]
        workers=settings.ocr_workers,  # type: ignore[attr-defined]
        cache_dir=Path(settings.ocr_cache).expanduser() if settings.ocr_cache else None,  # type: ignore[attr-defined]
    )


__all__ = [
    "OcrFailed",
    "OcrOptions",
    "OcrWord",
    "PageReading",
    "make_engine",
    "options_from",
    "pages_to_ocr",
    "read_image",
    "read_pages",
]
