"""A PDF page as lines, from PDFium's character boxes: reading order, sizes, page furniture.

PDFium gives every character of a page with its loose box (the font's full height, so its
height is the font size as drawn, whatever the text matrix). Characters become line fragments
(a new fragment at a line break, a baseline change, a jump back, or a wide horizontal gap);
fragments keep their box and size. A two-column page (many fragments starting at one x near the
middle) is read column by column, band by band between full-width lines. A raised, smaller run
of digits or letters right after a digit is a superscript: "10" + raised "10" reads "10^10",
"1.70" + raised "a" (a significance group) reads "1.70^a".
"""

from __future__ import annotations

import ctypes
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from lastword.ingest import bounds

_FURNITURE_BAND = 0.085  # share of the page height at the top and bottom


def _band(page: Page) -> tuple[float, float]:
    """The bottom and top bands' edges: ``_FURNITURE_BAND`` of the page's longer side, so a
    landscape page (a wide table set sideways) keeps the header band of the portrait pages
    around it (its header sits as many points from the edge, not the same share of a shorter
    height)."""
    band = _FURNITURE_BAND * max(page.height, page.width)
    return band, page.height - band


_NUMBER = re.compile(r"^[-−–+±(]?[\d.,]*\d[\d.,]*[a-z*%)]{0,4}(±[\d.,]+[a-z*]{0,3})?$")
_PAGE_NUMBER = re.compile(r"(?<![\d./:-])\d{1,5}(?![\d./:-]?\d)")
_CELL_GAP = 0.75  # a gap between characters this many font heights wide separates table cells
_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
#: a raised ordinal ending ("6" + raised "th") reads as the word it is: "6th"
_ORDINAL = re.compile(r"(?<=\d)\^(st|nd|rd|th)(?![A-Za-z])")
_FURNITURE_WORDS = re.compile(
    r"\b(doi|https?://|www\.|journal|vol\.|volume|issn|page \d|pages? \d|©|copyright|"
    r"downloaded from|research article|original article|article id|open access)\b",
    re.IGNORECASE,
)


@dataclass
class Line:
    """A run of characters on one baseline (a column's line, a table cell, a heading)."""

    text: str
    x0: float
    x1: float
    bottom: float
    top: float
    size: float  # median loose-box height of its characters
    page: int
    rotated: bool = False
    bold: bool = False
    cells: int = 1  # fragments on the same baseline (3+: a table row)
    column: int = 0  # 0 full width / single column, 1 left, 2 right
    furniture: bool = False
    flags: set[str] = field(default_factory=set)
    #: (text, x0, x1) pieces split at gaps wider than a cell gap (tables read these)
    spans: list[tuple[str, float, float]] = field(default_factory=list)
    #: (face, text) runs of one font ("ABCDEF+Times-Bold" read "Times-Bold"), in order
    fonts: list[tuple[str, str]] = field(default_factory=list)

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass
class Page:
    number: int
    width: float
    height: float
    lines: list[Line]
    chars: int  # printable characters on the page
    #: the page's images and paths (``ingest.figures.Graphic``), read by ``figures.page_graphics``
    graphics: list = field(default_factory=list)


def _superscripted(chars: list[tuple[str, float, float, float, float]], size: float) -> str:
    """Text of a fragment, with '^' before a raised smaller run right after a digit: digits
    ("10^10"), or letters and the commas between them (significance groups and footnote marks:
    "1.70^a±0.01", "2.09^a,b"), but not an ordinal's ending ("6th"). A raised run after anything
    else is left as it is read."""
    if not chars:
        return ""
    base = statistics.median(c[3] for c in chars if not c[0].isspace()) if size else 0.0
    out: list[str] = []
    raised_run = False
    for ch, _x0, _x1, bottom, top in chars:
        height = top - bottom
        small_raised = size > 0 and height < 0.85 * size and bottom > base + 0.2 * size
        if raised_run:  # a run goes on with digits, letters, and a comma before one of them
            raised = small_raised and (ch.isalnum() or ch == ",")
        else:
            raised = small_raised and (ch.isdigit() or ch.isalpha())
            if raised and out and out[-1].isdigit():
                out.append("^")
            elif ch.isalpha():
                raised = False  # a raised letter not after a digit starts no run
        raised_run = raised
        out.append(ch)
    return _ORDINAL.sub(r"\1", "".join(out))


