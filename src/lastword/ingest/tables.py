"""Tables read as rows under their header: "Table 3 ..." / "Group | Weight (g) | FCR" / "T6 | ...".

A table is found on a page from its row lines (two or more cells on one baseline, see
``structure.line_role``): cells of one row, and rows near each other (less than ``_ROW_GAP``
font heights apart vertically and overlapping horizontally), connected, form one table,
however PDFium cut them into fragments; short lines inside its box (a cell alone on its row,
a wrapped cell) belong to it.
Its cells are the lines' pieces cut at character gaps (``Line.spans``); columns are the x
ranges the data rows' cells cover; a row without a first-column cell and without a number
continues the row above (a wrapped cell, a two-line header). The rows above the first row with
a number in it are the header, one line column by column.

The text of a table passage is lines separated by "\\n": the caption ("Table 3. ..."), the header
row, then data rows, cells separated by " | " (an empty cell between two is left empty: "T2 | |
16.4"). A long table is cut into several passages, each repeating the caption and the header, so
each passage stands alone and each line is one quotable unit.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from lastword.ingest import bounds
from lastword.ingest.figures import Graphic
from lastword.ingest.layout import Line

_ROW_GAP = 2.5  # rows of one table are at most this many font heights apart
_SIDE_GAP = 3.0  # ... and horizontally at most this far apart
_ABSORB_WORDS = 20  # a longer line inside a table's box is prose, not a cell
_PROSE_WORDS = 5  # more words per cell on average: prose set in columns
PASSAGE_WORDS = 120  # a table passage's words (caption and header included) before a cut
MIN_ROWS = 3  # ... but at least this many data rows per passage
SEPARATOR = " | "
_DIGIT = re.compile(r"\d")
_TABLE_CAPTION = re.compile(r"^(supplementary\s+)?tab(le|\.)\s*[-–.]?\s*(S?\d+|[IVX]+)\b", re.I)


@dataclass
class _Cell:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float

    @property
    def middle(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass
class Table:
    """One table on a page: the lines it was read from, and its rows as cell texts."""

    lines: list[Line]
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    caption: str = ""

    @property
    def top(self) -> float:
        return max(x.top for x in self.lines)

    @property
    def bottom(self) -> float:
        return min(x.bottom for x in self.lines)

    @property
    def x0(self) -> float:
        return min(x.x0 for x in self.lines)

    @property
    def x1(self) -> float:
        return max(x.x1 for x in self.lines)

    def passages(self, words: int = PASSAGE_WORDS, min_rows: int = MIN_ROWS) -> list[str]:
        """The table as one or more passage texts, each starting with caption and header."""
        head = [line for line in (self.caption, row_text(self.header)) if line]
        budget = words - sum(len(line.split()) for line in head)
        texts: list[str] = []
        chunk: list[str] = []
        used = 0
        for row in self.rows:
            line = row_text(row)
            if not line:
                continue
            size = len(line.split())
            if chunk and used + size > budget and len(chunk) >= min_rows:
                texts.append("\n".join([*head, *chunk]))
                chunk, used = [], 0
            chunk.append(line)
            used += size
        if chunk:
            if texts and len(chunk) < min_rows and used <= budget // 2:
                texts[-1] += "\n" + "\n".join(chunk)  # a short tail joins the last passage
            else:
                texts.append("\n".join([*head, *chunk]))
        return texts


def row_text(cells: Sequence[str]) -> str:
    """Cells joined by " | "; trailing empty cells left out, others kept empty ("| Antisense")."""
    cells = list(cells)
    while cells and not cells[-1]:
        cells.pop()
    text = SEPARATOR.join(cells).replace("|  |", "| |").replace("|  |", "| |")
    return text.strip()


def is_table_caption(text: str) -> bool:
    return bool(_TABLE_CAPTION.match(text.strip()))


def unmark_prose(lines: Sequence[Line], width: float) -> None:
    """A column of prose beside a table shares the table's baselines, so its lines were counted
    as cells of the table's rows; a wide line of six or more words with another such line just
    above or below it starting at the same x is prose: one cell."""

    def wordy(line: Line) -> bool:
        return line.words >= 6 and line.x1 - line.x0 >= 0.28 * width and not line.rotated

    candidates = [x for x in lines if wordy(x)]
    for line in candidates:
        if line.cells < 2:
            continue
        size = max(line.size, 1.0)
        if any(
            other is not line
            and abs(other.x0 - line.x0) <= 2.0
            and 0 < abs(other.top - line.top) <= 2.0 * size
            for other in candidates
        ):
            line.cells = 1


def find_tables(
    lines: Sequence[Line],
    roles: dict[int, str],
    join: Callable[[list[str]], str],
    ruled: Sequence[Ruled] = (),
) -> list[Table]:
    """Tables on one page; ``roles`` is each line's role by ``id``, ``join`` joins the parts
    of a wrapped cell (hyphens decided as in the text); ``ruled``: the page's ruled frames
    (``ruled_frames``), read first."""
    tables = _ruled_tables(lines, roles, join, ruled)
    claimed = {id(x) for table in tables for x in table.lines}
    lines = [x for x in lines if id(x) not in claimed]
    seeds = [x for x in lines if roles.get(id(x)) == "table" and not x.rotated and not x.furniture]
    if len(seeds) < 2:
        return tables
    captions = [x for x in lines if roles.get(id(x)) == "caption"]
    find = _connect(seeds, captions)
    groups: dict[int, list[Line]] = {}
    for i, seed in enumerate(seeds):
        groups.setdefault(find(i), []).append(seed)
    taken: set[int] = set()
    absorbable = _ByMiddle(
        [
            x
            for x in lines
            if not x.rotated
            and not x.furniture
            and x.words <= _ABSORB_WORDS
            and roles.get(id(x)) != "caption"
        ]
    )
    for members in groups.values():
        if len(_rows(_cells(members))) < 2:
            continue  # one row: two cells on a line of text, not a table
        table = Table(lines=list(members))
        _absorb(table, members, absorbable, taken)
        cells = _cells(table.lines)
        if sum(len(c.text.split()) for c in cells) > _PROSE_WORDS * len(cells):
            continue  # columns of prose (a reference list in three columns), not a table
        taken.update(id(x) for x in table.lines)
        _read(table, join)
        if table.rows or table.header:
            tables.append(table)
    return tables


def _connect(seeds: Sequence[Line], captions: Sequence[Line]) -> Callable[[int], int]:
    """Union-find over the seeds joined by ``_near`` (no caption between): each seed's
    component root. Near-linear: a pair one font height or so apart is looked up in a grid of
    the seeds' boxes, and seeds on one baseline (near at any distance across) are joined as a
    run of their middles sorted, instead of testing every pair."""
    count = len(seeds)
    parent = list(range(count))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        parent[find(i)] = find(j)

    sizes = [max(x.size, 1.0) for x in seeds]
    # Vertical and side gaps (``_near``'s second test): a grid of cells one typical reach
    # wide; each seed looks up the cells its own reach covers, so a pair is found from the
    # larger of the two (whose size sets the reach).
    cell = max(sorted(sizes)[count // 2] * _SIDE_GAP, 1.0)
    grid: dict[tuple[int, int], list[int]] = {}
    large: list[int] = []  # boxes over many cells (a huge font): checked by every seed
    for i, x in enumerate(seeds):
        keys = _grid_keys(x.x0, x.x1, x.bottom, x.top, cell, limit=256)
        if keys is None:
            large.append(i)
        for key in keys or ():
            grid.setdefault(key, []).append(i)
    for i, a in enumerate(seeds):
        if i % 1024 == 1023:
            bounds.checkpoint()  # a crafted page must not outlast the file's time
        side, up = _SIDE_GAP * sizes[i], _ROW_GAP * sizes[i]
        keys = _grid_keys(a.x0 - side, a.x1 + side, a.bottom - up, a.top + up, cell, count)
        if keys is None:
            candidates: Iterable[int] = range(count)
        else:
            candidates = dict.fromkeys([*large, *(j for key in keys for j in grid.get(key, ()))])
        for j in candidates:
            if (
                j != i
                and find(i) != find(j)
                and _near(a, seeds[j])
                and not _caption_between(a, seeds[j], captions)
            ):
                union(i, j)
    # One baseline (``_near``'s first test: middles within half the larger font height): each
    # seed joins the run of seeds whose middles lie within half its own height of its middle,
    # linking neighbours in sorted order once each; a caption inside the run: pair by pair.
    middles = [(x.top + x.bottom) / 2 for x in seeds]
    order = sorted(range(count), key=middles.__getitem__)
    sorted_middles = [middles[i] for i in order]
    caption_middles = sorted((c.top + c.bottom) / 2 for c in captions)
    linked = list(range(count + 1))  # next position not yet linked to the one after it

    def next_unlinked(p: int) -> int:
        while linked[p] != p:
            linked[p] = linked[linked[p]]
            p = linked[p]
        return p

    for i in range(count):
        reach = 0.5 * sizes[i]
        low = bisect.bisect_left(sorted_middles, middles[i] - reach)
        high = bisect.bisect_right(sorted_middles, middles[i] + reach) - 1
        first = bisect.bisect_right(caption_middles, middles[i] - reach)
        if first < len(caption_middles) and caption_middles[first] < middles[i] + reach:
            for p in range(low, high + 1):
                j = order[p]
                if j != i and not _caption_between(seeds[i], seeds[j], captions):
                    union(i, j)
            continue
        p = next_unlinked(low)
        while p < high:
            union(order[p], order[p + 1])
            linked[p] = p + 1
            p = next_unlinked(p + 1)
    return find


def _grid_keys(
    x0: float, x1: float, bottom: float, top: float, cell: float, limit: int
) -> list[tuple[int, int]] | None:
    """The grid cells a box covers; None past ``limit`` cells (or a box that is not finite)."""
    try:
        xs = range(math.floor(min(x0, x1) / cell), math.floor(max(x0, x1) / cell) + 1)
        ys = range(math.floor(min(bottom, top) / cell), math.floor(max(bottom, top) / cell) + 1)
    except (OverflowError, ValueError):
        return None
    if len(xs) * len(ys) > limit:
        return None
    return [(gx, gy) for gx in xs for gy in ys]


def _line_key(line: Line) -> tuple:
    """What ``Line``'s equality compares, hashable (one line drawn twice is equal to it)."""
    return (
        line.text,
        line.x0,
        line.x1,
        line.bottom,
        line.top,
        line.size,
        line.page,
        line.rotated,
        line.bold,
        line.cells,
        line.column,
        line.furniture,
        frozenset(line.flags),
        tuple(line.spans),
        tuple(line.fonts),
    )


