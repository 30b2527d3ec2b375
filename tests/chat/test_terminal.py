"""Untrusted text reaches a terminal without control or escape characters; the search log is
private (issue 13, item 4)."""

from __future__ import annotations

import json
import stat

from typer.testing import CliRunner

from lastword.cli.app import state
from lastword.cli.render import printable, safe
from lastword.websearch.ratelimit import SEARCH_LOG_FILE, SearchLog
from tests.chat.conftest import CAFFEINE_PAGES
from tests.chat.test_cli import chat_app
from tests.servers.brave_api import Page

HOSTILE = "Caffeine\x1b[2J\x1b]8;;https://evil.example\x07 half-life\x07 is 5\u202e hours\r\x9b31m"


def test_printable_removes_controls_escapes_and_bidi_overrides_only():
    shown = printable(HOSTILE)
    assert shown == "Caffeine[2J]8;;https://evil.example half-life is 5 hours31m"
    assert printable("two\nlines\tand ünïcode 📚 [1]") == "two\nlines\tand ünïcode 📚 [1]"
    assert safe("[bold]x[/]") == "\\[bold]x\\[/]"  # markup in a paper is shown, not applied


def test_chat_prints_a_hostile_snippet_without_escapes(make_settings, pubmed_index, brave):
    brave.pages = [
        *CAFFEINE_PAGES,
        Page(
            "Caffeine\x1b[31m - Wikipedia",
            "https://en.wikipedia.org/wiki/Caffeine",
            "In healthy adults, the half-life of caffeine\x1b]0;pwned\x07 in blood plasma "
            "is about 5 hours.\x1b[2J",
        ),
    ]
    brave.pages[0] = Page(
        CAFFEINE_PAGES[0].title, CAFFEINE_PAGES[0].url, CAFFEINE_PAGES[0].snippet + "\x1b[2J\x07"
    )
    state._settings = make_settings()
    try:
        result = CliRunner().invoke(
            chat_app(),
            ["chat", "--member", "m1", "--chat", "c1", "--index", str(pubmed_index)],
            input="search the web for the half-life of caffeine in healthy adults\n",
        )
    finally:
        state._settings = None
    assert result.exit_code == 0, result.output
    assert "half-life of caffeine" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout


def test_ask_renders_answer_and_passages_without_escapes(capsys):
    from lastword.cli import render
    from lastword.result import Result, RetrievedPassage, Status

    passage = RetrievedPassage(
        n=1, passage_id=1, doc_id="d", title="Paper\x1b[8m", page=2, score=0.9, text=HOSTILE
    )
    result = Result(
        question="q\x1b[1A?",
        status=Status.ANSWERED,
        answer=HOSTILE + " [1]",
        citations=(1,),
        passages=(passage,),
    )
    with render.console.capture() as captured:
        render.render_answer(result)
    out = captured.get()
    assert "half-life" in out and "Paper" in out
    assert "\x1b[2J" not in out and "\x1b]8;;https://evil" not in out and "\x07" not in out


def test_search_log_is_created_private(tmp_path):
    path = tmp_path / "state" / SEARCH_LOG_FILE
    log = SearchLog(path)
    log.admit("@member:lab.org", "!room:lab.org", "brave", "caffeine")
    for file in tmp_path.joinpath("state").iterdir():  # the database and its -wal / -shm
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    json.dumps([r.query for r in log.records()])


def test_sources_prints_a_hostile_title_without_escapes(tmp_path, minilm):
    from lastword.cli.app import app
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    paper = tmp_path / "paper.md"
    paper.write_text(
        "# Caffeine\x1b]8;;https://evil.example\x07 and [bold]sleep[/bold]\n\n"
        "Caffeine taken six hours before bed reduced total sleep time by more than one hour.\n",
        encoding="utf-8",
    )
    index = tmp_path / "index"
    ingest_paths([paper], index, minilm, IngestSettings())
    result = CliRunner().invoke(app, ["sources", "--index", str(index)])
    assert result.exit_code == 0, result.output
    assert "Caffeine" in result.stdout and "[bold]sleep[/bold]" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
