"""The gate calibrates itself on each index: real MiniLM, real SciFact abstracts, real SQLite."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lastword.cli import app
from lastword.evaluate.datasets.scifact import corpus_record
from lastword.gate.auto import (
    META_KEY,
    MIN_DOCUMENTS,
    REFERENCE_TAIL,
    SHIFT_QUANTILES,
    VERSION,
    calibrate_after_ingest,
    calibrate_and_store,
    calibrate_index,
    harrell_davis,
    logit,
    shift_quantile,
    stored_calibration,
    synthetic_queries,
    tail_of,
    thresholds_for_index,
    usable,
)
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.settings import GateSettings, Settings, Thresholds
from lastword.store.local import LocalStore

DOCUMENTS = 14


QUERIES = 40


def small_settings(**gate) -> Settings:
    return Settings(gate=GateSettings(auto_queries=QUERIES, **gate))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, datasets_dir) -> Path:
    lines = (datasets_dir / "scifact" / "corpus.jsonl").read_text().splitlines()
    chosen = [json.loads(line) for line in lines[: DOCUMENTS + 1]]
    path = tmp_path_factory.mktemp("auto") / "abstracts.jsonl"
    path.write_text("".join(json.dumps(corpus_record(r)) + "\n" for r in chosen))
    return path


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory, corpus: Path, minilm) -> Path:
    """An index of ``DOCUMENTS`` abstracts, calibrated once after its ingest."""
    lines = corpus.read_text().splitlines()
    first = corpus.with_name("first.jsonl")
    first.write_text("\n".join(lines[:DOCUMENTS]) + "\n")
    index = tmp_path_factory.mktemp("auto-index") / "index"
    settings = small_settings()
    ingest_paths([first], index, minilm, settings.ingest)
    assert calibrate_after_ingest(settings, index, minilm) is not None
    return index


def test_the_queries_are_the_corpus_own_titles_and_sentences(calibrated: Path):
    with LocalStore.open(calibrated) as store:
        queries = synthetic_queries(store, QUERIES)
        documents = {d.doc_id: d for d in store.documents()}
    assert len(queries) == QUERIES
    assert {q.kind for q in queries} == {"title", "sentence"}
    for q in queries:
        source = documents[q.doc_id]
        if q.kind == "title":
            assert q.text == " ".join(source.title.split())
        else:
            assert 8 <= len(q.text.split()) <= 40


def test_after_an_ingest_the_index_holds_thresholds_and_their_evidence(calibrated: Path):
    with LocalStore.open(calibrated) as store:
        stored = stored_calibration(store)
        fingerprint = store.info().fingerprint
    assert stored is not None and stored.skipped is None
    assert stored.fingerprint == fingerprint and stored.embedder == "minilm"
    assert stored.titles + stored.sentences == QUERIES == len(stored.kinds)
    assert len(stored.scores["answerable"]) == len(stored.scores["unanswerable"]) == QUERIES
    # an own-document query outscores its ablation on most of them
    assert stored.auc is not None and stored.auc > 0.8
    # the shipped MiniLM thresholds, moved by how this corpus's unanswerable sentences score
    # against PubMedQA's (the reference the shipped thresholds were chosen on)
    assert stored.rule == "shift"
    sentences = [
        s
        for s, kind in zip(stored.scores["unanswerable"], stored.kinds, strict=True)
        if kind == "sentence"
    ]
    # a Harrell-Davis quantile of their log-odds: between the order statistics around it
    # (from the scores as stored: rounded to 1e-4)
    assert stored.tail == pytest.approx(tail_of(sentences, shift_quantile(stored.mode)), rel=0.02)
    assert stored.version == VERSION
    q = shift_quantile(stored.mode)
    assert (
        float(np.quantile(sentences, q - 0.1))
        < stored.tail
        < float(np.quantile(sentences, q + 0.1))
    )
    shipped = Settings().thresholds_for("minilm")
    # against the reference of the ranking in use (the default's)
    shift = logit(stored.tail) - logit(REFERENCE_TAIL[("minilm", stored.mode)])
    assert stored.weak == pytest.approx(
        1 / (1 + math.exp(-(logit(shipped.weak) + shift))),
        abs=1e-4,  # tail rounded to 1e-6
    )
    assert stored.weak <= stored.strong <= 1.0
    assert "calibrated on this index" in stored.describe()


def test_without_a_reference_the_corpus_own_tail_places_the_threshold(calibrated: Path, minilm):
    """A cosine-only gate was never measured on PubMedQA's sentences: no shift to apply."""
    cosine = Settings(
        gate=GateSettings(
            auto_queries=QUERIES, thresholds={"minilm": Thresholds(strong=0.8, weak=0.6)}
        )
    )
    with LocalStore.open(calibrated) as store:
        chosen = calibrate_index(store, minilm, cosine)
    assert chosen.rule == "quantile" and chosen.model is None
    # at most 2% of 40 ablated queries let through: none
    assert all(s < chosen.weak for s in chosen.scores["unanswerable"])
    assert chosen.far == 0.0