class _ByMiddle:
    """Lines (in page order) sorted by their middles, to find those in a band of heights."""

    def __init__(self, lines: Sequence[Line]) -> None:
        self.lines = lines
        middles = [(x.top + x.bottom) / 2 for x in lines]
        self.order = sorted(range(len(lines)), key=middles.__getitem__)
        self.middles = [middles[i] for i in self.order]

    def span(self, low: float, high: float) -> tuple[int, int]:
        """Positions (in middle order) of the lines with ``low <= middle <= high``."""
        return bisect.bisect_left(self.middles, low), bisect.bisect_right(self.middles, high)


def _absorb(table: Table, members: list[Line], lines: _ByMiddle, taken: set[int]) -> None:
    """Short lines inside the table's box join it, in page order, the box growing as they
    join; only the lines whose middles lie in the box's band of heights are visited (a line
    passed over while the box was smaller is not visited again, as in a scan of the page)."""
    size = max(x.size for x in members) or 1.0
    member_keys = {_line_key(x) for x in members}
    top, bottom = table.top, table.bottom
    x0, x1 = table.x0, table.x1
    low, high = lines.span(bottom - 0.2 * size, top + 0.2 * size)
    due = [lines.order[p] for p in range(low, high)]
    heapq.heapify(due)
    while due:
        at = heapq.heappop(due)
        line = lines.lines[at]
        middle = (line.top + line.bottom) / 2
        if not (
            bottom - 0.2 * size <= middle <= top + 0.2 * size
            and line.x0 >= x0 - size
            and line.x1 <= x1 + size
            and id(line) not in taken
            and _line_key(line) not in member_keys
        ):
            continue
        table.lines.append(line)
        top, bottom = max(top, line.top), min(bottom, line.bottom)
        x0, x1 = min(x0, line.x0), max(x1, line.x1)
        new_low, new_high = lines.span(bottom - 0.2 * size, top + 0.2 * size)
        for p in (*range(new_low, low), *range(high, new_high)):
            if lines.order[p] > at:  # still ahead in page order
                heapq.heappush(due, lines.order[p])
        low, high = min(low, new_low), max(high, new_high)


