"""``lastword ingest --ocr``: on a scanned PDF built here (no OCR run: never, and a bad value)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_pdf
from tests.ingest.test_ocr import STATINS, scanned


def test_ocr_never_reports_a_scan_and_a_bad_value_is_refused(cli, tmp_path: Path):
    scan = scanned(make_pdf(tmp_path / "born.pdf", [STATINS]), tmp_path / "scan.pdf")
    index = tmp_path / "index"
    never = cli("ingest", scan, "--index", index, "--ocr", "never")
    assert never.code == 1
    assert "image-only PDF; OCR is off" in never.err and "scan.pdf" in never.err
    bad = cli("ingest", scan, "--index", index, "--ocr", "sometimes")
    assert bad.code == 2 and "--ocr is auto, always or never" in bad.err