def test_the_pipeline_uses_them_unless_the_operator_set_thresholds(calibrated: Path, minilm):
    settings = small_settings()
    with Pipeline(settings, LocalStore.open(calibrated), minilm) as pipeline:
        stored = stored_calibration(pipeline.store)
        assert pipeline.thresholds_source == "index"
        assert (pipeline.thresholds.weak, pipeline.thresholds.strong) == (
            stored.weak,
            stored.strong,
        )
        assert pipeline.thresholds.model == settings.thresholds_for("minilm").model
        result = pipeline.inspect("statin therapy and muscle pain")
        assert result.gate.weak == stored.weak

    operator = Settings(gate={"thresholds": {"minilm": {"strong": 0.95, "weak": 0.9}}})
    with LocalStore.open(calibrated) as store:
        thresholds, source = thresholds_for_index(operator, store)
        assert (source, thresholds.weak) == ("settings", 0.9)
        off = small_settings(auto=False)
        assert thresholds_for_index(off, store)[1] == "default"
        # a calibration made for another ranking does not apply
        other = "dense" if settings.retrieve.mode == "hybrid" else "hybrid"
        elsewhere = small_settings().model_copy(
            update={"retrieve": Settings().retrieve.model_copy(update={"mode": other})}
        )
        assert thresholds_for_index(elsewhere, store) == (
            elsewhere.thresholds_for("minilm"),
            "default",
        )


def test_a_changed_corpus_recalibrates_and_an_unchanged_one_does_not(
    calibrated: Path, corpus: Path, minilm, tmp_path: Path
):
    index = tmp_path / "index"
    shutil.copytree(calibrated, index)
    settings = small_settings()
    assert calibrate_after_ingest(settings, index, minilm) is None  # nothing changed
    ingest_paths([corpus], index, minilm, settings.ingest)  # one abstract more
    again = calibrate_after_ingest(settings, index, minilm)
    assert again is not None
    with LocalStore.open(index) as store:
        assert (
            again.fingerprint == store.info().fingerprint == stored_calibration(store).fingerprint
        )
        assert again.documents == DOCUMENTS + 1


def stored_as_older(calibrated: Path, minilm, tmp_path: Path, older_form) -> tuple[Path, object]:
    """A copy of the calibrated index whose stored calibration ``older_form`` rewrote (its weak
    set to 0.99 besides); the index and the calibration as it was."""
    index = tmp_path / "index"
    shutil.copytree(calibrated, index)
    with LocalStore.open_for_write(index, minilm.info) as store:
        current = stored_calibration(store)
        assert current is not None
        older = json.loads(current.to_json())
        older_form(older)
        older["weak"] = 0.99
        store.write_meta(META_KEY, json.dumps(older))
    return index, current


def test_a_calibration_made_with_another_tail_quantile_is_made_again(
    calibrated: Path, minilm, tmp_path: Path
):
    settings = small_settings()
    # written before the quantile was recorded
    index, current = stored_as_older(
        calibrated, minilm, tmp_path, lambda older: older.pop("quantile")
    )
    assert current.quantile == shift_quantile(current.mode)
    again = calibrate_after_ingest(settings, index, minilm)
    assert again is not None and again.quantile == shift_quantile(again.mode)
    assert again.weak == pytest.approx(current.weak, abs=1e-6)
    assert calibrate_after_ingest(settings, index, minilm) is None  # now up to date


def test_a_calibration_made_for_another_gate_model_is_made_again(
    calibrated: Path, minilm, tmp_path: Path
):
    settings = small_settings()

    def another_model(older: dict) -> None:
        older["model"] = {**older["model"], "intercept": older["model"]["intercept"] + 1.0}

    index, current = stored_as_older(calibrated, minilm, tmp_path, another_model)
    assert current.model is not None
    with LocalStore.open(index) as store:
        assert not usable(stored_calibration(store), settings, "minilm")
    again = calibrate_after_ingest(settings, index, minilm)
    assert again is not None and again.model == current.model
    assert again.weak == pytest.approx(current.weak, abs=1e-6)


def test_too_few_documents_keep_the_shipped_thresholds(demo_index: Path, minilm, tmp_path):
    index = tmp_path / "demo"
    shutil.copytree(demo_index, index)
    settings = small_settings()
    with LocalStore.open_for_write(index, minilm.info) as store:
        skipped = calibrate_and_store(store, minilm, settings, force=True)
    assert skipped is not None and skipped.weak is None
    assert f"at least {MIN_DOCUMENTS}" in skipped.skipped
    with LocalStore.open(index) as store:
        assert store.read_meta(META_KEY) is not None
        assert thresholds_for_index(settings, store) == (
            settings.thresholds_for("minilm"),
            "default",
        )


def test_a_garbled_record_counts_as_never_calibrated(calibrated: Path, tmp_path: Path, minilm):
    index = tmp_path / "index"
    shutil.copytree(calibrated, index)
    with LocalStore.open_for_write(index, minilm.info) as store:
        store.write_meta(META_KEY, '{"weak": "not a record"')
    with LocalStore.open(index) as store:
        assert stored_calibration(store) is None
        assert thresholds_for_index(small_settings(), store)[1] == "default"