def _near(a: Line, b: Line) -> bool:
    """Two row lines of one table: cells of one row (both seen as cells of it), or lines a few
    font heights apart vertically that overlap or nearly touch horizontally."""
    size = max(a.size, b.size, 1.0)
    if abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) <= 0.5 * size:
        return True
    vertical = max(a.bottom - b.top, b.bottom - a.top, 0.0)
    horizontal = max(a.x0 - b.x1, b.x0 - a.x1, 0.0)
    return vertical <= _ROW_GAP * size and horizontal <= _SIDE_GAP * size


def _caption_between(a: Line, b: Line, captions: Sequence[Line]) -> bool:
    low, high = sorted(((a.top + a.bottom) / 2, (b.top + b.bottom) / 2))
    return any(
        low < (c.top + c.bottom) / 2 < high and c.x0 < max(a.x1, b.x1) and c.x1 > min(a.x0, b.x0)
        for c in captions
    )


def _cells(lines: Sequence[Line]) -> list[_Cell]:
    out = []
    for line in lines:
        spans = line.spans or [(line.text, line.x0, line.x1)]
        for text, x0, x1 in spans:
            if text:
                out.append(_Cell(text, x0, x1, line.top, line.bottom, line.size or 1.0))
    return out


def _rows(cells: list[_Cell]) -> list[list[_Cell]]:
    """Cells on one baseline, top to bottom (a cell joins a row when its middle is within half
    a font height of the row's first cell's)."""
    rows: list[list[_Cell]] = []
    for cell in sorted(cells, key=lambda c: -c.middle):
        if rows and abs(rows[-1][0].middle - cell.middle) <= 0.5 * cell.size:
            rows[-1].append(cell)
        else:
            rows.append([cell])
    for row in rows:
        row.sort(key=lambda c: c.x0)
    return rows


