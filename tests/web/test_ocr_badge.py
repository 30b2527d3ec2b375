"""The Inspector's and Ask page's passage list marks a passage read by OCR (its template)."""

from __future__ import annotations

from pathlib import Path

import pytest

jinja2 = pytest.importorskip("jinja2")

from lastword.ocr_marks import passage_key  # noqa: E402
from lastword.result import Result, RetrievedPassage, Status  # noqa: E402
from lastword.web import rendering  # noqa: E402
from lastword.web.reading import passage_views  # noqa: E402

TEMPLATES = Path(__file__).parents[2] / "src" / "lastword" / "web" / "templates"


def render(passages: tuple[RetrievedPassage, ...]) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    env.filters.update(rendering.FILTERS)
    result = Result(question="q", status=Status.ANSWERED, passages=passages)
    views = passage_views(result, {})
    return env.get_template("_passages.html").render(views=views, in_answer=True)


def test_a_passage_read_by_ocr_carries_the_badge_and_one_that_was_not_does_not():
    text = "In this trial 200 patients took atorvastatin."
    scanned = {
        "ocr": {
            "engine": "tesseract 5.3.0 eng",
            "low": 0.8,
            "passages": {passage_key(text): [0.913, 14, 17]},
        }
    }
    common = {"doc_id": "d", "title": "Statins", "page": 1, "score": 0.7}
    html = render(
        (
            RetrievedPassage(n=1, passage_id=1, text=text, metadata=scanned, **common),
            RetrievedPassage(n=2, passage_id=2, text="Born digital.", metadata={}, **common),
        )
    )
    first, second = html.split('id="passage-2"')
    assert 'class="badge ocr" data-ocr-confidence="0.913"' in first
    assert "read by OCR · 91%" in first
    assert "read by OCR" not in second
