"""Fixtures shared by the whole suite: the real MiniLM model, real data, real PDFs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def datasets_path() -> Path:
    """../shared/datasets beside the repository, or $LASTWORD_DATASETS."""
    return Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    path = datasets_path()
    if not (path / "pubmedqa" / "ori_pqal.json").is_file():
        pytest.skip(f"real data sets not found at {path}")
    return path


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 (one load per test process)."""
    from lastword.embed.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def make_pdf(path: Path, pages: Sequence[str], title: str | None = None) -> Path:
    """A real multi-page PDF with the given text on each page (blank string: a blank page)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(auto=False)
    if title:
        pdf.set_title(title)
    for text in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        if text:
            pdf.multi_cell(0, 5, text)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory, minilm) -> Path:
    """The shipped demo corpus, ingested once with the real model."""
    from lastword.demo import demo_corpus_dir
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    index = tmp_path_factory.mktemp("demo") / "index"
    ingest_paths([demo_corpus_dir()], index, minilm, IngestSettings())
    return index


PAPER_TITLE = "Drought Tolerance of Wild Emmer Wheat Roots"
LEFT_COLUMN = [
    "Wild emmer wheat grows on dry slopes where",
    "water is scarce for most of the summer and",
    "roots must reach deep soil layers to survive",
    "the long drought season that follows the",
    "short wet winter of the region studied here.",
    "We measured root length in forty plants and",
    "a self-",
    "assessment of the growers was recorded too.",
]
RIGHT_COLUMN = [
    "Omega plots received no irrigation at all and",
    "their roots grew longer than those of the",
    "watered plots in every one of the four experi-",
    "ments run across the two seasons of the trial.",
    "The seed bank held 10",  # followed by a raised, smaller "10": 10^10
    "Seeds were sown in early spring on every plot",
    "of the field station near the northern border",
    "and harvested by hand in late summer each year.",
]
REFERENCES = [
    "1. Smith J, Brown K. Alteration in expression of hormone-related genes in",
    "wild emmer wheat roots. Plant Journal. 2019;12:1-9.",
    "2. Lee A. Root architecture under drought stress in durum wheat. Crop Sci. 2018;4:5-6.",
    "3. Park S. Water use efficiency of ancient wheat species. Field Res. 2020;8:10-20.",
]


def make_paper_pdf(path: Path, metadata_title: str = "Microsoft Word - draft.doc") -> Path:
    """A real two-column paper: running header and footer on every page, a title, authors,
    an abstract, a hyphenated compound and a line-break hyphen, a superscript, a table and a
    numbered references section."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.set_title(metadata_title)

    def furniture(number: int) -> None:
        pdf.set_font("Helvetica", size=8)
        pdf.text(15, 12, "Journal of Field Botany 2024; 7: 101-112")
        pdf.text(100, 290, str(number))

    def column(x: float, y: float, lines: list[str], size: int = 10) -> float:
        pdf.set_font("Helvetica", size=size)
        for line in lines:
            pdf.text(x, y, line)
            y += 5
        return y

    # page 1: title, authors, abstract, two columns
    pdf.add_page()
    furniture(1)
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.text(15, 35, PAPER_TITLE)
    pdf.set_font("Helvetica", size=10)
    pdf.text(15, 44, "Ann Smith, Bob Jones and Carl Wu")
    pdf.text(15, 50, "Department of Plant Science, University of Examples, ann@example.org")
    pdf.set_font("Helvetica", style="B", size=12)
    pdf.text(15, 62, "Abstract")
    column(
        15,
        69,
        [
            "Roots of wild emmer wheat were measured under drought and under irrigation in a",
            "two-season field trial; droughted roots were thirty percent longer than watered ones.",
        ],
    )
    pdf.set_font("Helvetica", style="B", size=12)
    pdf.text(15, 90, "1. Introduction")
    column(15, 100, LEFT_COLUMN)
    column(110, 100, [*RIGHT_COLUMN[:4], "A second plot series was kept under a rain shelter"])
    # page 2: more columns, a superscript, a table, the references
    pdf.add_page()
    furniture(2)
    column(15, 30, LEFT_COLUMN[:6])
    y = column(110, 30, RIGHT_COLUMN[4:5])
    pdf.set_font("Helvetica", size=10)
    width = pdf.get_string_width(RIGHT_COLUMN[4])
    pdf.set_font("Helvetica", size=6)
    pdf.text(110 + width + 0.3, y - 5 - 1.8, "10")
    pdf.set_font("Helvetica", size=10)
    pdf.text(110 + width + 3.2, y - 5, " seeds of the wild accessions.")
    column(110, y, [*RIGHT_COLUMN[5:], "under the same rules as in the first season."])
    pdf.set_font("Helvetica", size=10)
    pdf.text(15, 80, "Table 1. Root length per treatment.")
    for i, row in enumerate(
        [
            ("Treatment", "Root length", "Plants"),
            ("Drought", "41.2 cm", "20"),
            ("Watered", "31.7 cm", "20"),
        ]
    ):
        for x, cell in zip((15, 80, 150), row, strict=True):
            pdf.text(x, 88 + 6 * i, cell)
    pdf.set_font("Helvetica", style="B", size=12)
    pdf.text(15, 120, "References")
    column(15, 128, REFERENCES, size=9)
    # page 3: the rest of the list, and a licence line after it
    pdf.add_page()
    furniture(3)
    column(15, 30, ["4. Gray T. Deep roots in dry lands. Soil Biol. 2017;3:3-4."], size=9)
    pdf.output(str(path))
    return path
