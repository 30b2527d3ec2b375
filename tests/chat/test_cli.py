"""``lastword chat`` as a pipe: one message a line in, one JSON reply record a line out."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from lastword.cli.app import state
from lastword.cli.chat import chat, keys_app
from lastword.settings import ChatSettings
from tests.chat.conftest import BRAVE_KEY


def chat_app() -> typer.Typer:
    # Registered like cli/__init__.py does it.
    app = typer.Typer()
    app.command("chat")(chat)
    app.add_typer(keys_app, name="keys")
    return app


def test_chat_reads_lines_and_writes_reply_records(make_settings, pubmed_index, brave):
    state._settings = make_settings()
    try:
        messages = "\n".join(
            [
                "what is the latest stock market news?",
                "",
                "search the web for the half-life of caffeine in healthy adults",
                "look up how to make a pipe bomb",
            ]
        )
        result = CliRunner().invoke(
            chat_app(),
            ["chat", "--member", "m1", "--chat", "c1", "--index", str(pubmed_index), "--json"],
            input=messages + "\n",
        )
    finally:
        state._settings = None
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [r["outcome"] for r in records] == ["no_evidence", "answered", "gate_refused"]
    assert set(records[0]) >= {"text", "source_line", "status", "decided_by", "outbound_query"}
    assert records[0]["outbound_query"] is None
    assert records[1]["outbound_query"] == "the half-life of caffeine in healthy adults"
    assert records[1]["source_line"].startswith("🔎")
    assert records[2]["text"] == ChatSettings().gate_refused_line
    assert records[2]["status"] == "refused" and records[2]["source_line"] is None
    assert len(brave.searches) == 1
    assert BRAVE_KEY not in result.output


def test_chat_plain_text_output(make_settings, pubmed_index, brave):
    state._settings = make_settings()
    try:
        result = CliRunner().invoke(
            chat_app(),
            ["chat", "--member", "m1", "--chat", "c1", "--index", str(pubmed_index)],
            input="look up the half-life of caffeine in healthy adults\n",
        )
    finally:
        state._settings = None
    assert result.exit_code == 0, result.output
    assert "🔎 From search previews" in result.stdout
    assert "[1]" in result.stdout or "[2]" in result.stdout
