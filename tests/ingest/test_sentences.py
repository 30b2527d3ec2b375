"""Passages begin and end at sentence boundaries: real PDFs built here with fpdf2."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from lastword.ingest.chunk import split_passages
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.sentences import continues, join_continued, sentence_ends

CROSSING = (
    "The seedlings that survived the second drought were then moved to a shaded greenhouse "
    "where they recovered within nine days."
)
WITH_ABBREVIATIONS = (
    "As Smith et al. (2019) reported for Fusarium sp. 12 and as Fig. 2 shows, roots of e.g. "
    "the wild accessions grew 3.5 cm deeper, which J. Smith confirmed in a later season."
)


def _sentences(topic: str, count: int) -> list[str]:
    return [
        f"The {topic} plots of block {i + 1} were measured every morning for root length, "
        f"leaf area and soil water content at three depths."
        for i in range(count)
    ]


def _page_one(pdf) -> None:  # type: ignore[no-untyped-def]
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.text(15, 35, "Roots of Wild Emmer Wheat Under Drought")
    pdf.set_font("Helvetica", size=10)
    pdf.text(15, 44, "Ann Smith and Bob Jones")
    pdf.set_font("Helvetica", style="B", size=12)
    pdf.text(15, 60, "1. Introduction")
    pdf.set_font("Helvetica", size=10)
    for i, line in enumerate(textwrap.wrap(" ".join(_sentences("first", 6)), 90)):
        pdf.text(15, 70 + 5 * i, line)


def _lines(pdf, x: float, y: float, lines: list[str]) -> float:  # type: ignore[no-untyped-def]
    pdf.set_font("Helvetica", size=10)
    for line in lines:
        pdf.text(x, y, line)
        y += 5
    return y


def _read(path: Path):  # type: ignore[no-untyped-def]
    return next(read_pdf(path, path.read_bytes()))


def _body(document, page: int) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        p.text
        for p in split_passages(document.pages)
        if p.page == page and p.kind in {"body", "abstract"}
    ]


def two_column_pdf(path: Path) -> Path:
    """Page 2: a short paragraph, then one whose sentence CROSSING runs from the foot of the
    left column to the top of the right one, then a paragraph filling the right column. Packed
    without the join, the passage cut falls at the column break (a passage opening "then")."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    _page_one(pdf)
    pdf.add_page()
    y = _lines(pdf, 15, 30, textwrap.wrap(" ".join(_sentences("dry", 4)), 42))
    head, tail = CROSSING.split(" then ")
    _lines(pdf, 15, y + 8, textwrap.wrap(" ".join([*_sentences("wet", 5), head]), 42))
    y = _lines(pdf, 110, 30, textwrap.wrap(" ".join(["then " + tail, *_sentences("cut", 2)]), 42))
    _lines(pdf, 110, y + 8, textwrap.wrap(" ".join(_sentences("shaded", 7)), 42))
    pdf.output(str(path))
    return path


def test_a_paragraph_continued_in_the_next_column_is_one_passage(tmp_path: Path):
    document = _read(two_column_pdf(tmp_path / "columns.pdf"))
    passages = _body(document, 2)
    assert any(CROSSING in text for text in passages), passages  # the sentence whole
    for text in passages:
        assert text[0].isupper() and text.endswith("three depths."), text
    # offsets still point into the page's text, which holds the joined paragraph
    page = document.pages[1]
    for p in split_passages(document.pages):
        if p.page == 2:
            original = " ".join(page.text[p.char_start : p.char_end].split())
            assert " ".join(p.text.split()) == original


