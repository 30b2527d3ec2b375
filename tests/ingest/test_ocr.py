"""OCR of scanned PDFs (``ingest.ocr``): image-only PDFs built here from real rendered pages
(fpdf2, then pypdfium2 at 150 dpi, saved by Pillow with no text layer), read by the real
Tesseract. Fresh clone: no ../shared needed (``test_ocr_scans.py`` reads the real scans)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from lastword.errors import IngestError
from lastword.ingest import ingest_paths
from lastword.ingest.layout import Line, Page
from lastword.ingest.ocr import OcrOptions, read_pages
from lastword.ingest.ocr.image import render
from lastword.ingest.ocr.marks import passage_mark
from lastword.ingest.ocr.quality import pages_to_ocr
from lastword.ingest.ocr.tesseract import available
from lastword.ingest.readers.pdf import read_pdf
from lastword.ocr_marks import ocr_mark, passage_key
from lastword.result import RetrievedPassage
from lastword.settings import IngestSettings
from lastword.store.local import LocalStore
from tests.conftest import PAPER_TITLE, make_paper_pdf, make_pdf

STATINS = (
    "Statin therapy lowers LDL cholesterol in adults. In this trial 200 patients took "
    "atorvastatin for twelve weeks. Muscle symptoms were reported as often on placebo as on "
    "the statin, and liver enzymes stayed normal in every group."
)
SLEEP = (
    "Aerobic exercise improved sleep quality in adults with insomnia after eight weeks. "
    "Sleep onset latency shortened by twelve minutes, and 350 of the sleepers kept a diary "
    "of their nights for the whole of the study."
)

needs_tesseract = pytest.mark.skipif(
    not available() and not os.environ.get("CI"),
    reason="tesseract is not installed (scripts/setup installs it; CI must have it)",
)
pytestmark = needs_tesseract


def scanned(source: Path, out: Path, dpi: int = 150, turn: dict[int, int] | None = None) -> Path:
    """An image-only copy of ``source``: each page rendered at ``dpi`` (page n turned by
    ``turn[n]`` degrees counter-clockwise), saved as JPEG images in a PDF without text."""
    pdf = pdfium.PdfDocument(source)
    images = []
    try:
        for i in range(len(pdf)):
            image = pdf[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
            angle = (turn or {}).get(i + 1, 0)
            if angle:
                image = image.rotate(angle, expand=True, fillcolor=255)
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=80)
            images.append(Image.open(io.BytesIO(buffer.getvalue())))
    finally:
        pdf.close()
    images[0].save(out, format="PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return out


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ocr-cache")


@pytest.fixture(scope="module")
def settings(cache: Path) -> IngestSettings:
    return IngestSettings(ocr_dpi=200, ocr_cache=str(cache))


def read(path: Path, settings: IngestSettings, mode: str | None = None) -> tuple[list, list]:
    from lastword.ingest.ocr import options_from

    outcomes = list(
        read_pdf(
            path,
            path.read_bytes(),
            join_across_pages=True,
            ocr=mode or settings.ocr,
            ocr_options=options_from(settings),
        )
    )
    documents = [o for o in outcomes if not isinstance(o, IngestError)]
    return documents, [o for o in outcomes if isinstance(o, IngestError)]


@pytest.fixture(scope="module")
def statins_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("statins")
    born = make_pdf(folder / "born.pdf", [STATINS, SLEEP])
    return scanned(born, folder / "statins.pdf", turn={2: 90})


@pytest.fixture(scope="module")
def paper_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("paper")
    born = make_paper_pdf(folder / "born.pdf")
    return scanned(born, folder / "paper.pdf", dpi=200)


def test_an_image_only_pdf_is_read_and_marked(statins_scan: Path, settings):
    [doc], failed = read(statins_scan, settings)
    assert not failed
    text = " ".join(doc.pages[0].text.split())
    assert "In this trial 200 patients took atorvastatin" in text
    pages = doc.metadata["ocr"]["pages"]
    assert pages["1"]["why"] == "no text layer" and pages["1"]["confidence"] > 0.8
    assert doc.metadata["ocr"]["engine"].startswith("tesseract 5")


def test_a_page_turned_a_quarter_is_read_upright(statins_scan: Path, settings):
    [doc], _ = read(statins_scan, settings)
    assert "and 350 of the sleepers kept a diary" in " ".join(doc.pages[1].text.split())
    assert doc.metadata["ocr"]["pages"]["2"]["rotation"] in (90, 270)


def test_ocr_never_reports_the_image_only_pdf(statins_scan: Path, settings):
    with pytest.raises(IngestError, match=r"image-only PDF; OCR is off"):
        read(statins_scan, settings, mode="never")


def test_a_reading_is_cached_by_the_page_image(statins_scan: Path, settings, monkeypatch):
    read(statins_scan, settings)  # cached by now (or by the tests above)
    from lastword.ingest.ocr import tesseract

    def no_engine(*args, **kwargs):
        raise AssertionError("a cached page was read again")

    monkeypatch.setattr(tesseract.TesseractEngine, "read", no_engine)
    [doc], failed = read(statins_scan, settings)
    assert not failed and "atorvastatin" in doc.pages[0].text


def test_a_scanned_paper_reads_like_the_born_digital_one(paper_scan: Path, settings):
    [doc], failed = read(paper_scan, settings)
    assert not failed
    assert doc.title == PAPER_TITLE
    first = " ".join(doc.pages[0].text.split())
    # two columns read column by column: the left column's sentence whole, then the right's
    assert "the long drought season that follows the short wet winter" in first
    assert first.index("Wild emmer wheat grows") < first.index("Omega plots received")
    text = "\n".join(page.text for page in doc.pages)
    assert "Journal of Field Botany" not in text  # the running header is furniture
    kinds = {page.text[b.start : b.end]: b.kind for page in doc.pages for b in page.blocks}
    references = [t for t, k in kinds.items() if k == "references"]
    assert any("Root architecture under drought stress" in t for t in references)
    assert not any("Root architecture" in t for t, k in kinds.items() if k in ("body", "abstract"))


def test_a_page_ocr_fails_on_is_one_message_and_the_rest_goes_on(tmp_path: Path, cache):
    folder = tmp_path / "mixed"
    folder.mkdir()
    scan = scanned(make_pdf(folder / "born.pdf", [STATINS]), folder / "scan.pdf")
    text = make_pdf(folder / "text.pdf", [STATINS])
    # a two-page PDF: a born-digital page, then the scanned one
    merged = pdfium.PdfDocument.new()
    for part in (text, scan):
        merged.import_pages(pdfium.PdfDocument(part))
    path = folder / "both.pdf"
    merged.save(str(path))
    slow = IngestSettings(ocr_page_seconds=0.001, ocr_cache=str(tmp_path / "empty-cache"))
    [doc], failed = read(path, slow)
    assert [str(e) for e in failed] == [
        f"{path}: page 2: OCR failed (tesseract took longer than 0 s)"
    ]
    assert "atorvastatin" in doc.pages[0].text and doc.pages[1].text == ""


def test_a_huge_page_is_rendered_within_the_pixel_budget(tmp_path: Path):
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(14_400, 14_400)  # 200 inches square: 36,000 pixels a side at 180 dpi
    image, scale = render(pdf[0], 300, 4_000_000)
    assert image.size[0] * image.size[1] <= 4_000_000
    assert scale == pytest.approx(2000 / 14_400, rel=0.01)


def test_broken_text_layers_are_found():
    def page(number: int, text: str) -> Page:
        words = text.split()
        lines = [
            Line(" ".join(words[i : i + 10]), 0, 100, 0, 10, 10, number)
            for i in range(0, len(words), 10)
        ]
        return Page(number, 600, 800, lines, sum(len(w) for w in words))

    prose = "the roots of wheat grew longer under drought than under irrigation " * 6
    glyphs = "\ue001\ue002\ue003 \ue004\ue005 " * 20
    garbled = "#$%& '()* +,-. /0@! " * 20
    pages = [page(1, prose), page(2, glyphs), page(3, garbled), page(4, prose), page(5, "")]
    assert pages_to_ocr(pages, "auto") == {
        2: "unmapped glyphs in the text layer",
        3: "few words in the text layer",
        5: "no text layer",
    }
    assert pages_to_ocr(pages, "never") == {}
    assert set(pages_to_ocr(pages, "always")) == {1, 2, 3, 4, 5}


def test_a_low_confidence_number_is_marked_with_its_passage():
    words = [
        ("In", 0.97),
        ("this", 0.96),
        ("trial", 0.95),
        ("200", 0.41),
        ("pa-", 0.9),
        ("tients", 0.93),
        ("took", 0.96),
        ("it.", 0.95),
    ]
    text = "In this trial 200 patients took it."
    mean, spans = passage_mark(text, words, low=0.8)
    assert spans == [(14, 17)] and text[14:17] == "200"
    metadata = {
        "ocr": {
            "engine": "tesseract",
            "low": 0.8,
            "passages": {passage_key(text): [round(mean, 3), *spans[0]]},
        }
    }
    mark = ocr_mark(text, metadata)
    assert mark is not None and mark.is_low(14, 17) and not mark.is_low(0, 13)
    assert ocr_mark("another passage", metadata) is None


def test_ingest_stores_the_mark_and_retrieval_shows_it(
    tmp_path: Path, statins_scan: Path, settings, minilm
):
    index = tmp_path / "index"
    report = ingest_paths([statins_scan], index, minilm, settings)
    assert not report.failed and report.added
    with LocalStore.open(index) as store:
        [hit, *_] = store.search(
            minilm.embed_queries(["How many patients took atorvastatin?"])[0], 2
        )
    passage = hit.passage
    mark = ocr_mark(passage.text, passage.metadata)
    assert mark is not None and mark.confidence > 0.8
    shown = RetrievedPassage(
        n=1,
        passage_id=passage.passage_id,
        doc_id=passage.doc_id,
        title=passage.title,
        page=passage.page,
        score=hit.score,
        text=passage.text,
        metadata=passage.metadata,
    )
    dumped = shown.model_dump(mode="json")
    assert dumped["ocr"] is True and dumped["ocr_confidence"] == mark.confidence
    assert RetrievedPassage.model_validate(dumped).ocr  # derived, never read back


def test_ocr_pages_report_progress(statins_scan: Path, settings):
    seen: list[tuple[int, int]] = []
    pdf = pdfium.PdfDocument(statins_scan)
    try:
        options = OcrOptions(dpi=200, cache_dir=Path(settings.ocr_cache))
        done = [n for n, _ in read_pages(pdf, [1, 2], options, on_page=lambda n: seen.append(n))]
    finally:
        pdf.close()
    assert done == [1, 2] and seen == [1, 2]


def test_rapidocr_reads_words_with_boxes_into_lines():
    pytest.importorskip("rapidocr_onnxruntime")
    from PIL import ImageDraw, ImageFont

    from lastword.ingest.ocr import make_engine, read_image
    from lastword.ingest.ocr.lines import ocr_page

    image = Image.new("L", (1400, 160), 255)
    font = ImageFont.load_default(size=40)
    line = "Seeds were sown in early spring on every plot"
    ImageDraw.Draw(image).text((30, 50), line, fill=0, font=font)
    engine = make_engine("rapidocr")
    reading = read_image(image, 2.0, engine, timeout=120)
    text = " ".join(w.text for w in reading.words)
    assert "Seeds" in text and "spring" in text and reading.engine.startswith("rapidocr 1.4")
    page = ocr_page(list(reading.words), 1, (reading.width, reading.height), reading.scale)
    assert len(page.lines) == 1 and page.lines[0].x0 == pytest.approx(15, abs=10)
    assert all(0.0 < w.confidence <= 1.0 for w in reading.words)


def test_a_page_failure_crosses_a_process_boundary():
    import pickle

    error = IngestError("page 2: OCR failed (tesseract took longer than 120 s)", "/data/a.pdf")
    back = pickle.loads(pickle.dumps(error))  # a Ray task returns its failures to the writer
    assert str(back) == str(error) and back.source == "/data/a.pdf" and back.reason == error.reason


def test_postgres_keeps_the_mark(
    statins_scan: Path, settings, minilm, postgres_dsn: str, postgres_schema: str, tmp_path
):
    from lastword.settings import StoreSettings
    from lastword.store.open import open_store

    store_settings = StoreSettings(
        backend="postgres", dsn=postgres_dsn, schema_name=postgres_schema
    )
    report = ingest_paths([statins_scan], tmp_path, minilm, settings, store_settings=store_settings)
    assert not report.failed
    with open_store(store_settings, tmp_path) as store:
        hits = store.search(minilm.embed_queries(["How many patients took atorvastatin?"])[0], 3)
    marks = [ocr_mark(h.passage.text, h.passage.metadata) for h in hits]
    assert marks and all(m is not None and m.confidence > 0.8 for m in marks)