def read_page(pdf_page: object, number: int, fonts: bool = False) -> Page:
    """Line fragments of one page, in PDFium's order, with sizes and positions; with ``fonts``
    each line's runs of one face too (``Line.fonts``, read by ``ingest.subheadings``)."""
    import pypdfium2.raw as raw

    textpage = pdf_page.get_textpage()  # type: ignore[attr-defined]
    try:
        handle = textpage.raw
        count = raw.FPDFText_CountChars(handle)
        bounds.check_page_chars(count, number)  # [ingest] max_page_chars, before any work
        text = textpage.get_text_range(0, count) if count > 0 else ""
        if len(text) != count:  # characters outside the BMP: one code point per index
            text = "".join(chr(raw.FPDFText_GetUnicode(handle, i) or 0xFFFD) for i in range(count))
        width, height = pdf_page.get_size()  # type: ignore[attr-defined]
        if pdf_page.get_rotation() in (90, 270):  # type: ignore[attr-defined]
            width, height = height, width
        rect = raw.FS_RECTF()
        pointer = ctypes.byref(rect)
        loose_box = raw.FPDFText_GetLooseCharBox
        fragments: list[tuple[int, list[tuple[str, float, float, float, float]], list[int]]] = []
        current: list[tuple[str, float, float, float, float]] = []
        indices: list[int] = []  # each character's index in the text page
        start_index = 0
        printable = 0
        tallest = ("", 0.0, 0.0, 0.0, 0.0)

        def flush(next_index: int) -> None:
            nonlocal current, start_index, indices
            if any(not c[0].isspace() for c in current):
                fragments.append((start_index, current, indices))
            current, start_index, indices = [], next_index, []

        aligned = len(text) == count
        for i in range(count if aligned else 0):
            ch = text[i]
            if ch in "\r\n":
                flush(i + 1)
                continue
            loose_box(handle, i, pointer)
            box = (ch, rect.left, rect.right, rect.bottom, rect.top)
            if not ch.isspace():
                printable += 1
            if current:
                prev = current[-1]
                size = max(tallest[4] - tallest[3], 1.0)
                overlap = min(tallest[4], box[4]) - max(tallest[3], box[3])
                same_row = overlap >= 0.5 * min(size, max(box[4] - box[3], 0.1))
                gap = box[1] - prev[2]
                if ch.isspace():
                    if gap <= 1.6 * size:  # (a space's box may be empty)
                        current.append((ch, box[1], box[2], prev[3], prev[4]))
                        indices.append(i)
                    continue  # a space never starts a fragment
                if not same_row or gap < -size or gap > 1.6 * size:
                    flush(i)
            if not current and ch.isspace():
                start_index = i + 1
                continue
            if not current or (box[4] - box[3] > tallest[4] - tallest[3]):
                tallest = box
            current.append(box)
            indices.append(i)
        flush(count)
        if not aligned and text.strip():
            # Surrogate pairs or odd mappings: fall back to PDFium's lines without geometry.
            return _plain_page(text, number, width, height)
        lines = [_line(handle, raw, chars, at, number, fonts) for _first, chars, at in fragments]
    finally:
        textpage.close()
    return Page(number=number, width=width, height=height, lines=lines, chars=printable)


def _plain_page(text: str, number: int, width: float, height: float) -> Page:
    lines = [
        Line(text=t.strip(), x0=0, x1=width, bottom=0, top=0, size=0, page=number)
        for t in text.replace("\r", "\n").split("\n")
        if t.strip()
    ]
    return Page(number, width, height, lines, sum(not c.isspace() for c in text))