def test_sources_and_inspect_show_where_the_thresholds_come_from(calibrated: Path):
    runner = CliRunner()
    shown = runner.invoke(app, ["sources", "--index", str(calibrated)])
    assert shown.exit_code == 0, shown.output
    assert "from index" in shown.output and "calibrated on this index" in shown.output
    asked = runner.invoke(app, ["inspect", "statin therapy", "--index", str(calibrated)])
    assert asked.exit_code == 0, asked.output
    assert "gate thresholds from index" in asked.output


def test_explicit_thresholds_are_remembered_even_at_the_shipped_values():
    shipped = Settings().thresholds_for("minilm")
    assert not Settings().gate.explicit("minilm")
    same = GateSettings(thresholds={"minilm": shipped})
    assert same.explicit("minilm") and not same.explicit("voyage")
    changed = Settings().gate.model_copy(
        update={"thresholds": {"minilm": Thresholds(strong=0.9, weak=0.8)}}
    )
    assert changed.explicit("minilm")


def test_a_hybrid_index_is_placed_against_the_hybrid_reference(calibrated: Path, minilm):
    """The hybrid ranking has its own gate model and its own PubMedQA tail: the shift rule."""
    settings = small_settings().model_copy(
        update={"retrieve": Settings().retrieve.model_copy(update={"mode": "hybrid"})}
    )
    shipped = settings.thresholds_for("minilm")
    assert shipped.ranking == "hybrid" and shipped.model is not None
    with LocalStore.open(calibrated) as store:
        chosen = calibrate_index(store, minilm, settings)
    assert (chosen.mode, chosen.rule) == ("hybrid", "shift")
    assert chosen.quantile == SHIFT_QUANTILES["hybrid"] == 0.90
    assert chosen.model == shipped.model.model_dump()
    shift = logit(chosen.tail) - logit(REFERENCE_TAIL[("minilm", "hybrid")])
    assert chosen.weak == pytest.approx(
        1 / (1 + math.exp(-(logit(shipped.weak) + shift))),
        abs=1e-4,  # tail rounded to 1e-6
    )
    assert chosen.auc is not None and chosen.auc > 0.8


def test_a_calibration_made_with_an_earlier_version_is_made_again(
    calibrated: Path, minilm, tmp_path: Path
):
    """Version 1 sampled one shuffled stream and read a sample quantile: made again."""
    settings = small_settings()
    index, current = stored_as_older(
        calibrated, minilm, tmp_path, lambda older: older.pop("version")
    )
    with LocalStore.open(index) as store:
        assert stored_calibration(store).version == 1
    again = calibrate_after_ingest(settings, index, minilm)
    assert again is not None and again.version == VERSION
    assert again.weak == pytest.approx(current.weak, abs=1e-6)
    assert calibrate_after_ingest(settings, index, minilm) is None


def test_an_edit_to_one_document_changes_that_document_queries_only(
    calibrated: Path, minilm, tmp_path: Path
):
    """Stop 21: 3 of 1,206 passages removed moved the papers' weak threshold 0.8683 -> 0.8741.
    Each document's queries now depend on its own id and text only."""
    index = tmp_path / "index"
    shutil.copytree(calibrated, index)
    with LocalStore.open(index) as store:
        before = synthetic_queries(store, QUERIES)
    edited = next(q.doc_id for q in before if q.kind == "sentence")
    with LocalStore.open_for_write(index, minilm.info) as store:
        record = next(d for d in store.documents() if d.doc_id == edited)
        passages, vectors = store.export_document(edited)
        # its first passage loses its first sentence, as a re-read page might
        first = passages[0]
        shorter = first.text.split(". ", 1)[-1]
        changed = [dataclasses.replace(first, text=shorter), *passages[1:]]
        store.put_document(record, changed, vectors, store.references([edited]).get(edited, []))
        store.commit()
    with LocalStore.open(index) as store:
        after = synthetic_queries(store, QUERIES)
    assert shorter != first.text
    assert [q for q in before if q.doc_id != edited] == [q for q in after if q.doc_id != edited]
    assert len(after) == len(before)


def test_the_tail_is_a_smooth_quantile():
    rng = np.random.default_rng(0)
    values = list(rng.uniform(0.01, 0.6, size=100))
    q = 0.8
    tail = tail_of(values, q)
    ordered = sorted(values)
    assert ordered[70] < tail < ordered[90]
    # Harrell-Davis of symmetric values at the middle is the middle
    assert harrell_davis([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == pytest.approx(3.0, abs=1e-6)
    assert harrell_davis([7.0], 0.8) == 7.0
    with pytest.raises(ValueError):
        harrell_davis([], 0.8)
    # every order statistic weighs a little: moving the one at the quantile past its
    # neighbours moves the estimate by a small share of that move
    at = int(np.argsort(values)[80])
    nudged = list(values)
    nudged[at] = ordered[81] + 0.05
    assert abs(tail_of(nudged, q) - tail) < 0.2 * (nudged[at] - ordered[80])