def _numeric_row(row: list[_Cell]) -> bool:
    """A data row: a number in a cell after the first."""
    return any(_DIGIT.search(c.text) for c in row[1:])


def _columns(rows: list[list[_Cell]], width: float) -> list[tuple[float, float]]:
    """The x ranges the data rows' cells cover (cells wider than half the table left out)."""
    data = [r for r in rows if len(r) >= 2 and _numeric_row(r)]
    if len(data) < 2:
        data = [r for r in rows if len(r) >= 2]
    spans = sorted(
        (c.x0, c.x1) for row in data for c in row if c.x1 - c.x0 <= 0.5 * max(width, 1.0)
    )
    columns: list[list[float]] = []
    for x0, x1 in spans:
        if columns and x0 < columns[-1][1]:
            columns[-1][1] = max(columns[-1][1], x1)
        else:
            columns.append([x0, x1])
    return [(a, b) for a, b in columns]


def _column_of(cell: _Cell, columns: list[tuple[float, float]]) -> int:
    best, best_overlap = 0, 0.0
    for i, (x0, x1) in enumerate(columns):
        overlap = min(x1, cell.x1) - max(x0, cell.x0)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    if best_overlap > 0:
        return best
    middle = (cell.x0 + cell.x1) / 2
    return min(range(len(columns)), key=lambda i: abs((columns[i][0] + columns[i][1]) / 2 - middle))


