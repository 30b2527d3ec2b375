"""Tables read as rows under their header, and printed page labels: real PDFs built here with
fpdf2 (no ../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.ingest import ingest_paths
from lastword.ingest.chunk import split_passages
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.tables import PASSAGE_WORDS, row_text
from lastword.pipeline import Pipeline
from lastword.settings import IngestSettings, Settings
from lastword.store.local import LocalStore

PROSE = [
    "Broilers were reared on litter in a closed house",
    "with feed and water offered without restriction",
    "for the six weeks of the trial. Body weight was",
    "recorded every week and feed intake per pen was",
    "taken as the difference between feed offered and",
    "feed left over at the end of each week of growth.",
    "The feed conversion ratio was the feed eaten per",
    "unit of weight gained over the whole six weeks.",
]
GROUPS = [(f"T{i}", f"{1800 + 37 * i}.{i}5", f"1.{90 - i:02d}") for i in range(1, 31)]


def make_table_pdf(path: Path) -> Path:
    """Two pages of a two-column journal paper: the left column of page 1 holds Table 2 (a
    two-line header, a wrapped cell, 30 rows, every cell written on its own, its rows on the
    baselines of the prose in the right column); the footer prints the journal's pages 121 and
    122, the header the journal name."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    for number in (1, 2):
        pdf.add_page()
        pdf.set_font("Helvetica", size=8)
        pdf.text(15, 12, "Journal of Poultry Examples 2024")
        pdf.text(100, 290, str(120 + number))
        pdf.set_font("Helvetica", size=10)
        y = 30
        for line in PROSE * 3:
            pdf.text(110, y, line)
            y += 5
        if number == 2:
            continue
        pdf.text(15, 30, "Table 2. Growth of the groups over six weeks.")
        pdf.set_font("Helvetica", size=9)
        for x, top, bottom in ((15, "Group", ""), (40, "Body weight", "gain (g)"), (75, "FCR", "")):
            pdf.text(x, 38, top)
            if bottom:
                pdf.text(x, 42, bottom)
        pdf.text(15, 48, "Control")
        pdf.text(40, 48, "1700.00")
        pdf.text(75, 48, "2.10")
        pdf.text(40, 52, "(no additive)")  # a wrapped cell: continues the row above
        for i, (group, gain, fcr) in enumerate(GROUPS):
            y = 57 + 4.6 * i
            for x, cell in zip((15, 40, 75), (group, gain, fcr), strict=True):
                pdf.text(x, y, cell)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def table_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_table_pdf(tmp_path_factory.mktemp("tables") / "growth.pdf")


def test_a_table_is_read_as_rows_under_its_caption_and_header(table_pdf: Path):
    document = next(read_pdf(table_pdf, table_pdf.read_bytes()))
    tables = [p for p in split_passages(document.pages) if p.kind == "table"]
    assert len(tables) >= 2  # 30 rows are cut into passages of about PASSAGE_WORDS words
    rows_seen = []
    for passage in tables:
        lines = passage.text.split("\n")
        # each passage stands alone: the caption, then the header (its two lines joined)
        assert lines[0] == "Table 2. Growth of the groups over six weeks."
        assert lines[1] == "Group | Body weight gain (g) | FCR"
        assert len(passage.text.split()) <= PASSAGE_WORDS + 20
        rows_seen += lines[2:]
    assert rows_seen[0] == "Control | 1700.00 (no additive) | 2.10"
    assert rows_seen[1:] == [row_text(group) for group in GROUPS]  # every row once, in order
    assert "T6 | 2022.65 | 1.84" in rows_seen
    # the prose beside the table is not part of it, and reads as one body text
    passages = split_passages(document.pages)
    body = " ".join(p.text for p in passages if p.kind in ("body", "abstract"))
    assert "Broilers were reared on litter in a closed house with feed and water" in body
    assert not any("Broilers" in p.text for p in tables)


def test_row_text_keeps_inner_empty_cells_and_drops_trailing_ones():
    assert row_text(["T2", "", "16.455", ""]) == "T2 | | 16.455"
    assert row_text(["", "Antisense", "5'-CCT-3'"]) == "| Antisense | 5'-CCT-3'"


