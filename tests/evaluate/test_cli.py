"""``lastword eval`` commands end to end on the demo corpus and on the real data."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from lastword.cli.app import state
from lastword.cli.eval import eval_app
from lastword.demo import DEMO_OUT_OF_SCOPE
from lastword.settings import (
    MINILM_GATE_MODEL,
    RetrieveSettings,
    load_settings,
    shipped_thresholds,
)

DEMO_SET = Path(str(resources.files("lastword") / "data" / "evalsets" / "demo.yaml"))


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The eval sub-app under a root app, with a settings file holding the demo scope guard."""
    config = tmp_path / "lastword.toml"
    config.write_text(f"[scope]\nout_of_scope = {json.dumps(DEMO_OUT_OF_SCOPE)}\n")
    monkeypatch.setattr(state, "config", config)
    monkeypatch.setattr(state, "_settings", None)
    root = typer.Typer()
    root.add_typer(eval_app, name="eval")
    runner = CliRunner()

    def invoke(*args: str):
        result = runner.invoke(root, ["eval", *args], catch_exceptions=False)
        return result

    invoke.config = config  # type: ignore[attr-defined]
    return invoke


def test_help_lists_every_command(cli) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for command in ("run", "report", "calibrate", "dataset"):
        assert command in result.output


SUBSET = ("vitamin-d-spine", "off-scope-crypto", "off-domain-eurovision", "guarantee-statins")


def test_run_report_calibrate_write(cli, demo_index: Path, tmp_path: Path) -> None:
    # Four items of the shipped set, one per path through the pipeline, keep this test quick;
    # tests/evaluate/test_runner.py runs the whole set.
    shipped = yaml.safe_load(DEMO_SET.read_text(encoding="utf-8"))
    subset = tmp_path / "subset.yaml"
    subset.write_text(
        yaml.safe_dump(
            {"name": "subset", "items": [i for i in shipped["items"] if i["id"] in SUBSET]}
        )
    )
    results = tmp_path / "results.json"
    ran = cli("run", str(subset), "--index", str(demo_index), "--out", str(results))
    assert ran.exit_code == 0, ran.output
    document = json.loads(results.read_text())
    fired = {i["id"]: i["fired"] for i in document["items"]}
    assert fired == {
        "vitamin-d-spine": None,
        "off-scope-crypto": "scope_guard",
        "off-domain-eurovision": "retrieval_gate",
        # the statin study cannot give a guarantee. Under the hybrid ranking (the default) the
        # gate, with the model fitted on that ranking, already refuses it; under dense the gate
        # let it through and the generator declined (no sentence answers it).
        "guarantee-statins": "retrieval_gate",
    }, ran.output
    assert "phantoms 0" in ran.output

    reported = cli("report", str(results), "--out", str(tmp_path / "report"))
    assert reported.exit_code == 0, reported.output
    assert (tmp_path / "report" / "index.html").is_file()
    assert (tmp_path / "report" / "roc.png").is_file()

    calibrated = cli("calibrate", str(results), "--json")
    assert calibrated.exit_code == 0, calibrated.output
    assert calibrated.output.lstrip().startswith("{"), calibrated.output
    payload = json.loads(calibrated.output[calibrated.output.index("{") :])
    assert payload["positives"] == 1 and payload["negatives"] == 1
    assert 0.0 <= payload["auc"]["low"] <= payload["auc"]["estimate"] <= payload["auc"]["high"]
    assert payload["far_at_shipped"]["estimate"] == 0.0  # the gate refused the off-domain trap
    assert any("labelled negatives" in note for note in payload["notes"])

    written = cli("calibrate", str(results), "--write")
    assert written.exit_code == 0, written.output
    data = tomllib.loads(cli.config.read_text())
    assert data["scope"]["out_of_scope"] == DEMO_OUT_OF_SCOPE  # other keys kept
    minilm = data["gate"]["thresholds"]["minilm"]
    assert minilm["weak"] <= minilm["strong"]
    assert "results.json" in minilm["evidence"]
    # the gate model travels with the thresholds measured on its score, every weight included:
    # the model of the ranking the run used (the default, hybrid)
    in_use = shipped_thresholds(RetrieveSettings().mode)["minilm"].model
    assert in_use is not None and in_use != MINILM_GATE_MODEL
    assert minilm["model"] == in_use.model_dump()
    reloaded = load_settings(cli.config).thresholds_for("minilm")
    assert reloaded.model == in_use and reloaded.weak == pytest.approx(minilm["weak"])


