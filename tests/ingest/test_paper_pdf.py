"""A real paper, read as a scientist reads it: PDFs built here with fpdf2 (no ../shared)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lastword.errors import IngestError
from lastword.ingest import ingest_paths
from lastword.ingest.chunk import split_passages
from lastword.ingest.readers.pdf import read_pdf
from lastword.ingest.readers.text import read_text
from lastword.settings import IngestSettings, RetrieveSettings
from lastword.store.local import LocalStore
from tests.conftest import PAPER_TITLE, make_paper_pdf

SETTINGS = IngestSettings()


def read(path: Path):
    return next(read_pdf(path, path.read_bytes()))


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory):
    path = make_paper_pdf(tmp_path_factory.mktemp("paper") / "acl07.pdf")
    return read(path)


def kinds_of(document) -> dict[str, str]:
    """Each block's text -> its kind."""
    return {
        page.text[block.start : block.end]: block.kind
        for page in document.pages
        for block in page.blocks
    }


def test_title_from_the_first_page_not_the_metadata(paper):
    assert paper.title == PAPER_TITLE
    assert paper.metadata["authors"] == ["Ann Smith", "Bob Jones", "Carl Wu"]
    assert paper.doc_id == paper.content_hash and len(paper.doc_id) == 64


def test_running_header_footer_and_page_numbers_are_dropped(paper):
    text = "\n".join(page.text for page in paper.pages)
    assert "Journal of Field Botany" not in text
    assert not any(line.strip() in {"1", "2", "3"} for line in text.splitlines())


def test_two_columns_are_read_column_by_column_with_hyphens_decided(paper):
    page = paper.pages[0].text
    # the left column's sentence is whole, not interleaved with the right column's lines
    assert "the long drought season that follows the short wet winter of the region" in page
    assert page.index("Wild emmer wheat grows") < page.index("Omega plots received")
    assert "a self-assessment of the growers" in page  # a compound keeps its hyphen
    assert "every one of the four experiments run across" in page  # a broken word is joined


def test_superscript_is_not_flattened(paper):
    assert "The seed bank held 10^10 seeds" in paper.pages[1].text


def test_kinds_front_abstract_heading_table_references(paper):
    kinds = kinds_of(paper)
    by_kind: dict[str, list[str]] = {}
    for text, kind in kinds.items():
        by_kind.setdefault(kind, []).append(text)
    assert any("University of Examples" in t for t in by_kind["front"])
    assert any("thirty percent longer" in t for t in by_kind["abstract"])
    assert "1. Introduction" in by_kind["heading"] and "References" in by_kind["heading"]
    # the table's caption is its first line, the header row its second, a row per line
    assert (
        "Table 1. Root length per treatment.\nTreatment | Root length | Plants\n"
        "Drought | 41.2 cm | 20\nWatered | 31.7 cm | 20"
    ) in by_kind["table"]
    assert "caption" not in by_kind
    assert any("Smith J, Brown K" in t for t in by_kind["references"])
    assert any("Gray T." in t for t in by_kind["references"])  # the list goes on over a page
    assert not any("Smith J" in t for t in by_kind.get("body", []))


def test_reference_entries_are_numbered(paper):
    numbers = [entry.number for entry in paper.references]
    assert numbers == [1, 2, 3, 4]
    assert paper.references[0].text.startswith("1. Smith J, Brown K. Alteration in expression")
    assert "wild emmer wheat roots. Plant Journal" in paper.references[0].text


def test_passages_never_mix_kinds_or_carry_headings(paper):
    passages = split_passages(paper.pages)
    kinds = {p.kind for p in passages}
    assert {"front", "abstract", "body", "table", "references"} <= kinds
    for passage in passages:
        assert "1. Introduction" not in passage.text
        if passage.kind == "references":
            assert (
                "Omega plots" not in passage.text and "Wild emmer wheat grows" not in passage.text
            )