def test_printed_page_numbers_are_recorded_and_shown(table_pdf: Path, tmp_path: Path, minilm):
    document = next(read_pdf(table_pdf, table_pdf.read_bytes()))
    assert document.metadata["page_labels"] == {"1": "121", "2": "122"}

    index = tmp_path / "index"
    report = ingest_paths([table_pdf], index, minilm, IngestSettings())
    assert report.failed == []
    with Pipeline(Settings(), LocalStore.open(index), minilm) as pipeline:
        result = pipeline.inspect("feed conversion ratio of group T6 body weight gain", k=4)
        table = next(p for p in result.passages if p.kind == "table")
        assert (table.page, table.page_label) == (1, "121")
        shown = result.to_json_dict()["passages"]
        assert all(p["page_label"] == str(120 + p["page"]) for p in shown)

    from lastword.cli.render import _where

    assert _where("Growth", 1, table.page_label) == "Growth, p. 1 (printed 121)"
    assert _where("Growth", 1, None) == "Growth, p. 1"


def test_a_paper_whose_printed_pages_are_the_pdf_pages_gets_no_labels(tmp_path: Path):
    from tests.conftest import make_paper_pdf

    path = make_paper_pdf(tmp_path / "paper.pdf")  # footers print 1, 2, 3
    document = next(read_pdf(path, path.read_bytes()))
    assert "page_labels" not in document.metadata


def make_two_ruled_tables_pdf(path: Path) -> Path:
    """Table 2 and Table 3 one above the other, each with a top rule, a rule under its header
    and a bottom rule, all six rules of one width (one frame by their geometry); Table 3's
    caption sits between Table 2's bottom rule and Table 3's top rule."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_line_width(0.3)
    y = 20.0
    for caption, header, rows in (
        (
            "Table 2. Primers used in this study.",
            ("Primer", "Product", "Reference"),
            [("CAP64", "400 bp", "[10]"), ("LAC1", "760 bp", "[11]"), ("URA5", "880 bp", "[12]")],
        ),
        (
            "Table 3. Recovery of the fungus from tree parts.",
            ("Part", "Samples", "Isolates"),
            [("Leaves", "138", "1"), ("Flowers", "88", "7"), ("Woody trunks", "85", "1")],
        ),
    ):
        pdf.set_font("Helvetica", size=9)
        pdf.text(20, y, caption)
        y += 3
        pdf.line(18, y, 190, y)
        for x, cell in zip((20, 80, 140), header, strict=True):
            pdf.text(x, y + 5, cell)
        y += 8
        pdf.line(18, y, 190, y)
        for row in rows:
            y += 5
            for x, cell in zip((20, 80, 140), row, strict=True):
                pdf.text(x, y, cell)
        y += 3
        pdf.line(18, y, 190, y)
        y += 10
    pdf.output(str(path))
    return path


def test_two_ruled_tables_of_one_width_are_two_tables(tmp_path: Path):
    path = make_two_ruled_tables_pdf(tmp_path / "two.pdf")
    document = next(read_pdf(path, path.read_bytes()))
    tables = [p.text for p in split_passages(document.pages) if p.kind == "table"]
    assert len(tables) == 2, tables
    first, second = (t.split("\n") for t in tables)
    assert first[0].startswith("Table 2.") and first[1] == "Primer | Product | Reference"
    assert first[2:] == ["CAP64 | 400 bp | [10]", "LAC1 | 760 bp | [11]", "URA5 | 880 bp | [12]"]
    assert second[0].startswith("Table 3.") and second[1] == "Part | Samples | Isolates"
    assert second[2:] == ["Leaves | 138 | 1", "Flowers | 88 | 7", "Woody trunks | 85 | 1"]


#: Table-3 of a broiler trial: (group, weight gain, its raised group letter, FCR, its letter)
LETTERED = [
    ("T1", "1801.75", "a", " ±1.79", "2.09", "c", " ±0.01"),
    ("T5", "1873.50", "b", " ±9.13", "1.96", "b", "±0.03"),
    ("T6", "2129.25", "c", " ±22.83", "1.70", "a", "±0.01"),
    ("T7", "1818.50", "ab", "±11.92", "2.00", "bc", "±0.03"),
]


def make_lettered_table_pdf(path: Path) -> Path:
    """A table whose means carry raised significance letters ("1.70" + raised "a" + "±0.01"),
    set as a journal sets them, under prose with a raised ordinal ("6" + raised "th")."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()

    def raised(x: float, y: float, parts: tuple[str, str, str], size: int) -> None:
        number, letter, rest = parts
        pdf.set_font("Helvetica", size=size)
        pdf.text(x, y, number)
        x += pdf.get_string_width(number)
        pdf.set_font("Helvetica", size=round(size * 0.6))
        pdf.text(x + 0.1, y - size * 0.13, letter)
        x += pdf.get_string_width(letter) + 0.2
        pdf.set_font("Helvetica", size=size)
        pdf.text(x, y, rest)

    y = 30.0
    for line in PROSE[4:6]:
        pdf.set_font("Helvetica", size=10)
        pdf.text(15, y, line)
        y += 5
    raised(15, y, ("Birds were weighed in the 6", "th", " week of the trial."), 10)
    pdf.set_font("Helvetica", size=10)
    pdf.text(15, 70, "Table-3. Growth performance of the broilers over six weeks.")
    pdf.set_font("Helvetica", size=9)
    for x, cell in ((15, "Group"), (45, "Body weight gain (g)"), (110, "FCR")):
        pdf.text(x, 78, cell)
    for i, (group, gain, g_letter, g_rest, fcr, f_letter, f_rest) in enumerate(LETTERED):
        row_y = 85 + 6 * i
        pdf.set_font("Helvetica", size=9)
        pdf.text(15, row_y, group)
        raised(45, row_y, (gain, g_letter, g_rest), 9)
        raised(110, row_y, (fcr, f_letter, f_rest), 9)
    pdf.output(str(path))
    return path


