"""Text inside a figure (a chart's ticks and legend, a gel's lane labels) is its own kind,
``figure``, told apart from the body by PDFium's image and path objects; PDFs built here."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from lastword.ingest.chunk import split_passages
from lastword.ingest.readers.pdf import read_pdf
from lastword.settings import RetrieveSettings

INTRO = [
    "Giant panda milk was collected from three captive females over the first",
    "sixty days after birth, and its proteins were separated by electrophoresis",
    "under reducing and non-reducing conditions. The whey proteins changed most",
    "in the first week, while the caseins stayed at a similar level afterwards.",
]
AFTER = [
    "The oligosaccharide fucosyllactose fell from the first to the second week",
    "in all three females, and the sialylated sugars rose in the same period.",
    "These changes mirror those reported for other bears and for the dog.",
]


def _gel_png() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("L", (300, 200), 235)
    draw = ImageDraw.Draw(image)
    for lane in range(6):
        for band in range(5):
            x, y = 30 + lane * 45, 20 + band * 35 + lane * 3
            draw.rectangle((x, y, x + 30, y + 6), fill=60)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _paper(path: Path) -> Path:
    """Page 1: body, a bar chart drawn with lines and rectangles (ticks and tick labels, a
    legend, an axis title), its caption, a table of cells, more body. Page 2: body, a gel
    picture with lane and size labels on it, its caption, and a paragraph on a shaded box."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.text(20, 20, "Milk of the Giant Panda Over Sixty Days")
    pdf.set_font("Helvetica", size=10)
    y = 35.0
    for line in INTRO:
        pdf.text(20, y, line)
        y += 5
    # a bar chart: axes, ticks, bars, tick labels, a legend, an axis title
    x0, y0, w, h = 40.0, 110.0, 110.0, 55.0  # y0: the x axis (bottom of the plot)
    pdf.set_line_width(0.3)
    pdf.line(x0, y0, x0 + w, y0)
    pdf.line(x0, y0, x0, y0 - h)
    pdf.set_font("Helvetica", size=7)
    for i, value in enumerate(("0", "0.2", "0.4", "0.6", "0.8", "1.0")):
        ty = y0 - i * h / 5
        pdf.line(x0 - 1.5, ty, x0, ty)
        pdf.text(x0 - 9, ty + 1, value)
    for i, day in enumerate(("2", "7", "14", "21", "30", "45", "60")):
        tx = x0 + 8 + i * 14
        pdf.line(tx, y0, tx, y0 + 1.5)
        pdf.set_fill_color(90, 90, 90)
        pdf.rect(tx - 3, y0 - (0.9 - 0.1 * i) * h, 6, (0.9 - 0.1 * i) * h, style="F")
        pdf.text(tx - 2, y0 + 5, day)
    pdf.text(x0 + 35, y0 + 10, "days after birth")
    pdf.rect(x0 + w - 30, y0 - h + 2, 4, 3, style="F")
    pdf.text(x0 + w - 24, y0 - h + 4.5, "Li Li")
    pdf.set_font("Helvetica", size=9)
    pdf.text(20, y0 + 18, "Figure 1. Fucosyllactose in the milk of three females by day.")
    # a table: a caption, rules, cells
    pdf.text(20, 140, "Table 1. Milk solids by week (g per 100 g).")
    pdf.line(20, 143, 150, 143)
    rows = [("Week", "Protein", "Fat", "Lactose"), ("1", "7.1", "10.2", "1.9")]
    rows += [("2", "6.4", "11.8", "2.3"), ("4", "5.9", "12.5", "2.8"), ("8", "5.2", "13.1", "3.0")]
    ty = 148.0
    for row in rows:
        for i, cell in enumerate(row):
            pdf.text(22 + i * 32, ty, cell)
        ty += 5
    pdf.line(20, ty - 3, 150, ty - 3)
    pdf.set_font("Helvetica", size=10)
    y = ty + 8
    for line in AFTER:
        pdf.text(20, y, line)
        y += 5
    # page 2: a gel picture with lane labels and sizes written over it
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    y = 25.0
    for line in INTRO[2:] + AFTER[:2]:
        pdf.text(20, y, line)
        y += 5
    pdf.image(io.BytesIO(_gel_png()), x=40, y=55, w=100, h=66)
    pdf.set_font("Helvetica", size=7)
    pdf.text(42, 60, "Mr (kDa)")
    for i, kda in enumerate(("175", "80", "58", "46", "30")):
        pdf.text(33, 64 + i * 11.5, kda)
    for lane in range(6):
        pdf.text(50 + lane * 15, 119, "ABCDEF"[lane])
    pdf.set_font("Helvetica", size=9)
    pdf.text(20, 130, "Figure 2. Milk proteins on a reducing gel, by day after birth.")
    # a paragraph on a shaded box: a background, not a figure
    pdf.set_fill_color(225, 225, 225)
    pdf.rect(18, 140, 150, 24, style="F")
    pdf.set_font("Helvetica", size=10)
    y = 146.0
    for line in AFTER:
        pdf.text(20, y, line)
        y += 5
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def passages(tmp_path_factory: pytest.TempPathFactory):
    path = _paper(tmp_path_factory.mktemp("figures") / "panda.pdf")
    document = next(read_pdf(path, path.read_bytes()))
    return split_passages(document.pages)