def _read(table: Table, join: Callable[[list[str]], str]) -> None:
    rows = _rows(_cells(table.lines))
    columns = _columns(rows, table.x1 - table.x0)
    if not columns:
        return
    grid: list[tuple[list[list[str]], bool, float, float]] = []  # cells, numeric, top, bottom
    for row in rows:
        cells: list[list[str]] = [[] for _ in columns]
        for cell in row:
            cells[_column_of(cell, columns)].append(cell.text)
        numeric = _numeric_row(row)
        top, bottom = max(c.top for c in row), min(c.bottom for c in row)
        size = max(c.size for c in row)
        if (
            grid
            and not cells[0]
            and not any(_DIGIT.search(c.text) for c in row)
            and grid[-1][3] - top <= 1.0 * size
        ):
            previous = grid[-1]
            for i, parts in enumerate(cells):
                previous[0][i].extend(parts)  # a wrapped cell or a two-line header
            grid[-1] = (previous[0], previous[1], previous[2], bottom)
            continue
        grid.append((cells, numeric, top, bottom))
    texts = [[join(parts) if parts else "" for parts in cells] for cells, *_ in grid]
    first_data = next((i for i, (_, numeric, *_) in enumerate(grid) if numeric), 0)
    if 0 < first_data <= 3:
        header = [
            join([t for t in column if t]) for column in zip(*texts[:first_data], strict=True)
        ]
        table.header, table.rows = header, texts[first_data:]
    else:
        table.header, table.rows = texts[0], texts[1:]


@dataclass(frozen=True)
class Ruled:
    """A table's frame drawn with horizontal rules of one width: the rules' heights, top down."""

    x0: float
    x1: float
    rules: tuple[float, ...]

    @property
    def top(self) -> float:
        return self.rules[0]

    @property
    def bottom(self) -> float:
        return self.rules[-1]


_RULE_MIN_WIDTH = 100.0  # points: a table's rule, not an underline or a fraction bar
_RULE_THICKNESS = 2.5
_RULE_SLACK = 4.0  # rules of one table start and end within this many points of each other


def ruled_frames(graphics: Sequence[Graphic]) -> list[Ruled]:
    """Three or more horizontal rules of one width (within ``_RULE_SLACK``) stacked on a page:
    the top rule, the rule under the header and the bottom rule of a table, or a rule between
    every row."""
    rules = sorted(
        (
            g
            for g in graphics
            if g.kind == "path" and g.height <= _RULE_THICKNESS and g.width >= _RULE_MIN_WIDTH
        ),
        key=lambda g: (round(g.x0), -g.top),
    )
    groups: list[list[Graphic]] = []
    for rule in rules:
        for group in groups:
            if (
                abs(group[0].x0 - rule.x0) <= _RULE_SLACK
                and abs(group[0].x1 - rule.x1) <= _RULE_SLACK
            ):
                group.append(rule)
                break
        else:
            groups.append([rule])
    frames = []
    for group in groups:
        heights = sorted({round((g.top + g.bottom) / 2, 1) for g in group}, reverse=True)
        heights = [h for i, h in enumerate(heights) if i == 0 or heights[i - 1] - h > 1.0]
        if len(heights) >= 3:
            frames.append(Ruled(min(g.x0 for g in group), max(g.x1 for g in group), tuple(heights)))
    return frames


def _ruled_tables(
    lines: Sequence[Line],
    roles: dict[int, str],
    join: Callable[[list[str]], str],
    frames: Sequence[Ruled],
) -> list[Table]:
    """A ruled frame holding two or more row lines (two or more cells on a baseline) and no
    prose is a table: every line inside it is one of its cells' lines. With a rule between
    every row (five rules or more, each band one row), the bands between rules are its rows, so
    a cell wrapped over several lines stays one cell; otherwise rows are read as for any
    table."""
    tables = []
    taken: set[int] = set()
    for frame in (part for whole in frames for part in _without_prose(whole, lines)):
        inside = [
            x
            for x in lines
            if id(x) not in taken
            and not x.rotated
            and not x.furniture
            and roles.get(id(x)) != "caption"
            and frame.bottom < (x.top + x.bottom) / 2 < frame.top
            and x.x0 >= frame.x0 - 2.0
            and x.x1 <= frame.x1 + 2.0
        ]
        if sum(x.cells >= 2 for x in inside) < 2 or any(x.words > _ABSORB_WORDS for x in inside):
            continue
        table = Table(lines=inside)
        if len(frame.rules) >= 5 and _one_row_per_band(table, frame):
            _read_bands(table, frame, join)
        else:
            _read(table, join)
        if table.rows:
            taken.update(id(x) for x in inside)
            tables.append(table)
    return tables