def _line(
    handle: object, raw: object, chars: list, at: list[int], number: int, fonts: bool = False
) -> Line:
    visible = [c for c in chars if not c[0].isspace()]
    size = statistics.median(c[4] - c[3] for c in visible)
    first = at[0]
    weight = raw.FPDFText_GetFontWeight(handle, first)  # type: ignore[attr-defined]
    angle = raw.FPDFText_GetCharAngle(handle, first)  # type: ignore[attr-defined]
    rotated = abs(angle) > 0.1 and abs(angle - 6.2832) > 0.1
    text = _clean(_superscripted(chars, size))
    return Line(
        text=text,
        x0=min(c[1] for c in visible),
        x1=max(c[2] for c in visible),
        bottom=min(c[3] for c in visible),
        top=max(c[4] for c in visible),
        size=size,
        page=number,
        rotated=rotated,
        bold=weight >= 600,
        spans=_spans(chars, size),
        fonts=_font_runs(handle, raw, chars, at, size) if fonts else [],
    )


def _font_name(handle: object, raw: object, index: int) -> str:
    """A character's face: its font's name without a subset prefix ("ABCDEF+"), with "#bold"
    when PDFium reports a bold weight the name does not say."""
    buffer = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    raw.FPDFText_GetFontInfo(handle, index, buffer, 128, ctypes.byref(flags))  # type: ignore[attr-defined]
    name = buffer.value.decode("latin-1").split("+", 1)[-1]
    weight = raw.FPDFText_GetFontWeight(handle, index)  # type: ignore[attr-defined]
    return name + "#bold" if weight >= 600 and not _BOLD_NAME.search(name) else name


_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi|[.,-]b$|medi", re.IGNORECASE)


def bold_face(face: str) -> bool:
    """A face (``_font_name``) is bold: by its name, or by the weight PDFium reports."""
    return bool(_BOLD_NAME.search(face)) or "#bold" in face


def _font_runs(
    handle: object, raw: object, chars: list, at: list[int], size: float
) -> list[tuple[str, str]]:
    """The fragment as runs of one face: (face, text), a space joining the run before it; a
    run's face also changes with a size change of a fifth (a smaller run-in heading)."""
    runs: list[tuple[str, list]] = []
    for char, index in zip(chars, at, strict=True):
        if char[0].isspace():
            if runs:
                runs[-1][1].append(char)
            continue
        face = _font_name(handle, raw, index)
        if size and abs((char[4] - char[3]) - size) > 0.2 * size:
            face += f"@{round(char[4] - char[3])}"
        if runs and runs[-1][0] == face:
            runs[-1][1].append(char)
        else:
            runs.append((face, [char]))
    return [(face, _clean("".join(c[0] for c in run))) for face, run in runs]


def _clean(text: str) -> str:
    text = _SPACE.sub(" ", text).strip()
    # pair up UTF-16 surrogates PDFium gives one per index; a lone one becomes U+FFFD
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _spans(chars: list, size: float) -> list[tuple[str, float, float]]:
    """The fragment cut into cells: at every gap between visible characters wider than
    ``_CELL_GAP`` font heights (table cells set closer than a line break's gap, never two words
    of a line), and at a space between two numbers ("0.0297 -2.801": two cells of a table)."""
    words: list[list] = []  # runs of visible characters, with the spaces before them
    for char in chars:
        if char[0].isspace():
            if words and words[-1][-1][0].isspace():
                continue
            words.append([char]) if not words else words[-1].append(char)
            continue
        if not words or words[-1][-1][0].isspace():
            words.append([char])
        else:
            words[-1].append(char)
    pieces: list[list] = []
    previous_number = False
    last_x1: float | None = None
    for word in words:
        visible = [c for c in word if not c[0].isspace()]
        if not visible:
            continue
        text = "".join(c[0] for c in visible)
        number = bool(_NUMBER.match(text))
        wide = last_x1 is not None and visible[0][1] - last_x1 > _CELL_GAP * size
        spaced = word[0][0].isspace() or (pieces and pieces[-1][-1][0].isspace())
        if not pieces or wide or (number and previous_number and spaced):
            pieces.append([])
        pieces[-1].extend(word)
        previous_number = number
        last_x1 = visible[-1][2]
    out = []
    for piece in pieces:
        visible = [c for c in piece if not c[0].isspace()]
        text = _clean(_superscripted(piece, size))
        if visible and text:
            out.append((text, min(c[1] for c in visible), max(c[2] for c in visible)))
    return out


