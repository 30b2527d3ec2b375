"""A PDF page as an image to read: rendered within a pixel budget, turned upright, deskewed.

A page is rendered at ``[ingest] ocr_dpi`` unless that would pass ``[ingest] ocr_max_pixels``:
then at the resolution that fits (a 2400-dpi scan or a 35,000-pixel page is read at what the
budget allows, never decoded whole). Skew is found from the rows of ink: the angle at which
the row sums of a small copy vary most (text lines, and the white between them, are then
level); the page is turned by it before it is read.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

#: the skew searched for, in degrees either way; a page skewed more reads as it is
MAX_SKEW = 8.0


def render(pdf_page: object, dpi: int, max_pixels: int) -> tuple[object, float]:
    """The page as a grayscale ``PIL.Image`` and its scale (pixels per PDF point)."""
    width, height = pdf_page.get_size()  # type: ignore[attr-defined]
    scale = dpi / 72.0
    area = max(width * height, 1.0) * scale * scale
    if area > max_pixels:
        scale *= math.sqrt(max_pixels / area)
    bitmap = pdf_page.render(scale=scale, grayscale=True)  # type: ignore[attr-defined]
    image = bitmap.to_pil().convert("L")
    return image, scale


def digest(image: object, settings_key: str) -> str:
    """The page image's hash (its pixels and size) with what else decides the reading."""
    h = hashlib.sha256()
    h.update(f"{image.size}|{settings_key}|".encode())  # type: ignore[attr-defined]
    h.update(image.tobytes())  # type: ignore[attr-defined]
    return h.hexdigest()


def _profile_score(ink: object, angle: float) -> float:
    from PIL import Image

    turned = ink.rotate(angle, resample=Image.Resampling.NEAREST, expand=False, fillcolor=0)  # type: ignore[attr-defined]
    rows = np.asarray(turned, dtype=np.float32).sum(axis=1)
    return float(np.var(np.diff(rows)))


def skew_angle(image: object) -> float:
    """Degrees (counter-clockwise) that level the page's text lines; 0.0 for a level page or
    one with too little ink to tell."""
    small = image.copy()  # type: ignore[attr-defined]
    small.thumbnail((900, 900))
    pixels = np.asarray(small, dtype=np.uint8)
    if pixels.size == 0:
        return 0.0
    threshold = min(160, int(pixels.mean()) - 40)
    ink_mask = pixels < threshold
    if ink_mask.mean() < 0.002:
        return 0.0
    from PIL import Image

    ink = Image.fromarray((ink_mask * 255).astype(np.uint8))
    best, best_score = 0.0, _profile_score(ink, 0.0)
    for step, span in ((1.0, MAX_SKEW), (0.25, 1.0), (0.05, 0.25)):
        center = best
        for k in range(-round(span / step), round(span / step) + 1):
            angle = center + k * step
            if k == 0 or abs(angle) > MAX_SKEW:
                continue
            score = _profile_score(ink, angle)
            if score > best_score * 1.0001:
                best, best_score = angle, score
    return 0.0 if abs(best) < 0.1 else round(best, 2)


def turned(image: object, angle: float) -> object:
    """The image turned ``angle`` degrees counter-clockwise, on white, the same size for small
    angles (exactly for quarter turns)."""
    from PIL import Image

    if angle % 90 == 0:
        quarter = {
            90: Image.Transpose.ROTATE_90,
            180: Image.Transpose.ROTATE_180,
            270: Image.Transpose.ROTATE_270,
        }
        step = int(angle) % 360
        return image if step == 0 else image.transpose(quarter[step])  # type: ignore[attr-defined]
    return image.rotate(  # type: ignore[attr-defined]
        angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
    )