def _text(passages, *kinds: str) -> str:
    return " ".join(p.text for p in passages if p.kind in kinds)


def test_a_charts_ticks_legend_and_axis_title_are_figure_text(passages):
    body = _text(passages, "body", "abstract", "table")
    figure = _text([p for p in passages if p.page == 1], "figure")
    for label in ("0.2", "0.8", "1.0", "days after birth", "Li Li", "45", "60"):
        assert label in figure
    assert "days after birth" not in body and "Li Li" not in body
    assert "0.4 0.6" not in body and "14 21" not in body


def test_a_gels_lane_and_size_labels_are_figure_text(passages):
    figure = _text([p for p in passages if p.page == 2], "figure")
    for label in ("Mr (kDa)", "175", "80", "58", "46", "A", "F"):
        assert label in figure
    body = _text([p for p in passages if p.page == 2], "body", "abstract", "table")
    assert "kDa" not in body and "175" not in body


def test_captions_tables_and_body_stay_what_they_are(passages):
    captions = _text(passages, "caption")
    assert "Figure 1. Fucosyllactose in the milk of three females by day." in captions
    assert "Figure 2. Milk proteins on a reducing gel" in captions
    table = _text(passages, "table")
    assert "Week | Protein | Fat | Lactose" in table and "2 | 6.4 | 11.8 | 2.3" in table
    # every line of text is still text (on page 1 the state machine calls it front matter)
    body = _text(passages, "body", "abstract", "front")
    for line in INTRO + AFTER:
        assert line.split(",")[0] in body
    # the paragraph on a shaded box (page 2) is body, not figure text
    assert "These changes mirror those reported" in _text(
        [p for p in passages if p.page == 2], "body", "abstract"
    )


def test_figure_text_is_not_evidence_by_default():
    assert "figure" not in RetrieveSettings().evidence_kinds
    assert "figure" in RetrieveSettings(evidence_kinds=["body", "figure"]).evidence_kinds


ROWS = [  # each cell as its lines; a rule is drawn under every row
    [["Volatile or oil"], ["Dose"], ["Pathogen"], ["Measured"], ["Reference"]],
    [
        ["Thyme oil and", "carvacrol vapour"],
        ["0.1, 0.5 and", "1.0 uL per L"],
        ["Botrytis cinerea", "on grapes"],
        ["Spore germination,", "% of control"],
        ["Walter et al. [26]"],
    ],
    [
        ["Hexanal in a", "cyclodextrin", "complex"],
        ["2, 4 and 8 uL"],
        ["Colletotrichum", "acutatum"],
        ["Radial growth", "in cm2"],
        ["Almenar et al. [14]"],
    ],
    [
        ["Bergamot oil"],
        ["2% w/v"],
        ["Grey mould in", "kiwifruit"],
        ["Infected fruit,", "share of all", "fruit"],
        ["Kulakiotu et al. [8]"],
    ],
]
X = (20.0, 62.0, 95.0, 132.0, 168.0)


