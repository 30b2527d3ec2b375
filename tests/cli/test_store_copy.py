"""lastword store copy: a real index moved into PostgreSQL and back, answers unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from lastword.settings import StoreSettings
from lastword.store import open_store

QUESTION = "How did caffeine affect reaction time in nurses after a night shift?"


def test_copy_to_postgres_and_back(
    cli, monkeypatch, tmp_path: Path, demo_index: Path, postgres_dsn: str, postgres_schema: str
):
    to_pg = cli(
        "store", "copy", "--from", demo_index, "--to", postgres_dsn, "--schema", postgres_schema
    )
    assert to_pg.code == 0, to_pg.err
    assert "copied 5 documents" in to_pg.out and "postgresql://" in to_pg.out

    local = json.loads(cli("inspect", QUESTION, "--index", demo_index, "--json").out)
    monkeypatch.setenv("LASTWORD_STORE__BACKEND", "postgres")
    monkeypatch.setenv("LASTWORD_STORE__DSN", postgres_dsn)
    monkeypatch.setenv("LASTWORD_STORE__SCHEMA_NAME", postgres_schema)
    remote = json.loads(cli("inspect", QUESTION, "--json").out)
    assert [p["doc_id"] for p in remote["passages"]] == [p["doc_id"] for p in local["passages"]]
    for ours, theirs in zip(remote["passages"], local["passages"], strict=True):
        assert abs(ours["score"] - theirs["score"]) < 1e-4
    sources = cli("sources")
    assert sources.code == 0 and sources.out.count("\n") > 5 and postgres_schema in sources.out
    answer = cli("ask", QUESTION)
    assert answer.code == 0, answer.err
    assert "[1]" in answer.out

    again = cli(
        "store", "copy", "--from", demo_index, "--to", postgres_dsn, "--schema", postgres_schema
    )
    assert "copied 0 documents" in again.out and "5 already there" in again.out

    back = tmp_path / "back"
    home = cli("store", "copy", "--from", postgres_dsn, "--to", back, "--schema", postgres_schema)
    assert home.code == 0, home.err
    with open_store(StoreSettings(), demo_index) as a, open_store(StoreSettings(), back) as b:
        assert a.info().fingerprint == b.info().fingerprint != ""
        assert (a.info().documents, a.info().passages) == (b.info().documents, b.info().passages)


def test_copy_refuses_bad_locations(cli, tmp_path: Path, demo_index: Path):
    missing = cli("store", "copy", "--from", tmp_path / "nothing", "--to", tmp_path / "x")
    assert missing.code != 0 and "no index" in missing.err
    same = cli("store", "copy", "--from", demo_index, "--to", demo_index)
    assert same.code != 0 and "same index" in same.err
    weird = cli("store", "copy", "--from", "mysql://host/db", "--to", tmp_path / "x")
    assert weird.code != 0 and "postgresql://" in weird.err
    assert not (tmp_path / "x").exists()
