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
