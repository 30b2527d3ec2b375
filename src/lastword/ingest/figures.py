"""Figures on a PDF page: where pictures and drawings sit, and which text is part of them.

PDFium lists a page's objects (text, path, image, shading, form) with their bounds. A figure
region is

- an image (a photograph, a gel, a plot saved as a picture) at least ``_MIN_IMAGE`` points on
  each side, or a form object (a placed drawing) holding one;
- a cluster of path objects (touching within ``_TOUCH`` points) that holds at least
  ``_MIN_MARKS`` marks: ticks, markers, bars, curves, anything that is neither a long thin rule
  (a table's or a footnote's line) nor a wide box (a table's shaded row, a frame). A table
  drawn with rules and shaded rows therefore makes no figure.

A region with two or more lines of prose inside it is a background (a shaded box, a banner
behind a title), not a figure. Text inside a region is figure text (lane labels, axis ticks,
panel letters, legends) unless it is a caption ("Figure 3 ...", with its wrapped lines: the
caller leaves those out) or reads as prose (``_PROSE_WORDS`` or more words, mostly words of
letters). Text just outside the drawn box (tick labels left of an axis, an axis title under
it, within ``_MARGIN`` font heights) is figure text when it is short (at most ``_SHORT_WORDS``
words) or holds no word of letters at all ("0.2 0.4 0.6 0.8").
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

from lastword.ingest.layout import Line

_MIN_IMAGE = 36.0  # points (half an inch) on each side: smaller images are icons, logos
_TOUCH = 3.0  # paths this close belong to one drawing
_RULE = 2.5  # a path thinner than this ...
_RULE_LENGTH = 12.0  # ... and longer than this is a rule, not a mark
_WIDE_BOX = 150.0  # a box wider than this (and taller than a rule) is a frame or a shaded row
_MIN_MARKS = 8  # marks in a cluster of paths that make it a drawing
_MIN_SIDE = 30.0  # a drawing smaller than this on either side is a symbol, not a figure
_MAX_SHARE = 0.8  # a graphic covering more of the page than this is a page background
_MARGIN = 2.5  # font heights around a region where its labels may sit
_PROSE_WORDS = 8  # a line with this many words, mostly words of letters, is prose
_SHORT_WORDS = 4  # a line just outside a region with at most this many words is a label
_LETTER_WORD = re.compile(r"^[^\W\d_]{3,}[.,;:]?$")

IMAGE, PATH, FORM = 3, 2, 5  # FPDF_PAGEOBJ_* types


@dataclass(frozen=True)
class Graphic:
    """A page object that is not text: ``kind`` is "image" or "path"."""

    kind: str
    x0: float
    bottom: float
    x1: float
    top: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.top - self.bottom


@dataclass(frozen=True)
class Region:
    """Where a figure sits on its page (PDF points, origin bottom left)."""

    x0: float
    bottom: float
    x1: float
    top: float

    def holds(self, line: Line, margin: float = 0.0) -> bool:
        """The line's middle lies inside the region grown by ``margin`` points."""
        middle_x = (line.x0 + line.x1) / 2
        middle_y = (line.bottom + line.top) / 2
        return (
            self.x0 - margin <= middle_x <= self.x1 + margin
            and self.bottom - margin <= middle_y <= self.top + margin
        )


def page_graphics(pdf_page: object) -> list[Graphic]:
    """The images and paths of a page (a form object counts as an image when it holds one,
    else by its paths' union: its own bounds)."""
    import pypdfium2.raw as raw

    handle = pdf_page.raw  # type: ignore[attr-defined]
    out: list[Graphic] = []
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    refs = (ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right), ctypes.byref(top))
    for i in range(raw.FPDFPage_CountObjects(handle)):
        obj = raw.FPDFPage_GetObject(handle, i)
        kind = raw.FPDFPageObj_GetType(obj)
        if kind not in (IMAGE, PATH, FORM) or not raw.FPDFPageObj_GetBounds(obj, *refs):
            continue
        if kind == FORM:
            kind = IMAGE if _form_has_image(raw, obj) else PATH
        name = "image" if kind == IMAGE else "path"
        out.append(Graphic(name, left.value, bottom.value, right.value, top.value))
    return out


