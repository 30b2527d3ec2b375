"""ingest / inspect / sources through the real entry point, with the real model and SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.main

from lastword.cli import app
from tests.conftest import make_pdf

QUESTION = "Does caffeine shorten reaction time after a night shift?"


def all_command_paths() -> list[list[str]]:
    paths: list[list[str]] = []

    def walk(command, prefix: list[str]) -> None:
        paths.append(prefix)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return paths


@pytest.mark.parametrize("path", all_command_paths(), ids=lambda p: " ".join(p) or "lastword")
def test_every_command_has_help(cli, path: list[str]):
    outcome = cli(*path, "--help")
    assert outcome.code == 0, outcome.err
    assert "Usage:" in outcome.out and len(outcome.out) > 100
    if "Index directory" in outcome.out or "index whose titles" in outcome.out:
        # where the default comes from; rich markup once swallowed the "[index]" in this text
        assert "[index]" in outcome.out, outcome.out


def test_ingest_inspect_sources(cli, tmp_path: Path, demo_index: Path):
    papers = tmp_path / "papers"
    papers.mkdir()
    make_pdf(papers / "trial.pdf", ["Caffeine 200 mg cut lapses by 40% in nurses.", "Page two."])
    (papers / "bad.pdf").write_bytes(b"%PDF-1.4 broken")
    index = tmp_path / "index"

    outcome = cli("ingest", papers, "--index", index)
    assert outcome.code == 1  # one file failed: the exit code says so
    assert "added: 1" in outcome.out and "bad.pdf" in outcome.err and "corrupt" in outcome.err
    assert "2 passages embedded" in outcome.out

    again = cli("ingest", papers / "trial.pdf", "--index", index)
    assert again.code == 0 and "skipped (unchanged): 1" in again.out
    assert "0 passages embedded" in again.out

    listing = cli("sources", "--index", index)
    assert listing.code == 0 and "trial" in listing.out and "minilm" in listing.out

    shown = cli("inspect", QUESTION, "--index", demo_index, "--k", "3")
    assert shown.code == 0 and "Caffeine, sleep deprivation" in shown.out and "[3]" in shown.out

    data = json.loads(cli("inspect", QUESTION, "--index", demo_index, "--json").out)
    assert data["question"] == QUESTION and data["status"] == "retrieved"
    assert data["top_score"] == data["passages"][0]["score"] > 0.5
    first = data["passages"][0]
    assert {"n", "doc_id", "title", "page", "score", "text"} <= first.keys() and first["n"] == 1
    assert first["title"].startswith("Caffeine")
    assert set(data["timings_ms"]) >= {"embed", "retrieve"}


def test_inspect_many_questions_writes_json_lines(cli, tmp_path: Path, demo_index: Path):
    questions = tmp_path / "questions.txt"
    questions.write_text(
        f"{QUESTION}\n\n" + json.dumps({"question": "Do statins cause muscle pain?"}) + "\n",
        encoding="utf-8",
    )
    outcome = cli("inspect", "--questions", questions, "--index", demo_index, "-k", "2")
    assert outcome.code == 0, outcome.err
    lines = [json.loads(line) for line in outcome.out.splitlines()]
    assert [line["question"] for line in lines] == [QUESTION, "Do statins cause muscle pain?"]
    assert all(len(line["passages"]) == 2 for line in lines)
    assert "statins" in lines[1]["passages"][0]["title"].lower()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["inspect", "   ", "--index", "{index}"], 2, "the question is empty"),
        (["inspect", "x" * 2001, "--index", "{index}"], 2, "the limit is 2,000"),
        (["inspect", "q", "--index", "{missing}"], 3, "no index at"),
        (["inspect", "--index", "{index}"], 2, "give a QUESTION or --questions"),
        (["ingest", "{missing}/nope.pdf", "--index", "{index}"], 1, "no such file or folder"),
        (["inspect", "q", "--index", "{index}", "--k", "0"], 2, "Invalid value"),
    ],
)
def test_bad_input_is_one_clear_error(cli, tmp_path, demo_index, args, code, message):
    filled = [a.format(index=demo_index, missing=tmp_path / "missing") for a in args]
    outcome = cli(*filled)
    assert outcome.code == code, (outcome.out, outcome.err)
    assert message in outcome.err
    assert "Traceback" not in outcome.err


def test_ingest_with_another_embedder_is_refused_before_any_call(cli, demo_index: Path):
    outcome = cli("ingest", demo_index, "--index", demo_index, "--embedder", "voyage")
    assert outcome.code == 3
    assert "built with minilm" in outcome.err and "voyage" in outcome.err


def test_reading_with_another_embedder_is_refused(cli, demo_index, monkeypatch):
    monkeypatch.setenv("LASTWORD_EMBED__EMBEDDER", "openai")
    outcome = cli("inspect", QUESTION, "--index", demo_index)
    assert outcome.code == 3 and "built with minilm" in outcome.err


def test_settings_errors_name_the_key(cli, tmp_path: Path, monkeypatch):
    config = tmp_path / "lastword.toml"
    config.write_text("[retrieve]\nk = 8\nkk = 3\n", encoding="utf-8")
    outcome = cli("sources")
    assert outcome.code == 2 and "retrieve.kk: unknown setting" in outcome.err

    config.write_text("[retrieve]\nk = 0\n", encoding="utf-8")
    outcome = cli("--config", config, "sources")
    assert (
        outcome.code == 2 and "retrieve.k" in outcome.err and "greater than or equal" in outcome.err
    )

    config.write_text("[retrieve\n", encoding="utf-8")
    assert "not valid TOML" in cli("sources").err

    config.unlink()
    monkeypatch.setenv("LASTWORD_GENERATE__TIMEOUT_S", "soon")
    outcome = cli("sources")
    assert outcome.code == 2 and "generate.timeout_s" in outcome.err

    monkeypatch.delenv("LASTWORD_GENERATE__TIMEOUT_S")
    monkeypatch.setenv("LASTWORD_RETRIEVAL__K", "5")
    outcome = cli("sources")
    assert outcome.code == 2 and "unknown environment variable LASTWORD_RETRIEVAL__K" in outcome.err

    monkeypatch.delenv("LASTWORD_RETRIEVAL__K")
    # Variables the README documents that are not settings (the model cache, the master key)
    # are not mistaken for misspelt ones.
    monkeypatch.setenv("LASTWORD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LASTWORD_SKIP_LLAMACPP", "1")
    from lastword.settings import load_settings

    assert load_settings(None).retrieve.k >= 1
    monkeypatch.delenv("LASTWORD_CACHE_DIR")
    outcome = cli("--config", tmp_path / "absent.toml", "sources")
    assert outcome.code == 2 and "settings file not found" in outcome.err


def test_progress_rate_is_never_a_misleading_zero() -> None:
    from lastword.cli.corpus import rate_text

    assert rate_text(5, 11.2) == "0.45/s"  # the demo's first batch, model load included
    assert rate_text(600, 10.0) == "60/s"
    assert rate_text(3, 0.0) == ""
