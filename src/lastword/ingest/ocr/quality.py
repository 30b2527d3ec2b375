"""Which pages of a PDF need OCR: no text layer, or a text layer that fails a quality check.

A text layer fails when a fifth of its characters are unmapped glyphs (U+FFFD, private-use
code points, control characters: a font without a Unicode map gives glyph ids), when far
fewer of its tokens are English words than on the document's other pages (under 15%, and
under 0.3 of their median share: a reference list or a table stays well above), or when an
image covers the page with fewer than 200 characters over it, a tenth of the other pages'
characters per area (a scan with a stray text layer).
"""

from __future__ import annotations

import re
import statistics

from lastword.ingest.layout import Page

#: under this many printable characters a page has no text layer
MIN_CHARS = 8
#: a page whose image covers it with fewer characters than this over it: a scan
_THIN = 200
_EDGE = re.compile(r"^[\W\d_]+|[\W\d_]+$")
_TOKEN = re.compile(r"\S+")


def _unmapped(ch: str) -> bool:
    code = ord(ch)
    return (
        ch == "\ufffd"
        or 0xE000 <= code <= 0xF8FF
        or code >= 0xF0000
        or (code < 32 and ch not in "\t\n\r")
    )


def _text(page: Page, upright: bool = False) -> str:
    """The page's text; with ``upright`` only its upright lines (PDFium gives a sideways
    table's letters one by one, "T A B L E": no sign of a broken text layer)."""
    return " ".join(x.text for x in page.lines if not (upright and x.rotated))


def _word_share(text: str) -> float | None:
    """The share of a page's tokens that are English words (``structure.word_list``)."""
    from lastword.ingest.structure import word_list

    tokens = _TOKEN.findall(text)
    if len(tokens) < 20:
        return None
    known = word_list()
    return sum(_EDGE.sub("", t).lower() in known for t in tokens) / len(tokens)


def _image_cover(page: Page) -> float:
    area = max(page.width * page.height, 1.0)
    images = [g for g in page.graphics if g.kind == "image"]
    return max((g.width * (g.top - g.bottom) / area for g in images), default=0.0)


def pages_to_ocr(pages: list[Page], mode: str) -> dict[int, str]:
    """Page number -> why it is read by OCR, for ``mode`` "auto" or "always" ("never": none)."""
    if mode == "never":
        return {}
    if mode == "always":
        return {p.number: "always" for p in pages}
    why: dict[int, str] = {}
    shares = {p.number: _word_share(_text(p, upright=True)) for p in pages}
    density = {p.number: p.chars / max(p.width * p.height, 1.0) for p in pages}
    for page in pages:
        text = _text(page)
        visible = [c for c in text if not c.isspace()]
        others = [p for p in pages if p.number != page.number and p.chars >= MIN_CHARS]
        if page.chars < MIN_CHARS:
            why[page.number] = "no text layer"
        elif sum(map(_unmapped, visible)) >= 0.2 * len(visible):
            why[page.number] = "unmapped glyphs in the text layer"
        elif others and (share := shares[page.number]) is not None:
            rest = [s for p in others if (s := shares[p.number]) is not None]
            if rest and share < 0.15 and share < 0.3 * statistics.median(rest):
                why[page.number] = "few words in the text layer"
        if page.number not in why and others and page.chars < _THIN and _image_cover(page) >= 0.8:
            typical = statistics.median(density[p.number] for p in others)
            if density[page.number] < 0.1 * typical:
                why[page.number] = "a scanned page with a thin text layer"
    return why
