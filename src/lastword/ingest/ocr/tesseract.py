"""Tesseract 5 (Debian ``tesseract-ocr`` + ``tesseract-ocr-eng``), run as a program: its TSV
output gives every word's box, confidence and line. One thread per page (``OMP_THREAD_LIMIT=1``:
on 2 cores its OpenMP threads made a page 4x slower); pages run side by side instead."""

from __future__ import annotations

import html
import io
import os
import re
import shutil
import subprocess
from functools import cache

from lastword.ingest.ocr.engine import OcrFailed, OcrWord


@cache
def _version() -> str:
    binary = shutil.which("tesseract")
    if binary is None:
        raise OcrFailed(
            "tesseract is not installed (Debian: apt-get install tesseract-ocr tesseract-ocr-eng)"
        )
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OcrFailed(f"tesseract does not run ({exc})") from None
    match = re.search(r"tesseract\s+v?(\d[\w.\-]*)", out.stdout + out.stderr)
    return match.group(1) if match else "unknown"


def _png(image: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # type: ignore[attr-defined]
    return buffer.getvalue()


def _run(args: list[str], data: bytes, timeout: float) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", *args],
            input=data,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise OcrFailed(f"tesseract took longer than {timeout:.0f} s") from None
    except OSError as exc:
        raise OcrFailed(f"tesseract does not run ({exc.strerror})") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OcrFailed(f"tesseract failed ({message[-1] if message else done.returncode})")
    return done.stdout.decode("utf-8", "replace")


_SPAN = re.compile(
    r"<span class=['\"](ocr_line|ocr_caption|ocr_header|ocr_textfloat|ocrx_word)['\"][^>]*?"
    r"title=(?:'([^']*)'|\"([^\"]*)\")[^>]*>(.*?)(?=<span|</span>)",
    re.DOTALL,
)
_TAG = re.compile(r"<[^>]+>")


def _fields(title: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for part in title.split(";"):
        bits = part.split()
        if len(bits) >= 2:
            try:
                out[bits[0]] = [float(b) for b in bits[1:]]
            except ValueError:
                continue
    return out


def parse_hocr(hocr: str) -> list[OcrWord]:
    """Words from Tesseract's hOCR: each with its line's loose box (from the line's baseline,
    ``x_size`` and ``x_descenders``) and its confidence (``x_wconf``)."""
    words: list[OcrWord] = []
    line = -1
    line_top = line_bottom = 0.0
    vertical = False
    for kind, single, double, body in _SPAN.findall(hocr):
        fields = _fields(single or double)
        box = fields.get("bbox")
        if box is None or len(box) != 4:
            continue
        if kind != "ocrx_word":
            line += 1
            vertical = fields.get("textangle", [0.0])[0] in (90.0, 270.0)
            baseline = fields.get("baseline", [0.0, 0.0])
            size = fields.get("x_size", [box[3] - box[1]])[0]
            descent = fields.get("x_descenders", [0.0])[0]
            base_y = box[3] + (baseline[1] if len(baseline) == 2 else 0.0)
            line_bottom = base_y + descent
            line_top = line_bottom - size
            continue
        text = html.unescape(_TAG.sub("", body)).strip()
        if not text or line < 0:
            continue
        confidence = max(0.0, min(1.0, fields.get("x_wconf", [0.0])[0] / 100.0))
        words.append(
            OcrWord(
                text,
                box[0],
                box[1],
                box[2],
                box[3],
                confidence,
                line,
                line_top,
                line_bottom,
                vertical,
            )
        )
    return words


class TesseractEngine:
    def __init__(self, language: str = "eng") -> None:
        self.language = language
        self.name = f"tesseract {_version()} {language}"

    def read(self, image: object, timeout: float) -> list[OcrWord]:
        hocr = _run(
            ["-l", self.language, "--psm", "3", "-c", "tessedit_do_invert=0", "hocr"],
            _png(image),
            timeout,
        )
        return parse_hocr(hocr)

    def orientation(self, image: object, timeout: float) -> int | None:
        try:
            out = _run(["--psm", "0"], _png(image), timeout)
        except OcrFailed:
            return None  # too little text to tell: read it as it is
        rotate = re.search(r"Rotate:\s*(\d+)", out)
        confidence = re.search(r"Orientation confidence:\s*([\d.]+)", out)
        if not rotate or not confidence or float(confidence.group(1)) < 1.0:
            return None
        return int(rotate.group(1)) % 360


def available() -> bool:
    try:
        _version()
    except OcrFailed:
        return False
    return True
