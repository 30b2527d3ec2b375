"""The report: its numbers match the JSON it was built from, and it renders in Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from lastword.errors import InputError
from lastword.evaluate import metrics
from lastword.evaluate.report import build_report

from .conftest import WEAK, mixed_document


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, Path]:
    folder = tmp_path_factory.mktemp("report")
    results = folder / "results.json"
    results.write_text(json.dumps(mixed_document()), encoding="utf-8")
    files = build_report(results, folder / "out")
    return json.loads(results.read_text()), files.html, files.markdown


def expected_figures(doc: dict[str, Any]) -> dict[str, str]:
    """The headline and calibration figures, recomputed here from the raw JSON."""
    items = doc["items"]
    traps = [i for i in items if i["kind"] == "trap"]
    scenarios = [i for i in items if i["kind"] == "scenario"]
    gate_traps = [
        i for i in traps if i["assigned"] == "retrieval_gate" and i["fired"] != "scope_guard"
    ]
    pos = [i["result"]["top_score"] for i in scenarios if i["fired"] != "scope_guard"]
    neg = [i["result"]["top_score"] for i in gate_traps]
    weak = doc["run"]["thresholds"]["weak"]
    fa = sum(s >= weak for s in neg)
    kept = sum(s >= weak for s in pos)
    phantoms = sum(len(i["result"]["phantoms"]) for i in items)
    grades = {g: sum(i["grade"] == g for i in scenarios) for g in ("strong", "adequate", "weak")}
    declined = sum(i["grade"] == "declined" for i in traps)
    sidestepped = sum(i["grade"] == "sidestepped" for i in traps)
    return {
        "traps": f"Traps declined: {declined} / {len(traps)}",
        "sidestepped": f"(sidestepped; not counted as declined): {sidestepped} / {len(traps)}",
        "grades": "{strong} / {adequate} / {weak}".format(**grades) + f" (of {len(scenarios)})",
        "phantoms": f"Phantoms: {phantoms} (in",
        "auc": f"{metrics.roc_auc(pos, neg):.3f} [",
        "far": f"{fa / len(neg):.1%} [",
        "far_count": f"({fa} of {len(neg)})",
        "kept_count": f"({kept} of {len(pos)})",
    }


def test_markdown_numbers_match_the_json(built) -> None:
    doc, _, markdown = built
    text = markdown.read_text(encoding="utf-8")
    figures = expected_figures(doc)
    assert figures == {
        "traps": "Traps declined: 4 / 6",
        "sidestepped": "(sidestepped; not counted as declined): 0 / 6",
        "grades": "1 / 3 / 0 (of 8)",
        "phantoms": "Phantoms: 1 (in",
        "auc": "0.875 [",
        "far": "33.3% [",
        "far_count": "(1 of 3)",
        "kept_count": "(7 of 8)",
    }
    for label, figure in figures.items():
        assert figure in text, label
    auc_line = next(line for line in text.splitlines() if line.startswith("| ROC AUC"))
    assert "0.875 [" in auc_line
    far_line = next(line for line in text.splitlines() if line.startswith("| False-accept"))
    assert "33.3% [" in far_line and "(1 of 3)" in far_line
    # the mechanism table: every count from the JSON
    for mechanism in ("scope_guard", "retrieval_gate", "generator", "verifier", "upstream"):
        assigned = sum(i["assigned"] == mechanism for i in doc["items"])
        fired = sum(i["fired"] == mechanism for i in doc["items"])
        row = next(line for line in text.splitlines() if line.startswith(f"| {mechanism} | "))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1:3] == [str(assigned), str(fired)], mechanism
    # one row per question, with its grade and score
    for item in doc["items"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| {item['id']} |"))
        assert row.rstrip().endswith(f"| {item['grade']} |")
        if item["fired"] != "scope_guard":
            assert f"| {item['result']['top_score']:.3f} |" in row


def test_page_names_its_source_and_date(built) -> None:
    doc, html, markdown = built
    for path in (html, markdown):
        text = path.read_text(encoding="utf-8")
        assert "computed from" in text and "results.json" in text
        assert doc["run"]["date"] in text
    assert (html.parent / "roc.png").stat().st_size > 5000
    assert (html.parent / "risk_coverage.png").stat().st_size > 5000


def test_html_escapes_questions(tmp_path: Path) -> None:
    doc = mixed_document()
    doc["items"][0]["question"] = "<script>alert(1)</script> | pipes"
    doc["run"]["evalset"]["name"] = '<img src=x onerror="alert(2)">'
    doc["items"][1]["result"]["passages"] = [
        {
            "n": 1,
            "passage_id": 1,
            "doc_id": "d2",
            "title": "<b>bold</b>\nsecond line",
            "page": None,
            "score": 0.5,
            "text": "A passage.",
        }
    ]
    results = tmp_path / "r.json"
    results.write_text(json.dumps(doc))
    files = build_report(results, tmp_path / "out")
    html = files.html.read_text()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "<img src=x" not in html
    # The Markdown twin carries no raw HTML from the eval set or the titles either.
    markdown = files.markdown.read_text()
    assert "\\| pipes" in markdown
    assert "<script>" not in markdown and "&lt;script&gt;alert(1)&lt;/script&gt;" in markdown
    assert "<img" not in markdown and "&lt;img src=x" in markdown
    assert "<b>" not in markdown and "&lt;b&gt;bold&lt;/b&gt; second line" in markdown


def test_a_sidestepped_trap_is_not_counted_as_declined(tmp_path: Path) -> None:
    """The demo's "traps declined 8/8" counted 4 answered traps as declined."""
    doc = mixed_document()
    trap = next(i for i in doc["items"] if i["id"] == "t4")
    trap["grade"], trap["passed"] = "sidestepped", True  # answered, without the bait
    results = tmp_path / "r.json"
    results.write_text(json.dumps(doc))
    files = build_report(results, tmp_path / "out")
    markdown = files.markdown.read_text()
    assert "Traps declined: 4 / 6" in markdown
    assert "(sidestepped; not counted as declined): 1 / 6" in markdown
    assert "(fooled): 1 / 6" in markdown
    html = files.html.read_text()
    assert "4 / 6</div>traps declined" in html
    assert "1 / 6</div>traps answered anyway" in html


