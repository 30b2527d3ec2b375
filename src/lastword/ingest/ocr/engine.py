"""What an OCR engine gives back: words with their boxes, confidences and lines.

An engine reads one upright page image (a grayscale ``PIL.Image``) and returns ``OcrWord``s in
pixels of that image (origin top left), each with a confidence in 0..1 and the line it belongs
to. ``ingest.ocr.lines`` turns them into the same ``layout.Line``s a born-digital page gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class OcrWord:
    text: str
    x0: float
    top: float  # pixels from the image's top edge
    x1: float
    bottom: float
    confidence: float  # 0..1
    line: int  # words with one number were read as one line, in the engine's reading order
    #: the line's loose box (its font's full height, ascenders to descenders), in pixels;
    #: 0, 0: the engine gives none and the words' boxes stand for it
    line_top: float = 0.0
    line_bottom: float = 0.0
    #: the engine read the word's line across the image (sideways text)
    vertical: bool = False


class Engine(Protocol):
    #: "tesseract 5.3.0": names the engine and version (part of the cache key)
    name: str

    def read(self, image: object, timeout: float) -> list[OcrWord]:
        """The words of an upright page image; raises ``OcrFailed`` past ``timeout`` seconds."""
        ...

    def orientation(self, image: object, timeout: float) -> int | None:
        """Clockwise degrees (0, 90, 180, 270) the image must be turned to read upright, or
        None when the engine cannot tell."""
        ...


class OcrFailed(Exception):
    """The engine could not read a page (it crashed, timed out, or is not installed)."""