def test_almost_no_text_is_reported_like_an_image_only_pdf(tmp_path: Path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Presentation1")
    for _ in range(3):
        pdf.add_page()
        pdf.set_font("Helvetica", size=11)
        pdf.text(20, 20, ".")
    path = tmp_path / "slides.pdf"
    pdf.output(str(path))
    with pytest.raises(IngestError, match="image-only"):
        read(path)


def test_markdown_headings_and_references_get_kinds(tmp_path: Path):
    path = tmp_path / "notes.md"
    path.write_text(
        "# Root study\n\nRoots grew longer under drought.\n\n## References\n\n"
        "1. Smith J. Roots. 2019.\n2. Lee A. Drought. 2018.\n3. Park S. Water. 2020.\n",
        encoding="utf-8",
    )
    document = next(read_text(path, path.read_bytes()))
    passages = split_passages(document.pages, min_words=1)
    assert [(p.kind, p.text) for p in passages] == [
        ("body", "Roots grew longer under drought."),
        ("references", "1. Smith J. Roots. 2019. 2. Lee A. Drought. 2018. 3. Park S. Water. 2020."),
    ]
    assert [r.number for r in document.references] == [1, 2, 3]


def test_ingest_stores_kinds_references_and_one_document_per_content(tmp_path: Path, minilm):
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    make_paper_pdf(folder / "sub" / "paper.pdf")
    index = tmp_path / "index"
    first = ingest_paths([folder], index, minilm, SETTINGS)
    assert first.failed == [] and first.added == ["sub/paper.pdf"]

    # a copy under another name, and the folder moved: still one document, with both paths
    shutil.copy(folder / "sub" / "paper.pdf", folder / "copy.pdf")
    moved = tmp_path / "moved"
    shutil.move(folder, moved)
    again = ingest_paths([moved], index, minilm, SETTINGS, sync=True)
    assert again.passages_embedded == 0 and again.removed == []
    with LocalStore.open(index) as store:
        (record,) = list(store.documents())
        assert record.title == PAPER_TITLE
        assert sorted(record.metadata["paths"]) == ["copy.pdf", "sub/paper.pdf"]
        assert not any(str(tmp_path) in str(v) for v in record.metadata.values())
        kinds = store.kind_counts()
        assert kinds.get("references", 0) >= 1 and kinds.get("front", 0) >= 1
        entries = store.references([record.doc_id])[record.doc_id]
        assert [e.number for e in entries] == [1, 2, 3, 4]

        query = minilm.embed_queries(["Alteration in expression of hormone-related genes"])[0]
        everything = store.search(query, 20)
        evidence = store.search(query, 20, kinds=RetrieveSettings().evidence_kinds)
        assert any(hit.passage.kind == "references" for hit in everything)
        assert evidence and all(hit.passage.kind not in ("references", "front") for hit in evidence)
        assert all(str(tmp_path) not in str(hit.passage.metadata) for hit in everything)

    # the last path gone: the document goes with --sync
    (moved / "copy.pdf").unlink()
    shutil.rmtree(moved / "sub")
    gone = ingest_paths([moved], index, minilm, SETTINGS, sync=True)
    assert gone.removed == ["copy.pdf"] or gone.removed == ["sub/paper.pdf"]


def test_a_paper_set_in_a_bold_font_keeps_its_body_lines(tmp_path: Path):
    """When the body text itself is bold, bold marks no heading: short body lines of a narrow
    column were read as headings and left out of every passage (a real paper lost half its
    text). A larger heading is still a heading."""
    from fpdf import FPDF

    body = [
        "Pioneering studies of the stress ethylene model suggested that",
        "bacterial ACC deaminase is induced by increasing amounts of",
        "its substrate, ACC. The increased amount of ACC is produced",
        "after exposure to waterlogging stress, which directly induces",
        "production of ACC deaminase inside bacteria. The molecular",
        "weight of the enzyme is 104,000 Da and its Km is 1.5 mM,",
        "whereas the enzyme of another yeast is 69,000 Da with a",
        "higher Km value of 2.6 mM in the same assay conditions.",
    ]
    import matplotlib

    # an embedded bold TrueType font: PDFium reports its weight (700); the core Helvetica-Bold
    # carries none
    bold = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
    pdf = FPDF()
    pdf.add_font("DejaVuBold", "", str(bold))
    for page in range(2):
        pdf.add_page()
        pdf.set_font("DejaVuBold", size=16)
        pdf.text(20, 25, "Bacterial Enzymes Under Waterlogged Soil" if page == 0 else "Results")
        pdf.set_font("DejaVuBold", size=10)
        y = 40.0
        for _ in range(3):
            for line in body:
                pdf.text(20, y, line)
                y += 5
            y += 5
    path = tmp_path / "bold.pdf"
    pdf.output(str(path))
    document = read(path)
    passages = split_passages(document.pages)
    text = " ".join(p.text for p in passages)
    for line in body:
        assert line in text  # every body line is in a passage
    assert "Results" not in text  # the larger heading is still a heading
    assert all(len(p.text) > 200 for p in passages if p.kind != "front")  # not one a line


def test_a_landscape_page_keeps_the_running_header_band(tmp_path: Path):
    """A wide table set sideways makes a landscape page; its running header sits as many points
    from the edge as on the portrait pages, which is a larger share of the shorter height. It is
    still page furniture, not a passage."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    sentence = (
        "Essential oils of thyme and oregano reduced grey mould on stored strawberries by "
        "about half in three trials over two seasons. "
    )
    for number, orientation in enumerate(("P", "L", "L", "P"), start=1):
        pdf.add_page(orientation=orientation)
        pdf.text(20, 20, "Microorganisms 2018, 6, 104")  # 20 mm from the top edge
        pdf.text(pdf.w - 40, 20, f"{number} of 4")
        pdf.set_xy(20, 40)
        pdf.multi_cell(pdf.w - 40, 5, sentence * 6)
    path = tmp_path / "landscape.pdf"
    pdf.output(str(path))
    document = read(path)
    text = " ".join(p.text for p in split_passages(document.pages))
    assert "strawberries" in text
    assert "Microorganisms 2018" not in text and " of 4" not in text


def test_a_doi_or_web_address_alone_is_front_matter_not_evidence(tmp_path: Path):
    """The article's DOI set alone on page 1 (BMC) and a figure's DOI under its caption (PLOS)
    were body and abstract passages, retrieved as evidence; they are front matter."""
    from fpdf import FPDF

    body = (
        "Roots of the drought plots grew deeper than those of the watered plots in each of the "
        "three seasons, and the difference was largest in the driest of them. "
    )
    pdf = FPDF()
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.text(20, 25, "Deep Roots of Wild Emmer Wheat")
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(20, 40)
    pdf.multi_cell(170, 5, "Abstract " + body * 4)
    pdf.text(20, 90, "https://doi.org/10.1186/s12906-018-2238-1")
    pdf.set_xy(20, 100)
    pdf.multi_cell(170, 5, body * 5)
    pdf.add_page()
    pdf.set_xy(20, 30)
    pdf.multi_cell(170, 5, body * 5)
    pdf.text(20, 80, "Fig 1. Root depth of the drought and the watered plots per season.")
    pdf.text(20, 90, "doi:10.1371/journal.pone.0115884.g001")
    pdf.set_xy(20, 100)
    pdf.multi_cell(170, 5, body * 3)
    path = tmp_path / "dois.pdf"
    pdf.output(str(path))
    document = read(path)
    kinds = kinds_of(document)
    assert kinds["https://doi.org/10.1186/s12906-018-2238-1"] == "front"
    assert kinds["doi:10.1371/journal.pone.0115884.g001"] == "front"
    evidence = [p for p in split_passages(document.pages) if p.kind in ("body", "abstract")]
    assert evidence and not any("doi" in p.text for p in evidence)
    assert sum(p.text.count(body.strip()) for p in evidence) == 17  # the prose around them