def _ruled_table_pdf(path: Path) -> Path:
    """A table whose cells wrap over two or three lines, a rule under every row (no cell sits
    alone on a baseline with its row's other cells), between two paragraphs."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    y = 25.0
    for line in INTRO:
        pdf.text(20, y, line)
        y += 5
    pdf.text(20, y + 4, "Table 1. Volatiles and essential oils applied against fruit moulds.")
    y += 8
    pdf.set_line_width(0.2)
    pdf.line(18, y, 198, y)
    pdf.set_font("Helvetica", size=8)
    for row in ROWS:
        depth = max(len(cell) for cell in row)
        top = y + 4
        for x, cell in zip(X, row, strict=True):
            start = top + (depth - len(cell)) * 1.8  # shorter cells centred in the row
            for i, part in enumerate(cell):
                pdf.text(x, start + i * 3.6, part)
        y = top + (depth - 1) * 3.6 + 2
        pdf.line(18, y, 198, y)
    pdf.set_font("Helvetica", size=10)
    y += 8
    for line in AFTER:
        pdf.text(20, y, line)
        y += 5
    pdf.output(str(path))
    return path


def test_a_ruled_tables_wrapped_cells_stay_in_their_row(tmp_path: Path):
    path = _ruled_table_pdf(tmp_path / "ruled.pdf")
    document = next(read_pdf(path, path.read_bytes()))
    passages = split_passages(document.pages)
    tables = [p for p in passages if p.kind == "table"]
    assert len(tables) == 1
    rows = tables[0].text.split("\n")
    assert rows[0].startswith("Table 1. Volatiles")
    assert rows[1] == "Volatile or oil | Dose | Pathogen | Measured | Reference"
    assert rows[2] == (
        "Thyme oil and carvacrol vapour | 0.1, 0.5 and 1.0 uL per L | Botrytis cinerea on "
        "grapes | Spore germination, % of control | Walter et al. [26]"
    )
    assert "Hexanal in a cyclodextrin complex | 2, 4 and 8 uL | Colletotrichum acutatum" in rows[3]
    assert rows[4].endswith("Infected fruit, share of all fruit | Kulakiotu et al. [8]")
    # no cell's line is left in the text around the table
    text = _text(passages, "body", "abstract", "front")
    for fragment in ("cyclodextrin", "kiwifruit", "Walter", "% of control"):
        assert fragment not in text
    for line in INTRO + AFTER:
        assert line.split(",")[0] in text


def test_figure_passages_are_stored_and_left_out_of_evidence(tmp_path: Path, minilm):
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings
    from lastword.store.local import LocalStore

    folder = tmp_path / "papers"
    folder.mkdir()
    _paper(folder / "panda.pdf")
    index = tmp_path / "index"
    report = ingest_paths([folder], index, minilm, IngestSettings())
    assert report.failed == []
    with LocalStore.open(index) as store:
        assert store.kind_counts().get("figure", 0) >= 2
        query = minilm.embed_queries(["Mr (kDa) 175 80 58 46 30 lanes A B C D E F"])[0]
        everything = store.search(query, 20)
        assert any(hit.passage.kind == "figure" for hit in everything)
        evidence = store.search(query, 20, kinds=RetrieveSettings().evidence_kinds)
        assert evidence and all(hit.passage.kind != "figure" for hit in evidence)
        opted = store.search(query, 20, kinds=["body", "figure"])
        assert any(hit.passage.kind == "figure" for hit in opted)
