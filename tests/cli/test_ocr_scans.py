"""Real scans and broken text layers (``../shared/datasets/scans``, OCRmyPDF's test files):
each is ingested with ``lastword ingest``, read upright, and its text is found by
``lastword inspect --json``, marked as read by OCR. Skipped where ../shared is absent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lastword.ingest.ocr.tesseract import available
from tests.conftest import datasets_path

SCANS = datasets_path() / "scans"
pytestmark = [
    pytest.mark.skipif(not (SCANS / "README.md").is_file(), reason=f"no scans at {SCANS}"),
    pytest.mark.skipif(
        not available() and not os.environ.get("CI"), reason="tesseract is not installed"
    ),
]
SHEET = "How do you record a sequence on the LinnSequencer?"

#: file -> (question, words its best passage must hold)
CASES = {
    "linn.pdf": (SHEET, "LinnSequencer"),
    "skew.pdf": (SHEET, "LinnSequencer"),
    "rotated_skew.pdf": (SHEET, "LinnSequencer"),
    "cardinal.pdf": (SHEET, "LinnSequencer"),
    "c02-22.pdf": ("Who was listening among the trees in the dark?", "Who dah"),
    "multipage.pdf": ("Who sat on the throne of England?", "throne of England"),
    "truetype_font_nomapping.pdf": ("Phone", "Phone"),
    "type3_font_nomapping.pdf": ("ua", "ua"),
}


@pytest.fixture(scope="module")
def ocr_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ocr-cache")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_scan_is_read_upright_and_found_by_inspect(
    name: str, cli, monkeypatch, tmp_path: Path, ocr_cache: Path
):
    question, words = CASES[name]
    monkeypatch.setenv("LASTWORD_INGEST__OCR_CACHE", str(ocr_cache))
    monkeypatch.setenv("LASTWORD_INGEST__OCR_DPI", "200")  # 300-dpi scans: read twice as fast
    # a one-page form or a page of two letters is all front matter to the structure reader:
    # let inspect return front matter too, so the text itself is what is looked for
    monkeypatch.setenv(
        "LASTWORD_RETRIEVE__EVIDENCE_KINDS", '["body","abstract","caption","table","front"]'
    )
    index = tmp_path / "index"
    done = cli("ingest", SCANS / name, "--index", index)
    assert done.code == 0, done.err
    found = json.loads(cli("inspect", question, "--index", index, "--json", "--k", "3").out)
    best = found["passages"][0]
    assert words.lower() in best["text"].lower(), [p["text"][:200] for p in found["passages"]]
    assert best["ocr"] is True and best["ocr_confidence"] > 0.6
    pages = best["metadata"]["ocr"]["pages"]
    text_pages = {n: p for n, p in pages.items() if p["confidence"] >= 0.8}
    assert text_pages  # read upright: a page read sideways or upside down reads far lower
    if name == "cardinal.pdf":  # the same page turned 0, 90, 180 and 270 degrees
        assert sorted(p["rotation"] for p in pages.values()) == [0, 90, 180, 270]
    if name in ("skew.pdf", "rotated_skew.pdf"):
        assert abs(pages["1"]["skew"]) >= 1.0
