"""OCR words as the lines a born-digital page gives (``layout.Line``), in PDF points.

Words of one engine line are cut into fragments where a gap is wider than 1.6 line heights
(``layout.read_page`` cuts PDFium's characters there too: a table's cells, two columns' lines
read as one), and into cells (``Line.spans``) at the same gaps ``layout._spans`` cuts at. A
line's size is its box's height, as a loose character box is the font's full height. Nothing
after this knows a page was read by OCR.
"""

from __future__ import annotations

import statistics

from lastword.ingest.layout import Line, Page, _clean, _spans
from lastword.ingest.ocr.engine import OcrWord

_FRAGMENT_GAP = 1.6


def ocr_page(words: list[OcrWord], number: int, image_size: tuple[int, int], scale: float) -> Page:
    """A ``layout.Page`` of ``number`` from an upright image's words (pixels at ``scale``
    pixels per point)."""
    width = image_size[0] / scale
    height = image_size[1] / scale
    by_line: dict[int, list[OcrWord]] = {}
    for word in words:
        by_line.setdefault(word.line, []).append(word)
    lines: list[Line] = []
    for members in by_line.values():
        members.sort(key=lambda w: w.x0)
        first = members[0]
        if first.line_bottom > first.line_top:
            size_px = first.line_bottom - first.line_top
        else:
            size_px = max(w.bottom for w in members) - min(w.top for w in members)
        fragment: list[OcrWord] = []
        for word in members:
            if fragment and word.x0 - fragment[-1].x1 > _FRAGMENT_GAP * size_px:
                lines.append(_line(fragment, number, height, scale))
                fragment = []
            fragment.append(word)
        if fragment:
            lines.append(_line(fragment, number, height, scale))
    _snap_sizes(lines)
    chars = sum(len(w.text) for w in words)
    return Page(number=number, width=width, height=height, lines=lines, chars=chars)


def _snap_sizes(lines: list[Line]) -> None:
    """Line sizes grouped (sorted, a group spans at most 8%) and each set to its group's
    median: an engine's line heights wander by a point where a PDF's font size does not (the
    structure reader starts a block at a size change of a point, a heading at 12% larger)."""
    upright = sorted((x for x in lines if x.size > 0 and not x.rotated), key=lambda x: x.size)
    groups: list[list[Line]] = []
    for line in upright:
        if groups and line.size <= 1.08 * groups[-1][0].size:
            groups[-1].append(line)
        else:
            groups.append([line])
    for group in groups:
        common = statistics.median_low([x.size for x in group])
        for line in group:
            line.top += common - line.size
            line.size = common


def _line(words: list[OcrWord], number: int, height: float, scale: float) -> Line:
    first = words[0]
    if first.line_bottom > first.line_top:
        top_px, bottom_px = first.line_top, first.line_bottom
    else:
        top_px = min(w.top for w in words)
        bottom_px = max(w.bottom for w in words)
    top = height - top_px / scale
    bottom = height - bottom_px / scale
    size = (bottom_px - top_px) / scale
    # characters spread evenly over each word's box, a space in each gap (what _spans reads)
    chars: list[tuple[str, float, float, float, float]] = []
    for i, word in enumerate(words):
        if i:
            chars.append((" ", words[i - 1].x1 / scale, word.x0 / scale, bottom, top))
        step = (word.x1 - word.x0) / max(1, len(word.text)) / scale
        for k, ch in enumerate(word.text):
            x0 = word.x0 / scale + k * step
            chars.append((ch, x0, x0 + step, bottom, top))
    return Line(
        text=_clean(" ".join(w.text for w in words)),
        x0=words[0].x0 / scale,
        x1=max(w.x1 for w in words) / scale,
        bottom=bottom,
        top=top,
        size=size,
        page=number,
        rotated=first.vertical,
        spans=_spans(chars, size),
    )
