"""Readers on real files made here: multi-page PDFs, broken PDFs, odd encodings, bad JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lastword.errors import IngestError
from lastword.ingest.readers import reader_for
from tests.conftest import make_pdf


def read(path: Path) -> list:
    reader = reader_for(path)
    assert reader is not None
    return list(reader(path, path.read_bytes()))


def test_pdf_text_per_page_with_page_numbers(tmp_path: Path):
    pdf = make_pdf(
        tmp_path / "paper.pdf",
        ["Alpha page talks about statins.", "", "Gamma page talks about sleep."],
        title="A Real Paper",
    )
    [doc] = read(pdf)
    assert doc.title == "A Real Paper"
    assert [p.page for p in doc.pages] == [1, 2, 3]
    assert "statins" in doc.pages[0].text and doc.pages[1].text.strip() == ""
    assert "sleep" in doc.pages[2].text
    assert doc.doc_id == doc.content_hash and len(doc.content_hash) == 64  # identity by content


def test_pdf_without_title_uses_the_file_name(tmp_path: Path):
    [doc] = read(make_pdf(tmp_path / "my-notes.pdf", ["Some text here."]))
    assert doc.title == "my-notes"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"this is not a pdf at all", "not a PDF"),
        (b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage", "corrupt"),
    ],
)
def test_broken_pdfs_get_one_clear_message(tmp_path: Path, content: bytes, message: str):
    path = tmp_path / "broken.pdf"
    path.write_bytes(content)
    with pytest.raises(IngestError) as caught:
        read(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_truncated_pdf_is_corrupt(tmp_path: Path):
    good = make_pdf(tmp_path / "good.pdf", ["Some text on a page."] * 3).read_bytes()
    path = tmp_path / "truncated.pdf"
    path.write_bytes(good[: len(good) // 3])
    with pytest.raises(IngestError, match=r"truncated\.pdf"):
        read(path)


def test_encrypted_pdf_says_a_password_is_needed(tmp_path: Path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 10, "Confidential results.")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    with pytest.raises(IngestError, match="encrypted PDF"):
        read(path)


def test_image_only_pdf_has_no_extractable_text(tmp_path: Path):
    from fpdf import FPDF

    pdf = FPDF()
    for _ in range(2):
        pdf.add_page()
        pdf.set_fill_color(40, 40, 40)
        pdf.rect(20, 20, 100, 60, style="F")  # a drawing, like a scanned image: no text layer
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    with pytest.raises(IngestError, match="no extractable text in 2 page"):
        read(path)


def test_text_and_markdown(tmp_path: Path):
    md = tmp_path / "notes.md"
    md.write_text("# Lab notes\n\nFirst paragraph.\n\nSecond paragraph.\n", encoding="utf-8")
    [doc] = read(md)
    assert doc.title == "Lab notes" and doc.pages[0].page is None
    txt = tmp_path / "plain.txt"
    txt.write_bytes("\ufeffA plain title\nbody text".encode())  # BOM is tolerated
    [doc] = read(txt)
    assert doc.title == "A plain title"


def test_non_utf8_text_names_the_byte(tmp_path: Path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("Caf\xe9 au lait".encode("latin-1"))
    with pytest.raises(IngestError, match=r"not UTF-8 text \(invalid byte 0xe9 at offset 3\)"):
        read(path)


def test_empty_text_file(tmp_path: Path):
    path = tmp_path / "empty.md"
    path.write_text("  \n\n ")
    with pytest.raises(IngestError, match="empty file"):
        read(path)


def test_jsonl_bad_lines_are_reported_and_the_rest_goes_on(tmp_path: Path):
    path = tmp_path / "corpus.jsonl"
    lines = [
        json.dumps({"id": "a", "title": "A", "text": "Alpha text.", "metadata": {"year": 2020}}),
        "{not json",
        json.dumps({"id": "b", "title": "B", "pages": ["page one", "page two"]}),
        json.dumps({"title": "no id", "text": "x"}),
        json.dumps({"id": "a", "title": "dup", "text": "again"}),
        json.dumps({"id": "c", "text": "t", "pages": ["p"]}),
        json.dumps({"id": "d", "text": "t", "colour": "red"}),
        "",
        json.dumps({"id": "e", "title": "E", "text": "Echo."}),
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    outcomes = read(path)
    docs = [o for o in outcomes if not isinstance(o, IngestError)]
    errors = [o for o in outcomes if isinstance(o, IngestError)]
    assert [d.doc_id for d in docs] == ["a", "b", "e"]
    assert [e.line for e in errors] == [2, 4, 5, 6, 7]
    assert "malformed JSON" in str(errors[0]) and f"{path}:2" in str(errors[0])
    assert "duplicate id" in str(errors[2])
    assert "exactly one of" in str(errors[3]) and "unknown field" in str(errors[4])
    assert docs[0].metadata == {"year": 2020} and docs[0].paragraphs_are_passages
    assert [p.page for p in docs[1].pages] == [1, 2]