def figure_in_paragraph_pdf(path: Path) -> Path:
    """Page 2, one column: a paragraph whose sentence CROSSING is broken by a figure caption
    set between its halves."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    _page_one(pdf)
    pdf.add_page()
    head, tail = CROSSING.split(" then ")
    above = textwrap.wrap(" ".join([*_sentences("dry", 12), head]), 90)
    y = _lines(pdf, 15, 30, above)
    y = _lines(pdf, 15, y + 10, ["Figure 1. Root length of the dry plots per block."])
    below = textwrap.wrap(" ".join(["then " + tail, *_sentences("wet", 5)]), 90)
    _lines(pdf, 15, y + 10, below)
    pdf.output(str(path))
    return path


def test_a_caption_set_inside_a_paragraph_does_not_cut_its_sentence(tmp_path: Path):
    document = _read(figure_in_paragraph_pdf(tmp_path / "figure.pdf"))
    passages = _body(document, 2)
    assert any(CROSSING in text for text in passages), passages
    assert all(text[0].isupper() and text.endswith(".") for text in passages), passages
    captions = [p.text for p in split_passages(document.pages) if p.kind == "caption"]
    assert captions == ["Figure 1. Root length of the dry plots per block."]


def long_paragraph_pdf(path: Path) -> Path:
    """Page 2: one paragraph of ~420 words (over the 300-word maximum) holding a sentence full
    of abbreviations, an initial and a decimal."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    _page_one(pdf)
    pdf.add_page()
    sentences = _sentences("dry", 13)
    sentences.insert(8, WITH_ABBREVIATIONS)  # where a cut at "J." would fall without the check
    _lines(pdf, 15, 30, textwrap.wrap(" ".join(sentences), 95))
    pdf.output(str(path))
    return path


def test_a_long_paragraph_splits_at_a_sentence_end_not_at_an_abbreviation(tmp_path: Path):
    document = _read(long_paragraph_pdf(tmp_path / "long.pdf"))
    passages = _body(document, 2)
    assert len(passages) == 2, passages
    for text in passages:
        assert len(text.split()) <= 300
        assert text[0].isupper() and text.endswith(("three depths.", "later season.")), text
    assert sum(WITH_ABBREVIATIONS in text for text in passages) == 1


def _ends(text: str) -> list[str]:
    return [text[: m.start()].split()[-1] for m in sentence_ends(text)]


def test_sentence_ends_skip_abbreviations_initials_and_decimals():
    assert _ends(WITH_ABBREVIATIONS + " Next one.") == ["season."]
    assert _ends("It grew (Fig. 3). Then it died. Roots e.g. Fusarium spp. Grew.") == [
        "3).",
        "died.",
    ]
    # the plain regex (no abbreviation check) would have cut at every one of them
    plain = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9(\[\"'])")
    assert len(plain.findall(WITH_ABBREVIATIONS)) == 4


def test_which_blocks_continue_a_sentence():
    assert continues("the plants were then", "moved to the greenhouse.")
    assert continues("measured in Table 2, and", "Fusarium grew.")  # an open clause
    assert not continues("The plants were moved.", "then they grew.")  # an end mark
    assert not continues("The plants were measured", "Roots grew.")  # a capital after a word
    assert not continues("relative TLR 4 mRNA expression", "a,b,cMean values bearing")
    assert not continues("of the plants in the", "doi:10.1371/journal.pone.0115884.g001")
    assert not continues("similar affinity [28]. While this", "Abbreviations: ACE, enzyme")
    assert not continues("breeding lines are", "NSnot significantly different")
    assert not continues("p < 0.001 d Among clusters", "e")  # a footnote mark alone
    blocks = [
        ("body", "A first sentence. The plants were"),
        ("caption", "Figure 1. Plants."),
        ("table", "A | B"),
        ("body", "moved in June."),
        ("heading", "2. Methods"),
        ("body", "then watered."),  # after a heading: a new paragraph, left as it is
    ]
    assert join_continued(blocks, " ".join) == [
        ("body", "A first sentence. The plants were moved in June."),
        ("caption", "Figure 1. Plants."),
        ("table", "A | B"),
        ("heading", "2. Methods"),
        ("body", "then watered."),
    ]
