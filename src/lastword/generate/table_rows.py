"""A ``table`` passage read as statements, one per row, under its header's column names.

Ingest writes a table passage as lines (``ingest.tables``): the caption ("Table 3 ..."), the
column-header row, then one line per row, cells separated by " | ". The extractive generator
quotes a row as "Table 3 — Group: T6; FCR: 1.70" (a candidate sentence, ``extractive.py``),
and ``superlative.py`` compares a column's cells.
"""

from __future__ import annotations

import re

_TABLE_LABEL = re.compile(r"^\s*((supplementary\s+)?table\s*[-–.]?\s*S?[\dIVX]+[a-z]?)", re.I)


def table_rows(text: str) -> list[str]:
    """The rows of a ``table`` passage as statements (see ``table_row_cells``)."""
    return [statement for statement, _ in table_row_cells(text)]


def table_row_cells(text: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The rows of a ``table`` passage as statements: "Table 3 — Group: T6; FCR: 1.70".

    Ingest writes a table passage as lines: the caption ("Table 3 ..."), the column-header row,
    then one line per row, cells separated by " | ". A row is stated with its header's cell
    names when the counts agree (else "header / row"), under the table's label.
    """
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    label = ""
    if lines and (match := _TABLE_LABEL.match(lines[0])):
        label = match.group(1).strip()
    ruled = [line for line in lines if " | " in line]
    if len(ruled) < 2:
        return []
    header, rows = ruled[0].split(" | "), ruled[1:]
    out = []
    for row in rows:
        cells = row.split(" | ")
        if len(cells) < len(header):  # ingest leaves trailing empty cells out
            cells += [""] * (len(header) - len(cells))
        named: tuple[tuple[str, str], ...] = ()
        if len(cells) == len(header):
            named = tuple((h, c) for h, c in zip(header, cells, strict=True) if c)
            body = "; ".join(f"{h}: {c}" for h, c in named)
        else:
            body = f"{' | '.join(header)} / {row}"
        out.append((f"{label} — {body}." if label else f"{body}.", named))
    return out
