"""The first page's side column (Frontiers, PLOS: editor, reviewers, dates, citation, funding):
front matter, not a table. A real PDF built here with fpdf2 (no ../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.ingest.chunk import split_passages
from lastword.ingest.layout import Line
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.structure import line_role

ABSTRACT = (
    "We measured the growth of maize seedlings under four watering regimes over six weeks. "
    "Plants watered every second day grew tallest and kept the greenest leaves through the "
    "trial, while plants watered once a week lost a third of their leaf area by the end. "
) * 3
INTRO = (
    "Maize is grown on dry land across much of the tropics, where rain falls in a few months "
    "of the year and the crop depends on water held in the soil between showers. "
) * 4
#: the side column: small type, right-aligned, each label's words set far apart (as
#: justification in a narrow column leaves them), so a line reads as two cells on a baseline
SIDE = [
    ("Edited", "by:"),
    ("Anna", "Example,"),
    ("University", "of Nowhere, Spain"),
    ("Reviewed", "by:"),
    ("Ben", "Sample,"),
    ("Institute", "of Crops, Chile"),
    ("*Correspondence:", ""),
    ("Carla", "Author"),
    ("Received:", "11 May 2015"),
    ("Accepted:", "17 August 2015"),
    ("Published:", "3 September 2015"),
    ("Citation:", "Author C (2015)"),
    ("Front.", "Plant Sci. 6:892."),
]


def make_sidebar_pdf(path: Path) -> Path:
    """One journal page: title, abstract and introduction indented 60 mm from the left; the
    side column's small lines in the margin to their left; the introduction's heading a line of
    its own, barely larger than the body and not bold."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", size=18)
    pdf.text(65, 30, "Watering regimes and maize seedling growth")
    pdf.set_font("Helvetica", size=10)
    pdf.set_left_margin(65)
    pdf.set_right_margin(15)
    pdf.set_xy(65, 45)
    pdf.cell(0, 5, "Abstract")
    pdf.set_xy(65, 52)
    pdf.multi_cell(0, 5, ABSTRACT)
    pdf.set_font("Helvetica", size=10.8)
    pdf.set_xy(65, pdf.get_y() + 6)
    pdf.cell(0, 5, "Introduction")
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(65, pdf.get_y() + 7)
    pdf.multi_cell(0, 5, INTRO)
    pdf.set_font("Helvetica", size=6.5)
    y = 60.0
    for left, right in SIDE:
        pdf.text(15, y, left)
        if right:
            pdf.text(38, y, right)
        y += 4.5
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def sidebar_passages(tmp_path_factory: pytest.TempPathFactory):
    path = make_sidebar_pdf(tmp_path_factory.mktemp("sidebar") / "frontiers.pdf")
    document = next(read_pdf(path, path.read_bytes()))
    return split_passages(document.pages)


def test_the_side_column_is_front_matter_not_table_fragments(sidebar_passages):
    kinds = {p.kind for p in sidebar_passages}
    assert "table" not in kinds, [(p.kind, p.text) for p in sidebar_passages]
    front = " ".join(p.text for p in sidebar_passages if p.kind == "front")
    for left, right in SIDE:
        assert left in front and right in front
    side = [p.text for p in sidebar_passages if any(left in p.text for left, _ in SIDE)]
    assert len(side) == 1, side  # one region, not a passage per label


def test_abstract_and_introduction_keep_their_kinds(sidebar_passages):
    by_kind: dict[str, str] = {}
    for p in sidebar_passages:
        by_kind[p.kind] = by_kind.get(p.kind, "") + " " + p.text
    assert "watered every second day grew tallest" in by_kind["abstract"]
    assert "Maize is grown on dry land" in by_kind["body"]
    assert "Maize is grown on dry land" not in by_kind["abstract"]


def test_a_line_that_is_only_a_section_name_is_a_heading():
    def line(text: str, size: float = 10.8) -> Line:
        return Line(text=text, x0=0, x1=100, bottom=0, top=10, size=size, page=1)

    for text in ("Introduction", "2. Materials and methods", "RESULTS AND DISCUSSION"):
        assert line_role(line(text), 10.0, False) == "heading", text
    assert line_role(line("Introduction of the new cultivar was slow"), 10.0, False) == "text"