def test_dataset_command(cli, datasets_dir: Path, tmp_path: Path) -> None:
    result = cli(
        "dataset", "pubmedqa", "--data", str(datasets_dir / "pubmedqa"), "--split", "dev",
        "--ablate", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "(1000 documents)" in output and "(500 scenarios, 500 traps)" in output


def test_bad_eval_set_is_one_clear_error(cli, tmp_path: Path) -> None:
    from lastword.errors import InputError

    bad = tmp_path / "bad.yaml"
    bad.write_text("- {id: a, question: Q, kind: trap}\n")
    with pytest.raises(InputError, match="a trap needs 'assigned'"):
        cli("run", str(bad), "--out", str(tmp_path / "r.json"))


def test_titles_run_refit_write(cli, titled_index: Path, tmp_path: Path) -> None:
    """The label-free path a lab takes: titles -> run -> calibrate --refit --write."""
    built = cli("dataset", "titles", "--index", str(titled_index), "--out", str(tmp_path))
    assert built.exit_code == 0, built.output
    output = " ".join(built.output.split())
    assert "14 of 15 documents' titles" in output
    # MiniLM has a fitted gate model, so the suggested next step sets thresholds only
    assert "calibrate results.json --target-far 0.02 --write" in output
    results = tmp_path / "results.json"
    evalset = str(tmp_path / "evalset.jsonl")
    ran = cli("run", evalset, "--index", str(titled_index), "--out", str(results))
    assert ran.exit_code == 0, ran.output

    shown = cli("calibrate", str(results), "--refit", "--target-far", "0.1")
    assert shown.exit_code == 0, shown.output
    assert "refitted on these items" in " ".join(shown.output.split())
    written = cli("calibrate", str(results), "--refit", "--target-far", "0.1", "--write", "--json")
    assert written.exit_code == 0, written.output
    payload = json.loads(written.output[written.output.index("{") : written.output.rindex("}") + 1])
    stored = tomllib.loads(cli.config.read_text())["gate"]["thresholds"]["minilm"]
    assert stored["model"] == payload["refit"] != MINILM_GATE_MODEL.model_dump()
    assert stored["weak"] == pytest.approx(payload["chosen"]["weak"], abs=1e-6)
    assert "--refit" in stored["evidence"]
    reloaded = load_settings(cli.config).thresholds_for("minilm")
    assert reloaded.model is not None and reloaded.model.model_dump() == payload["refit"]


def test_titles_needs_an_index_with_titles(cli, demo_index: Path, tmp_path: Path) -> None:
    from lastword.errors import InputError

    with pytest.raises(InputError, match="have a usable title"):
        cli("dataset", "titles", "--index", str(demo_index), "--out", str(tmp_path))
    with pytest.raises(InputError, match="titles reads --index"):
        cli("dataset", "titles", "--data", str(tmp_path), "--out", str(tmp_path))
    assert not (tmp_path / "evalset.jsonl").exists()


def test_eval_retrieval_command_on_the_demo_index(cli, demo_index: Path, tmp_path: Path):
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        json.dumps({"_id": "statins", "text": "Do statins cause muscle pain?"})
        + "\n"
        + json.dumps({"_id": "sleep", "text": "Does aerobic exercise help insomnia?"})
        + "\n"
    )
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text(
        "query-id\tcorpus-id\tscore\n"
        "statins\tstatins-muscle-symptoms.md\t1\n"
        "sleep\texercise-sleep-quality\t1\n"
        "sleep\tnot-in-this-index\t1\n"
    )
    out = tmp_path / "scores.json"
    for mode in ("dense", "lexical", "hybrid"):
        result = cli(
            "retrieval",
            str(qrels),
            "--queries",
            str(queries),
            "--index",
            str(demo_index),
            "--mode",
            mode,
            "--out",
            str(out),
        )
        assert result.exit_code == 0, result.output
        scores = json.loads(out.read_text())
        assert scores["mode"] == mode and scores["unknown_documents"] == 1
        assert scores["scores"]["mrr"] == 1.0  # both papers ranked first
        assert scores["scores"]["recall@10"] == pytest.approx(0.75)  # the missing one is a miss
    assert "1 judged document(s) are not in the index" in result.output
    from lastword.errors import InputError

    with pytest.raises(InputError, match="cannot read the relevance file"):
        cli("retrieval", str(tmp_path / "nope.tsv"), "--queries", str(queries))
