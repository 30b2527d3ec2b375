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


SERIF, SANS = "Times", "Helvetica"  # set by ``make_pdf``: core fonts or embedded TrueType


def _paragraph(pdf, y: float, parts: list[tuple[str, str]], rest: list[str]) -> float:
    """One paragraph: a first line of (style, text) runs on one baseline, then body lines."""
    x = 20.0
    for style, text in parts:
        family = SANS if style == "H" else SERIF
        pdf.set_font(family, style="" if style == "H" else style, size=10)
        pdf.text(x, y, text)
        x += pdf.get_string_width(text)
    pdf.set_font(SERIF, size=10)
    for line in rest:
        y += 5
        pdf.text(20, y, line)
    return y + 8


def _filler(pdf, y: float) -> float:
    words = FILLER.split()
    lines = [" ".join(words[i : i + 11]) for i in range(0, len(words), 11)]
    return _paragraph(pdf, y, [("", lines[0])], lines[1:])


def make_pdf(path: Path, embedded: bool = False) -> Path:
    """Core fonts (PDFium reports no weight: bold only by the name), or ``embedded`` DejaVu
    TrueType fonts (PDFium reports the bold weight, 700)."""
    from fpdf import FPDF

    global SERIF, SANS
    pdf = FPDF()
    SERIF, SANS = "Times", "Helvetica"
    if embedded:
        import matplotlib

        fonts = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
        for style, name in (
            ("", "DejaVuSerif"),
            ("B", "DejaVuSerif-Bold"),
            ("I", "DejaVuSerif-Italic"),
        ):
            pdf.add_font("Serif", style, str(fonts / f"{name}.ttf"))
        pdf.add_font("Sans", "", str(fonts / "DejaVuSans.ttf"))
        SERIF, SANS = "Serif", "Sans"
    pdf.add_page()
    pdf.set_font(SERIF, style="B", size=16)
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


@pytest.fixture(scope="module", params=["core", "embedded"])
def pdf_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("subheadings")
    return make_pdf(folder / f"runin-{request.param}.pdf", embedded=request.param == "embedded")


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


def test_the_rest_of_a_cut_line_is_body_text_even_when_its_first_character_was_bold(
    pdf_path: Path,
):
    """A line's weight is its first character's: the body after a cut bold run-in heading is
    not bold (it was, and a short rest, "We present VESPA, software capable of automating a
    selective pressure", was read as a heading and lost)."""
    document, _text = _read(pdf_path)
    first = "Antimicrobial activity of the essential oil was evaluated"
    assert any(v == "body" and k.startswith(first) for k, v in _blocks(document).items())


def test_as_paragraphs_a_subheading_opens_the_passage_it_heads(pdf_path: Path):
    """``[ingest] subheading_paragraphs``: the subheading is a paragraph of its own at the head
    of its passage (its words there for retrieval), never inside the first sentence."""
    document = next(
        read_pdf(pdf_path, pdf_path.read_bytes(), subheadings=True, subheading_paragraphs=True)
    )
    passages = split_passages(document.pages)
    texts = [p.text for p in passages]
    joined = "\n\n".join(texts)
    # a paragraph of its own (a passage under its minimum takes it whole, a longer one opens
    # at it), never the end of a passage, never inside the first sentence
    assert "\n\nMicrobial strains.\n\nAntimicrobial activity of the essential oil" in joined
    assert "Preparation of the ethanolic extract\n\nThe ethanolic extract was" in joined
    assert not any(t.rstrip().endswith(("Microbial strains.", "ethanolic extract")) for t in texts)
    assert all(p.kind in ("body", "front", "abstract") for p in passages)


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
    if "embedded" in pdf_path.name:
        # a line's weight is its first character's: the whole line, the heading and the
        # sentence's first words, is read as a bold heading and those words are lost
        assert "Antimicrobial activity of the essential oil was" not in text
    else:
        assert "Microbial strains. Antimicrobial activity of the essential oil" in text
    off = reader_for(pdf_path, IngestSettings(subheadings=False))
    assert off is not None
    document = next(off(pdf_path, pdf_path.read_bytes()))
    off_text = " ".join(p.text for p in split_passages(document.pages))
    assert ("embedded" in pdf_path.name) != ("Microbial strains" in off_text)
    assert not IngestSettings().subheadings  # off by default
    on = reader_for(pdf_path, IngestSettings(subheadings=True))
    assert on is not None
    document = next(on(pdf_path, pdf_path.read_bytes()))
    assert "Microbial strains" not in " ".join(p.text for p in split_passages(document.pages))
