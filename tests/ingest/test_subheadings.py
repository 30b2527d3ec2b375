"""Subheadings set apart only by their face (``ingest.subheadings``): a bold run-in heading
opening a paragraph's first line, a short line in another font over a paragraph. Built here with
fpdf2's core fonts (Times body, Times-Bold / Helvetica headings, Times-Italic species names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.ingest.chunk import split_passages
from lastword.ingest.readers import reader_for
from lastword.ingest.readers.pdf import read_pdf
from lastword.settings import IngestSettings

FILLER = (
    "Leaves were collected from plants grown in the field station over two seasons and dried "
    "in the shade before they were ground to a fine powder for every assay reported here."
)


def _paragraph(pdf, y: float, parts: list[tuple[str, str]], rest: list[str]) -> float:
    """One paragraph: a first line of (style, text) runs on one baseline, then body lines."""
    x = 20.0
    for style, text in parts:
        family = "Helvetica" if style == "H" else "Times"
        pdf.set_font(family, style="" if style == "H" else style, size=10)
        pdf.text(x, y, text)
        x += pdf.get_string_width(text)
    pdf.set_font("Times", size=10)
    for line in rest:
        y += 5
        pdf.text(20, y, line)
    return y + 8


def _filler(pdf, y: float) -> float:
    words = FILLER.split()
    lines = [" ".join(words[i : i + 11]) for i in range(0, len(words), 11)]
    return _paragraph(pdf, y, [("", lines[0])], lines[1:])


def make_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Times", style="B", size=16)
    pdf.text(20, 20, "Antimicrobial Activity of Ocimum micranthum")
    _filler(pdf, 35.0)
    pdf.add_page()  # the body, past the front matter of page 1
    y = _filler(pdf, 20.0)
    y = _paragraph(  # a bold run-in heading: a heading of its own
        pdf,
        y,
        [("B", "Microbial strains. "), ("", "Antimicrobial activity of the essential oil was")],
        ["evaluated against five strains of bacteria from the hospital collection."],
    )
    y = _filler(pdf, y)
    y = _paragraph(  # a short line in another face (sans over a serif body): a heading
        pdf, y, [("H", "Preparation of the ethanolic extract")], []
    )
    y -= 3
    y = _paragraph(
        pdf,
        y,
        [("", "The ethanolic extract was obtained by Soxhlet extraction of fifty")],
        ["grams of the dried leaves over six hours at the boiling point of the solvent."],
    )
    y = _paragraph(  # control: a bold word inside a sentence
        pdf,
        y,
        [("", "The essential oil was "), ("B", "strongly"), ("", " active against all strains")],
        ["of the panel, more than the aqueous extract in every repeated assay."],
    )
    y = _paragraph(  # control: a bold first word that is the sentence's subject
        pdf,
        y,
        [("B", "Garlic"), ("", " was added to the feed at two per cent for six weeks in")],
        ["the second trial, with the same birds and the same diet otherwise."],
    )
    y = _paragraph(  # control: an italic species name opening a sentence
        pdf,
        y,
        [("I", "Ocimum micranthum"), ("", " Willd was collected in Campeche in the spring")],
        ["of the same year and identified at the herbarium of the university."],
    )
    _filler(pdf, y)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def pdf_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pdf(tmp_path_factory.mktemp("subheadings") / "runin.pdf")


def _read(path: Path, on: bool = True):  # the reader's own switch
    document = next(read_pdf(path, path.read_bytes(), subheadings=on))
    return document, " ".join(p.text for p in split_passages(document.pages))


def _blocks(document) -> dict[str, str]:
    return {
        page.text[block.start : block.end]: block.kind
        for page in document.pages
        for block in page.blocks
    }


def test_a_bold_run_in_heading_is_a_heading_and_the_sentence_starts_clean(pdf_path: Path):
    document, text = _read(pdf_path)
    assert "Microbial strains" not in text  # never passage text
    assert "Antimicrobial activity of the essential oil was evaluated against five" in text
    assert _blocks(document).get("Microbial strains.") == "heading"  # kept as context


def test_a_short_line_in_another_face_is_a_heading(pdf_path: Path):
    document, text = _read(pdf_path)
    assert "Preparation of the ethanolic extract" not in text
    assert "The ethanolic extract was obtained by Soxhlet extraction" in text
    assert _blocks(document).get("Preparation of the ethanolic extract") == "heading"


def test_bold_words_and_italic_species_names_in_sentences_stay_text(pdf_path: Path):
    _document, text = _read(pdf_path)
    assert "The essential oil was strongly active against all strains" in text
    assert "Garlic was added to the feed at two per cent" in text
    assert "Ocimum micranthum Willd was collected in Campeche" in text


def test_off_the_heading_is_glued_to_the_sentence_as_before(pdf_path: Path):
    """``[ingest] subheadings = false`` (the default, see docs/ingest.md): the old reading, the
    heading inside the sentence; ``reader_for`` passes the setting on."""
    _document, text = _read(pdf_path, on=False)
    assert "Microbial strains. Antimicrobial activity of the essential oil" in text
    off = reader_for(pdf_path, IngestSettings(subheadings=False))
    assert off is not None
    document = next(off(pdf_path, pdf_path.read_bytes()))
    assert "Microbial strains" in " ".join(p.text for p in split_passages(document.pages))
    assert not IngestSettings().subheadings  # off by default
    on = reader_for(pdf_path, IngestSettings(subheadings=True))
    assert on is not None
    document = next(on(pdf_path, pdf_path.read_bytes()))
    assert "Microbial strains" not in " ".join(p.text for p in split_passages(document.pages))
