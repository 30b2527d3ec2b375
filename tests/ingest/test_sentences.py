"""Passages begin and end at sentence boundaries: real PDFs built here with fpdf2."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from lastword.ingest.chunk import split_passages
from lastword.ingest.readers import reader_for
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.sentences import (
    MAX_CARRIED_WORDS,
    carry_over,
    continues,
    join_continued,
    sentence_ends,
)
from lastword.settings import IngestSettings

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


HYPHENATED = (
    "Watering every second day gave a clear inhibition of root growth in the shaded plots of "
    "the third block."
)


def page_break_pdf(path: Path) -> Path:
    """Page 2 ends mid-sentence: CROSSING runs on at the top of page 3, under a figure caption
    set there; page 3 ends with "in-" and page 4 (after a page holding only a table) opens
    with "hibition": HYPHENATED cut by two page breaks. "inhibition" is attested on page 1."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    _page_one(pdf)
    pdf.text(15, 140, "Salt gave a strong inhibition of the roots of every plot.")
    head, tail = CROSSING.split(" then ")
    pdf.add_page()
    _lines(pdf, 15, 200, textwrap.wrap(" ".join([*_sentences("dry", 4), head]), 90))
    pdf.add_page()
    y = _lines(pdf, 15, 30, ["Figure 1. Root length of the dry plots per block."])
    first, second = HYPHENATED.split("inhibition")
    lines = textwrap.wrap(" ".join(["then " + tail, *_sentences("wet", 4), first.strip()]), 90)
    _lines(pdf, 15, y + 10, [*lines[:-1], lines[-1] + " in-"])
    pdf.add_page()  # a page of one table only
    for i, row in enumerate([("Block", "Roots", "Plants"), ("1", "41.2 cm", "20")]):
        for x, cell in zip((15, 80, 150), row, strict=True):
            pdf.text(x, 40 + 6 * i, cell)
    pdf.add_page()
    _lines(pdf, 15, 30, textwrap.wrap(" ".join(["hibition" + second, *_sentences("cut", 3)]), 90))
    pdf.output(str(path))
    return path


def test_a_sentence_cut_by_a_page_break_belongs_to_the_page_it_starts_on(tmp_path: Path):
    """With ``[ingest] join_across_pages`` (on by default, ``reader_for`` passes it on)."""
    path = page_break_pdf(tmp_path / "pages.pdf")
    cut = _read(path)  # ``read_pdf`` without the join: each page holds only its own text
    assert _body(cut, 2)[-1].endswith("second drought were")
    assert _body(cut, 3)[0].startswith("then moved to a shaded greenhouse")
    assert IngestSettings().join_across_pages  # on by default
    off = reader_for(path, IngestSettings(join_across_pages=False))
    assert off is not None
    assert _body(next(off(path, path.read_bytes())), 2)[-1].endswith("second drought were")
    reader = reader_for(path, IngestSettings())
    assert reader is not None
    document = next(reader(path, path.read_bytes()))
    page_two, page_three, page_five = _body(document, 2), _body(document, 3), _body(document, 5)
    assert CROSSING in page_two[-1], page_two  # the sentence whole, on its first page
    assert page_two[-1].endswith(CROSSING)
    assert HYPHENATED in page_three[-1], page_three  # "in-" + "hibition", over a table page
    # what is left on the next page opens a sentence; no fragment of the moved words stays
    assert page_three[0].startswith("The wet plots of block 1"), page_three
    assert page_five[0].startswith("The cut plots of block 1"), page_five
    assert "hibition" not in " ".join(page_five) and "recovered" not in " ".join(page_three)
    captions = [p for p in split_passages(document.pages) if p.kind == "caption"]
    assert [(p.page, p.text) for p in captions] == [
        (3, "Figure 1. Root length of the dry plots per block.")
    ]
    # offsets point into each page's own text, blocks included
    pages = {page.page: page for page in document.pages}
    for p in split_passages(document.pages):
        original = pages[p.page].text[p.char_start : p.char_end]
        assert " ".join(original.split()) == " ".join(p.text.split())
    for page in document.pages:
        for block in page.blocks:
            assert page.text[block.start : block.end].strip()


def test_carry_over_moves_the_words_up_to_the_sentence_end():
    pages = [
        [("body", "Roots grew. The plants were"), ("caption", "Figure 1."), ("front", "CC BY")],
        [("figure", "x y"), ("body", "moved in June (as in e.g. 2019). Then they grew.")],
        [("body", "After a heading"), ("heading", "2. Methods")],
        [("body", "then a new paragraph.")],  # after a heading: left where it is
        [("table", "A | B")],
    ]
    assert carry_over(pages, " ".join) == [
        [
            ("body", "Roots grew. The plants were moved in June (as in e.g. 2019)."),
            ("caption", "Figure 1."),
            ("front", "CC BY"),
        ],
        [("figure", "x y"), ("body", "Then they grew.")],
        [("body", "After a heading"), ("heading", "2. Methods")],
        [("body", "then a new paragraph.")],
        [("table", "A | B")],
    ]
    # a fragment with no sentence end moves whole; a capital, another kind, or a "sentence"
    # of more than MAX_CARRIED_WORDS words is no continuation carried over
    assert carry_over([[("body", "the plants were")], [("body", "not there")]], " ".join) == [
        [("body", "the plants were not there")],
        [],
    ]
    for second in [
        ("body", "Roots grew."),
        ("abstract", "then grew."),
        ("body", "then " + "grew " * MAX_CARRIED_WORDS + "fast. Then stopped."),
    ]:
        pages = [[("body", "the plants grew tall")], [second]]
        assert carry_over(pages, " ".join) == pages