def test_the_report_links_back_to_the_app(tmp_path: Path) -> None:
    results = tmp_path / "r.json"
    results.write_text(json.dumps(mixed_document()))
    plain = build_report(results, tmp_path / "plain")
    assert "/evaluation" not in plain.html.read_text()
    files = build_report(
        results, tmp_path / "out", app_url="", warnings=("made on another corpus",)
    )
    html = files.html.read_text()
    assert '<a href="/evaluation">' in html and '<a href="/inspect?q=s1' in html
    assert 'role="alert">made on another corpus' in html
    markdown = files.markdown.read_text()
    assert "](/evaluation)" in markdown and "](/inspect?q=s1" in markdown


def test_bad_results_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"items": []}')
    with pytest.raises(InputError, match="expected"):
        build_report(bad, tmp_path / "out")
    with pytest.raises(InputError, match="not found"):
        build_report(tmp_path / "none.json", tmp_path / "out")


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in ("style", "script", "head", "title"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head", "title"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts))


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile}", "--window-size=1280,2000", *args,
        ],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip


def test_renders_in_headless_chromium(built, tmp_path: Path) -> None:
    binary = _chromium()
    if binary is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    doc, html, _ = built
    url = html.resolve().as_uri()
    shot = tmp_path / "report.png"
    taken = _run_chromium(binary, tmp_path / "profile", f"--screenshot={shot}", url)
    assert shot.is_file(), taken.stderr[-2000:]
    dom = _run_chromium(binary, tmp_path / "profile2", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    parser = _VisibleText()
    parser.feed(dom.stdout)
    visible = parser.text
    figures = expected_figures(doc)
    assert "Evaluation report: hand-made" in visible
    assert "Mechanism: assigned vs fired" in visible
    assert "Calibration of the retrieval gate" in visible
    assert "4 / 6 traps declined" in visible
    assert figures["auc"] in visible and figures["far_count"] in visible
    assert "<td>" not in visible  # text, not markup
    # the screenshot is a real image with content, not a blank page
    import matplotlib.image

    pixels = matplotlib.image.imread(str(shot))
    assert pixels.shape[0] == 2000 and pixels.shape[1] == 1280
    assert pixels[..., :3].std() > 0.05


def test_results_are_typed_records(tmp_path: Path) -> None:
    """Readers get attributes, not string paths; a renamed or mistyped field is named once."""
    from lastword.evaluate.records import ItemRecord, Results, load_results
    from lastword.result import Result

    good = tmp_path / "good.json"
    good.write_text(json.dumps(mixed_document()))
    loaded = load_results(good)
    assert isinstance(loaded, Results) and isinstance(loaded.items[0], ItemRecord)
    assert isinstance(loaded.items[0].result, Result)
    assert loaded.run.thresholds.weak == WEAK and loaded.run.embedder.name == "minilm"
    assert {i.id for i in loaded.traps} | {i.id for i in loaded.scenarios} == {
        i.id for i in loaded.items
    }
    broken = mixed_document()
    broken["items"][2]["result"]["status"] = "maybe"
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps(broken))
    with pytest.raises(InputError, match=r"items\.2\.result\.status"):
        load_results(bad)