def test_a_raised_letter_after_a_number_is_a_superscript_every_reader_reads(tmp_path: Path):
    """ "1.70a±0.01" read flat is no number 1.70 to a pattern (``\\b1\\.70\\b``); read as the
    superscript it is, "1.70^a±0.01" is, and the generator's table reader, its number reader and
    the verifier's number check all read 1.70 in it."""
    import re
    from decimal import Decimal

    from lastword.generate.quantities import numbers_of_kinds
    from lastword.generate.superlative import leading_value
    from lastword.generate.table_rows import table_row_cells
    from lastword.verify.numbers import missing_quantities

    path = make_lettered_table_pdf(tmp_path / "lettered.pdf")
    document = next(read_pdf(path, path.read_bytes()))
    passages = split_passages(document.pages, min_words=1)
    (table,) = [p for p in passages if p.kind == "table"]
    assert table.text.split("\n")[1:] == [
        "Group | Body weight gain (g) | FCR",
        "T1 | 1801.75^a ±1.79 | 2.09^c ±0.01",
        "T5 | 1873.50^b ±9.13 | 1.96^b±0.03",
        "T6 | 2129.25^c ±22.83 | 1.70^a±0.01",
        "T7 | 1818.50^ab±11.92 | 2.00^bc±0.03",
    ]
    assert re.search(r"\b1\.70\b", table.text) and re.search(r"\b2,?129\b", table.text)
    prose = " ".join(p.text for p in passages if p.kind != "table")
    assert (
        "Birds were weighed in the 6th week of the trial." in prose
    )  # an ordinal's ending is a word, not a mark

    rows = dict(
        (named[0][1], (statement, dict(named))) for statement, named in table_row_cells(table.text)
    )
    statement, cells = rows["T6"]
    assert statement == (
        "Table-3 — Group: T6; Body weight gain (g): 2129.25^c ±22.83; FCR: 1.70^a±0.01."
    )
    assert leading_value(cells["FCR"]) == Decimal("1.70")
    assert leading_value(cells["Body weight gain (g)"]) == Decimal("2129.25")
    assert leading_value(rows["T7"][1]["FCR"]) == Decimal("2.00")
    assert {"1.7", "2129.25", "22.83", "0.01"} <= numbers_of_kinds(statement, frozenset())
    assert "3" not in numbers_of_kinds(statement, frozenset())  # the label, not a value
    draft = "T6 gained 2129.25 with a feed conversion ratio of 1.70."
    assert missing_quantities(draft, [table.text]) == []
    assert [q.text for q in missing_quantities("T6 had an FCR of 1.71.", [table.text])] == ["1.71"]


def test_superscript_runs_read_from_character_boxes():
    """Boxes as PDFium gives them (text, x0, x1, bottom, top), size 10: a raised run of 6-high
    boxes 3.4 above the baseline."""
    from lastword.ingest.layout import _superscripted

    def chars(text: str, marks: str) -> list[tuple[str, float, float, float, float]]:
        boxes = []
        for i, (ch, mark) in enumerate(zip(text, marks, strict=True)):
            bottom, top = (3.4, 9.4) if mark == "^" else (0.0, 10.0)
            boxes.append((ch, 5.0 * i, 5.0 * i + 4.5, bottom, top))
        return boxes

    assert _superscripted(chars("2.09a,b±0.01", "    ^^^     "), 10.0) == "2.09^a,b±0.01"
    assert _superscripted(chars("1010 seeds", "  ^^      "), 10.0) == "10^10 seeds"
    assert _superscripted(chars("6th week", " ^^     "), 10.0) == "6th week"  # an ordinal
    assert _superscripted(chars("valuesa,b", "      ^^^"), 10.0) == "valuesa,b"  # no number
    assert _superscripted(chars("1.70a", "     "), 10.0) == "1.70a"  # not raised: as read
