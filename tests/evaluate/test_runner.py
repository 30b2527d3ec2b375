"""Runs through the real pipeline: the shipped demo set on the demo corpus, MiniLM, extractive."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from lastword.evaluate.evalset import EvalItem, EvalSet, Kind, load_evalset
from lastword.evaluate.runner import partial_path, run_evalset

DEMO_SET = Path(str(resources.files("lastword") / "data" / "evalsets" / "demo.yaml"))


@pytest.fixture(scope="module")
def demo_pipeline(demo_index: Path, minilm):
    from lastword.demo import demo_settings
    from lastword.pipeline import Pipeline
    from lastword.settings import load_settings

    settings = demo_settings(load_settings())
    pipeline = Pipeline(settings, _open_store(demo_index), minilm, "extractive")
    yield pipeline
    pipeline.close()


def _open_store(index: Path):
    from lastword.store.local import LocalStore

    return LocalStore.open(index)


@pytest.fixture(scope="module")
def demo_run(demo_pipeline, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("run") / "results.json"
    seen: list[int] = []
    document = run_evalset(
        demo_pipeline,
        load_evalset(DEMO_SET),
        demo_pipeline.settings,
        out,
        on_item=lambda done, total, record: seen.append(done),
    ).to_json()
    assert seen == list(range(1, len(document["items"]) + 1))
    return document, out


def test_results_file_shape(demo_run, demo_pipeline) -> None:
    document, out = demo_run
    assert json.loads(out.read_text()) == document
    assert not partial_path(out).exists()
    run = document["run"]
    assert run["index"]["fingerprint"] == demo_pipeline.index_info.fingerprint
    assert run["embedder"]["name"] == "minilm" and run["generator"] == "extractive"
    assert run["thresholds"]["weak"] == demo_pipeline.thresholds.weak
    assert run["settings"]["retrieve"]["k"] == demo_pipeline.settings.retrieve.k
    assert {"lastword", "python", "numpy"} <= set(run["versions"])
    assert run["date"].endswith("+00:00") and run["ablated"] == []
    for item in document["items"]:
        assert {"id", "kind", "assigned", "fired", "grade", "result"} <= set(item)
        assert item["result"]["question"]


def test_same_result_as_ask(demo_run, demo_pipeline) -> None:
    """The run records exactly what Pipeline.ask returns (no second implementation)."""
    document, _ = demo_run
    for item in document["items"][:3]:
        again = demo_pipeline.ask(item["question"]).model_dump(mode="json")
        recorded = dict(item["result"])
        recorded.pop("timings_ms"), again.pop("timings_ms")
        assert recorded == again


def test_demo_set_outcomes(demo_run) -> None:
    items = {i["id"]: i for i in demo_run[0]["items"]}
    assert items["off-scope-crypto"]["fired"] == "scope_guard"
    assert items["off-scope-crypto"]["grade"] == "declined"
    for trap in ("off-domain-eurovision", "off-domain-router", "off-domain-volcano"):
        assert items[trap]["fired"] == "retrieval_gate", trap
    assert sum(len(i["result"]["phantoms"]) for i in items.values()) == 0
    answered = [i for i in items.values() if i["kind"] == "scenario" and i["passed"]]
    assert len(answered) >= 4
    for item in answered:
        assert item["expected_hit"] is True, item["id"]


def test_ablation_excludes_the_documents(demo_pipeline, tmp_path: Path) -> None:
    question = "How much did vitamin D change lumbar spine bone density in older adults?"
    top = demo_pipeline.ask(question).passages[0]
    assert top.metadata["path"] == "vitamin-d-bone-density.md"
    vitamin_doc = top.doc_id
    items = (
        EvalItem(id="s", question=question, kind=Kind.SCENARIO),
        EvalItem(
            id="t", question=question, kind=Kind.TRAP, assigned="retrieval_gate",
            exclude_docs=(vitamin_doc,),
        ),
    )  # fmt: skip
    evalset = EvalSet(name="ablation", items=items, sha256="a" * 64)
    document = run_evalset(
        demo_pipeline, evalset, demo_pipeline.settings, tmp_path / "r.json"
    ).to_json()
    scenario, trap = document["items"]
    assert document["run"]["ablated"] == ["t"]
    assert vitamin_doc in {p["doc_id"] for p in scenario["result"]["passages"]}
    assert vitamin_doc not in {p["doc_id"] for p in trap["result"]["passages"]}
    assert trap["result"]["top_score"] < scenario["result"]["top_score"]


def test_resume_reuses_finished_items(demo_pipeline, tmp_path: Path) -> None:
    evalset = EvalSet(
        name="resume",
        items=(
            EvalItem(id="a", question="Does exercise improve sleep in insomnia?", kind="scenario"),
            EvalItem(
                id="b",
                question="Who won Eurovision in 1998?",
                kind="trap",
                assigned="retrieval_gate",
            ),
        ),
        sha256="b" * 64,
    )
    out = tmp_path / "results.json"
    first = run_evalset(demo_pipeline, evalset, demo_pipeline.settings, out).to_json()
    # Simulate a crash after item "a": the partial file holds its header and that record,
    # marked so we can tell a reused record from a fresh one, plus a torn last line.
    marked = dict(first["items"][0], elapsed_ms=-1.0)
    key = {
        "evalset_sha256": "b" * 64,
        "fingerprint": demo_pipeline.index_info.fingerprint,
        "embedder": "minilm",
        "generator": "extractive",
        "thresholds": [demo_pipeline.thresholds.strong, demo_pipeline.thresholds.weak],
    }
    partial_path(out).write_text(
        json.dumps({"partial_of": key}) + "\n" + json.dumps(marked) + "\n" + '{"id": "b", "ki',
        encoding="utf-8",
    )
    resumed = run_evalset(demo_pipeline, evalset, demo_pipeline.settings, out).to_json()
    assert resumed["run"]["resumed_items"] == 1
    assert resumed["items"][0]["elapsed_ms"] == -1.0
    assert resumed["items"][1]["elapsed_ms"] > 0
    assert not partial_path(out).exists()
    # a partial file from another set (different key) is ignored
    partial_path(out).write_text(
        json.dumps({"partial_of": {**key, "evalset_sha256": "c" * 64}}) + "\n"
        + json.dumps(marked) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    fresh = run_evalset(demo_pipeline, evalset, demo_pipeline.settings, out).to_json()
    assert fresh["run"]["resumed_items"] == 0
    assert fresh["items"][0]["elapsed_ms"] > 0