def _mark_cells(lines: list[Line], gutter: float | None, width: float) -> None:
    """How many fragments share each fragment's baseline on its side of the gutter (a table
    row has several; a line of a column has one)."""
    upright = sorted((x for x in lines if not x.rotated), key=lambda x: x.bottom)
    rows: list[list[Line]] = []
    for line in upright:
        if rows and abs(line.bottom - rows[-1][-1].bottom) <= 2.0:
            rows[-1].append(line)
        else:
            rows.append([line])
    for row in rows:
        row.sort(key=lambda x: x.x0)
        cell_of: dict[int, int] = {}
        cell = 0
        for i, line in enumerate(row):
            if i and line.x0 - row[i - 1].x1 > 1.6 * max(line.size, 1.0):
                cell += 1  # a wide gap: another cell (a fragment split by a subscript is not)
            cell_of[id(line)] = cell
        # the cells of the whole row, and of each column's side of it (counted once per row,
        # not once per fragment: a row of thousands of fragments stays linear)
        everywhere = len(set(cell_of.values()))
        by_column: dict[int, set[int]] = {}
        for x in row:
            by_column.setdefault(x.column, set()).add(cell_of[id(x)])
        for line in row:
            whole = gutter is None or line.column == 0
            line.cells = everywhere if whole else len(by_column[line.column])
            if (
                gutter is not None
                and line.column
                and cell >= 2
                and line.x1 - line.x0 < 0.25 * width
            ):
                line.cells = cell + 1  # a cell of a table across both columns


def _gutter(page: Page) -> float | None:
    """The x where a right column starts, when the page has two columns."""
    starts = Counter(
        round(line.x0 / 3) * 3
        for line in page.lines
        if not line.rotated
        and line.words >= 3
        and line.x1 - line.x0 >= 0.25 * page.width
        and 0.35 * page.width < line.x0 < 0.65 * page.width
    )
    if not starts:
        return None
    x, n = starts.most_common(1)[0]
    left_edges = sorted(
        line.x1 for line in page.lines if line.x1 <= x + 2 and line.words >= 3 and not line.rotated
    )
    if n < 5 or len(left_edges) < 5:
        return None
    # The boundary sits just right of where most left-column lines end.
    edge = left_edges[int(0.9 * (len(left_edges) - 1))]
    return min(edge + 2.0, float(x))


def reading_order(page: Page) -> list[Line]:
    """Lines top to bottom; on a two-column page, each band's left column before its right."""
    upright = [line for line in page.lines if not line.rotated]
    rotated = [line for line in page.lines if line.rotated]
    gutter = _gutter(page)
    if gutter is None:
        _mark_cells(upright, None, page.width)
        return upright + rotated  # PDFium's order is the stream's, right for one column
    for line in upright:
        if line.x1 <= gutter + 1:
            line.column = 1
        elif line.x0 >= gutter - 1:
            line.column = 2
        else:
            line.column = 0
    _mark_cells(upright, gutter, page.width)
    ordered: list[Line] = []
    band: list[Line] = []

    def flush() -> None:
        for column in (1, 2):
            ordered.extend(sorted((x for x in band if x.column == column), key=_top_down))
        band.clear()

    lowest = None
    for line in sorted(upright, key=_top_down):
        gap = lowest is not None and line.top < lowest - 1.5 * max(line.size, 1.0)
        if line.column == 0 or gap:
            flush()  # a full-width line, or white space across the page: a new band
        if line.column == 0:
            ordered.append(line)
        else:
            band.append(line)
        lowest = line.bottom if lowest is None else min(lowest, line.bottom)
    flush()
    return ordered + rotated


