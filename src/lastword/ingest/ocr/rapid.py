"""RapidOCR (``rapidocr-onnxruntime``, the ``[ocr-rapid]`` extra): PaddleOCR's PP-OCRv4
detection and recognition models run on ONNX Runtime, shipped inside its wheel.

It finds text boxes (a line, or a piece of one) and reads each with one score; a box's words
get its score, and boxes from its word boxes (``return_word_box``) when it gives them, else its
width shared by characters. Its recognizer often drops the spaces of English text
("altricialeutherianneonates"): docs/ingest.md has the numbers side by side.
"""

from __future__ import annotations

import threading

import numpy as np

from lastword.errors import MissingExtraError
from lastword.ingest.ocr.engine import OcrFailed, OcrWord

_LOCK = threading.Lock()
_ENGINE: object | None = None


def _engine() -> object:
    global _ENGINE
    with _LOCK:
        if _ENGINE is None:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError as exc:
                raise MissingExtraError("rapidocr-onnxruntime", "ocr-rapid") from exc
            _ENGINE = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)
        return _ENGINE


class RapidEngine:
    def __init__(self) -> None:
        try:
            from importlib.metadata import version

            self.name = f"rapidocr {version('rapidocr-onnxruntime')}"
        except Exception:  # not installed: the first read names the extra
            self.name = "rapidocr"

    def read(self, image: object, timeout: float) -> list[OcrWord]:
        engine = _engine()
        rgb = np.asarray(image.convert("RGB"))  # type: ignore[attr-defined]
        try:
            result, _elapsed = engine(rgb)  # type: ignore[operator]
        except Exception as exc:  # onnxruntime raises its own errors
            raise OcrFailed(f"rapidocr failed ({exc})") from None
        words: list[OcrWord] = []
        for line, (box, text, score) in enumerate(result or []):
            xs = [p[0] for p in box]
            ys = [p[1] for p in box]
            x0, x1, top, bottom = min(xs), max(xs), min(ys), max(ys)
            text = str(text).strip()
            if not text:
                continue
            per_char = (x1 - x0) / max(1, len(text))
            at = 0
            for piece in text.split():
                start = text.index(piece, at)
                at = start + len(piece)
                words.append(
                    OcrWord(
                        piece,
                        x0 + start * per_char,
                        top,
                        x0 + at * per_char,
                        bottom,
                        float(score),
                        line,
                    )
                )
        return words

    def orientation(self, image: object, timeout: float) -> int | None:
        return None  # its classifier turns single lines by 180 only