def _form_has_image(raw: object, form: object, depth: int = 0) -> bool:
    count = raw.FPDFFormObj_CountObjects(form)  # type: ignore[attr-defined]
    for i in range(max(count, 0)):
        child = raw.FPDFFormObj_GetObject(form, i)  # type: ignore[attr-defined]
        kind = raw.FPDFPageObj_GetType(child)  # type: ignore[attr-defined]
        if kind == IMAGE or (kind == FORM and depth < 3 and _form_has_image(raw, child, depth + 1)):
            return True
    return False


def _is_mark(graphic: Graphic) -> bool:
    thin = min(graphic.width, graphic.height) <= _RULE
    if thin and max(graphic.width, graphic.height) > _RULE_LENGTH:
        return False  # a rule
    return not (graphic.width > _WIDE_BOX and graphic.height > _RULE)  # else a box/frame


def figure_regions(graphics: list[Graphic], width: float, height: float) -> list[Region]:
    """Images big enough, and clusters of paths with enough marks, as regions."""
    page_area = max(width * height, 1.0)
    regions = [
        Region(g.x0, g.bottom, g.x1, g.top)
        for g in graphics
        if g.kind == "image"
        and g.width >= _MIN_IMAGE
        and g.height >= _MIN_IMAGE
        and g.width * g.height <= _MAX_SHARE * page_area
    ]
    paths = [
        g for g in graphics if g.kind == "path" and g.width * g.height <= _MAX_SHARE * page_area
    ]
    for cluster in _clusters(paths):
        if sum(_is_mark(g) for g in cluster) < _MIN_MARKS:
            continue
        box = Region(
            min(g.x0 for g in cluster),
            min(g.bottom for g in cluster),
            max(g.x1 for g in cluster),
            max(g.top for g in cluster),
        )
        if box.x1 - box.x0 >= _MIN_SIDE and box.top - box.bottom >= _MIN_SIDE:
            regions.append(box)
    return regions


def _clusters(paths: list[Graphic]) -> list[list[Graphic]]:
    """Paths that touch (within ``_TOUCH``), joined transitively; a sweep over x keeps it fast
    on a page of thousands of paths."""
    order = sorted(range(len(paths)), key=lambda i: paths[i].x0)
    parent = list(range(len(paths)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    active: list[int] = []
    for i in order:
        a = paths[i]
        active = [j for j in active if paths[j].x1 + _TOUCH >= a.x0]
        for j in active:
            b = paths[j]
            if a.bottom - _TOUCH <= b.top and b.bottom - _TOUCH <= a.top:
                parent[find(i)] = find(j)
        active.append(i)
    groups: dict[int, list[Graphic]] = {}
    for i, path in enumerate(paths):
        groups.setdefault(find(i), []).append(path)
    return list(groups.values())


def _prose(line: Line) -> bool:
    words = line.text.split()
    worded = sum(1 for w in words if _LETTER_WORD.match(w))
    return len(words) >= _PROSE_WORDS and worded >= 0.6 * len(words)


def _label(line: Line) -> bool:
    words = line.text.split()
    return len(words) <= _SHORT_WORDS or not any(_LETTER_WORD.match(w) for w in words)


def figure_lines(lines: list[Line], regions: list[Region], size: float) -> list[list[Line]]:
    """The lines that are figure text, one list per region (regions without text left out).
    The caller passes no caption lines."""
    taken: set[int] = set()
    out: list[list[Line]] = []
    margin = _MARGIN * max(size, 1.0)
    for region in regions:
        if sum(_prose(x) and region.holds(x) for x in lines) >= 2:
            continue  # paragraphs on a picture or in a box: a background, not a figure
        members = []
        for line in lines:
            if id(line) in taken or line.furniture or _prose(line):
                continue
            if region.holds(line) or (region.holds(line, margin) and _label(line)):
                members.append(line)
                taken.add(id(line))
        if members:
            out.append(members)
    return out