def _top_down(line: Line) -> tuple[float, float]:
    return (-round(line.top / 3), line.x0)


def _furniture_key(text: str) -> str:
    return _DIGITS.sub("#", _SPACE.sub("", text.lower()))


def mark_furniture(pages: list[Page]) -> None:
    """Running headers/footers and page numbers: in the top or bottom band and repeated across
    pages (or a bare number, or a DOI/journal line there). Rotated margin stamps too."""
    band_lines: list[Line] = []
    for page in pages:
        low, high = _band(page)
        rotated_share = sum(len(x.text) for x in page.lines if x.rotated) / max(
            1, sum(len(x.text) for x in page.lines)
        )
        for line in page.lines:
            if line.rotated and rotated_share < 0.5:
                line.furniture = True  # "Downloaded from ..." along a margin
            elif not line.rotated and (line.top <= low or line.bottom >= high):
                band_lines.append(line)
    keys = Counter()
    for key, _page in {(_furniture_key(x.text), x.page) for x in band_lines}:
        keys[key] += 1
    repeats = max(2, round(0.25 * len(pages)))
    for line in band_lines:
        key = _furniture_key(line.text)
        bare_number = bool(re.fullmatch(r"[#ivxl]{1,6}|page#(of#)?|#/#|#of#", key))
        if (
            keys[key] >= repeats
            or bare_number
            or (
                line.words <= 25
                and _FURNITURE_WORDS.search(line.text)
                and keys[key] >= 1
                and len(pages) > 1
                and _repeats_loosely(line, band_lines)
            )
        ):
            line.furniture = True


def _repeats_loosely(line: Line, band_lines: list[Line]) -> bool:
    """A DOI/journal line whose first words come back on another page's band."""
    head = _furniture_key(" ".join(line.text.split()[:3]))
    return any(
        other.page != line.page and _furniture_key(" ".join(other.text.split()[:3])) == head
        for other in band_lines
    )


def body_size(pages: list[Page]) -> float:
    """The font size most of the text is set in (weighted by characters)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if not line.furniture and not line.rotated and line.size:
                sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def body_is_bold(pages: list[Page], size: float) -> bool:
    """Whether most of the text at the body size is marked bold (a font whose weight says bold
    for the whole paper): then bold tells a heading from the body nothing."""
    bold = total = 0
    for page in pages:
        for line in page.lines:
            if line.furniture or line.rotated or abs(line.size - size) > 0.5:
                continue
            total += len(line.text)
            bold += len(line.text) if line.bold else 0
    return total > 0 and bold >= 0.5 * total


def page_labels(pages: list[Page]) -> dict[int, str]:
    """The page numbers printed on the pages, when they are not the PDF's (a journal's page 121
    on PDF page 1): a number in the top or bottom band (a bare page number, or the last or first
    number of a running header or footer) that is the PDF page plus one fixed offset on at least
    two pages and on at least 40% of them. The offset then labels every page; an offset of 0
    (the printed number is the PDF page) gives no labels."""
    if len(pages) < 2:
        return {}
    offsets: Counter[int] = Counter()
    for page in pages:
        low, high = _band(page)
        found: set[int] = set()
        for line in page.lines:
            if line.rotated or not (line.top <= low or line.bottom >= high):
                continue
            numbers = _PAGE_NUMBER.findall(line.text)
            for number in {numbers[0], numbers[-1]} if numbers else ():
                found.add(int(number) - page.number)
        offsets.update(found)
    if not offsets:
        return {}
    offset, count = offsets.most_common(1)[0]
    if offset == 0 or count < max(2, 0.4 * len(pages)):
        return {}
    return {page.number: str(page.number + offset) for page in pages if page.number + offset > 0}