def _without_prose(frame: Ruled, lines: Sequence[Line]) -> list[Ruled]:
    """The frame cut at every band between two rules that holds prose: six lines or more, half
    of them or more one cell at least 40% of the frame wide (a column of text between two
    tables, or between a table and a footnote's rule; a table's wrapped cell is narrower), or
    that holds a table's caption below two or more bands of rows ("Table 3 ..." between the
    bottom rule of Table 2 and the top rule of Table 3, drawn as wide: two tables, not one; a
    caption set inside a table's own top rules is no cut).
    The pieces keep two rules or more."""
    pieces: list[list[float]] = [[frame.rules[0]]]
    rows_above = 0  # bands of the current piece that hold a row line
    for high, low in zip(frame.rules, frame.rules[1:], strict=False):
        band = [
            x
            for x in lines
            if low < (x.top + x.bottom) / 2 < high and x.x0 >= frame.x0 - 2 and x.x1 <= frame.x1 + 2
        ]
        wide = [x for x in band if x.cells == 1 and x.x1 - x.x0 >= 0.4 * (frame.x1 - frame.x0)]
        # a caption under a table already read (a header and rows above): another table starts
        caption = rows_above >= 2 and any(is_table_caption(x.text) for x in band)
        if caption or (len(wide) >= 6 and len(wide) >= 0.5 * len(band)):
            pieces.append([low])
            rows_above = 0
        else:
            pieces[-1].append(low)
            rows_above += any(x.cells >= 2 for x in band)
    return [Ruled(frame.x0, frame.x1, tuple(p)) for p in pieces if len(p) >= 2]


def _one_row_per_band(table: Table, frame: Ruled) -> bool:
    """Each band between rules is one row: no band holds two baselines of data, each with a
    cell in most columns and numbers in half of them (a band of several such rows is a group
    of rows under one rule, read by baselines)."""
    cells = _cells(table.lines)
    columns = _columns([cells], frame.x1 - frame.x0)
    full = max(3, 0.6 * len(columns))
    for high, low in zip(frame.rules, frame.rules[1:], strict=False):
        rows = _rows([c for c in cells if low < c.middle < high])
        if sum(_full_of_numbers(row, columns, full) for row in rows) >= 2:
            return False
    return True


def _full_of_numbers(row: list[_Cell], columns: list[tuple[float, float]], full: float) -> bool:
    """A baseline with a cell in most columns and a number in half of its cells or more: a row
    of data (the wrapped lines of one row's cells are mostly words)."""
    numbers = sum(bool(_DIGIT.search(c.text)) for c in row)
    return len({_column_of(c, columns) for c in row}) >= full and numbers >= 0.5 * len(row)


def _read_bands(table: Table, frame: Ruled, join: Callable[[list[str]], str]) -> None:
    """Rows are the bands between rules: the first band the header, each band's cells joined
    column by column, top down (a band with no text is left out)."""
    cells = _cells(table.lines)
    columns = _columns([cells], frame.x1 - frame.x0)  # every cell counts
    if not columns:
        return
    texts: list[list[str]] = []
    for high, low in zip(frame.rules, frame.rules[1:], strict=False):
        band = sorted(
            (c for c in cells if low < c.middle < high), key=lambda c: (-round(c.middle), c.x0)
        )
        if not band:
            continue
        parts: list[list[str]] = [[] for _ in columns]
        for cell in band:
            parts[_column_of(cell, columns)].append(cell.text)
        texts.append([join(p) if p else "" for p in parts])
    if texts:
        table.header, table.rows = texts[0], texts[1:]
