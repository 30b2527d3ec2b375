"""Evaluation that does not flatter: CLI runs listed on the web page, sidestepped traps counted
apart from declined ones, a warning for a run or an eval set made for another corpus, and a
report that links back to the app."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from typer.testing import CliRunner

EVALSET = """
name: tiny
items:
  - id: spine
    kind: scenario
    question: How much did vitamin D change lumbar spine bone density in older adults?
    expected_docs: [vitamin-d-bone-density.md]
  - id: dose
    kind: trap
    assigned: generator
    question: What exact daily dose of vitamin D in IU prevents every fracture in older adults?
    bait: ["\\\\d[\\\\d,]*\\\\s*IU"]
  - id: bitcoin
    kind: trap
    assigned: retrieval_gate
    question: Which football club won the 1998 league title?
"""


@pytest.fixture(scope="module")
def cli_run(site, tmp_path_factory, monkeypatch_module) -> dict:
    """``lastword eval run`` from the CLI, with the site's state folder."""
    from lastword.cli import app

    folder = tmp_path_factory.mktemp("cli-eval")
    evalset = folder / "tiny.yaml"
    evalset.write_text(EVALSET)
    out = folder / "results.json"
    monkeypatch_module.chdir(folder)
    monkeypatch_module.setenv("LASTWORD_STATE__DIR", str(site.state_dir))
    result = CliRunner().invoke(
        app, ["eval", "run", str(evalset), "--index", str(site.index), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return {"out": out, "output": result.output, "document": json.loads(out.read_text())}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _reader(site) -> dict[str, str]:
    return {"Authorization": f"Bearer {site.reader_token}", "Accept": "text/html"}


def _get(site, path: str) -> httpx.Response:
    return httpx.get(site.base + path, headers=_reader(site), timeout=120)


def test_a_cli_run_is_listed_with_honest_trap_counts(site, cli_run):
    document = cli_run["document"]
    grades = {i["id"]: i["grade"] for i in document["items"]}
    declined = sum(g == "declined" for i, g in grades.items() if i != "spine")
    sidestepped = sum(g == "sidestepped" for g in grades.values())
    # The CLI says the same, sidestepped apart.
    assert f"traps declined {declined}/2, answered without the bait (sidestepped)" in (
        " ".join(cli_run["output"].split())
    )
    page = _get(site, "/evaluation")
    assert page.status_code == 200
    row = re.search(r'<tr data-run="(results-cli-[0-9a-f]{8})" data-origin="cli">(.*?)</tr>',
                    page.text, re.S)  # fmt: skip
    assert row, page.text[:3000]
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(2))
    assert cells[0] == f"{declined} / 2" and cells[1] == str(sidestepped)
    api = httpx.get(
        site.base + "/api/eval",
        headers={"Authorization": _reader(site)["Authorization"]},
        timeout=120,
    )
    listed = {r["name"]: r for r in api.json()["runs"]}
    run = listed[row.group(1)]
    assert run["origin"] == "cli" and run["traps_declined"] == declined
    assert run["traps_sidestepped"] == sidestepped and run["warning"] is None
    # The report links back to the app, each question to the Inspector; a strict policy.
    report = httpx.get(
        site.base + f"/evaluation/runs/{row.group(1)}/", headers=_reader(site), timeout=120
    )
    assert report.status_code == 200
    assert '<a href="/evaluation">' in report.text and 'href="/inspect?q=How%20much' in report.text
    assert "script-src" not in report.headers["content-security-policy"]
    assert "default-src 'none'" in report.headers["content-security-policy"]


def test_a_run_made_on_another_corpus_is_flagged(site, cli_run, tmp_path):
    from lastword.evaluate.registry import record_run

    document = cli_run["document"]
    document["run"]["index"]["fingerprint"] = "0123456789abcdef"
    other = tmp_path / "elsewhere.json"
    other.write_text(json.dumps(document))
    record_run(site.state_dir, other)
    page = _get(site, "/evaluation").text
    assert "this run was made on another corpus (fingerprint 0123456789abcdef" in page
    name = re.search(r'data-run="(elsewhere-cli-[0-9a-f]{8})"', page).group(1)
    report = httpx.get(
        site.base + f"/evaluation/runs/{name}/", headers=_reader(site), timeout=120
    ).text
    assert 'role="alert">this run was made on another corpus' in report


def test_an_evalset_for_another_corpus_is_flagged(site):
    folder = site.state_dir / "evalsets"
    folder.mkdir(exist_ok=True)
    (folder / "foreign.yaml").write_text(
        "name: foreign\nitems:\n  - id: a\n    kind: scenario\n    question: What is it?\n"
        "    expected_docs: [wheat-drought.pdf]\n"
    )
    page = _get(site, "/evaluation").text
    warning = re.search(r'data-evalset-warning="foreign.yaml">(.*?)</p>', page, re.S)
    assert warning and "built for another corpus" in warning.group(1)
    assert "wheat-drought.pdf" in warning.group(1)
    # The shipped demo set fits the demo corpus: no warning for it.
    assert 'data-evalset-warning="demo.yaml"' not in page
