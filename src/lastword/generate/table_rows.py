"""A ``table`` passage read as statements, one per row, under its header's column names.

Ingest writes a table passage as lines (``ingest.tables``): the caption ("Table 3 ..."), the
column-header row, then one line per row, cells separated by " | ". The extractive generator
quotes a row as "Table 3 — Group: T6; FCR: 1.70" (a candidate sentence, ``extractive.py``),
and ``superlative.py`` compares a column's cells.
"""

from __future__ import annotations

from lastword.read.reader import table_units


def table_rows(text: str) -> list[str]:
    """The rows of a ``table`` passage as statements (see ``table_row_cells``)."""
    return [statement for statement, _ in table_row_cells(text)]


def table_row_cells(text: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The rows of a ``table`` passage as statements: "Table 3 — Group: T6; FCR: 1.70".

    Ingest writes a table passage as lines: the caption ("Table 3 ..."), the column-header row,
    then one line per row, cells separated by " | ". A row is stated with its header's cell
    names when the counts agree (else "header / row"), under the table's label
    (``read.reader.table_units``, which also gives each row's span).
    """
    return [(statement, cells) for _, _, statement, cells in table_units(text)]
