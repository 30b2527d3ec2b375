"""``main`` starts loading MiniLM before typer parses, only for the commands that embed at once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lastword.cli.app import command_named


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["ask", "Does zinc shorten colds?"], "ask"),
        (["inspect", "q", "--index", "idx", "--json"], "inspect"),
        (["-c", "ask.toml", "inspect", "q"], "inspect"),  # the config file is not the command
        (["--config", "inspect", "ask", "q"], "ask"),
        (["--config=lw.toml", "ask", "q"], "ask"),
        (["sources", "--index", "ask"], "sources"),
        (["ask", "--help"], None),  # help runs nothing: no model to load
        (["--help"], None),
        (["-h", "ask"], None),
        (["--version"], None),
        ([], None),
    ],
)
def test_the_command_is_the_first_word_after_the_global_options(argv, command) -> None:
    assert command_named(argv) == command


PROBE = """
import sys, threading
sys.argv = ["lastword", *{argv!r}]
from lastword.cli import main
try:
    main()
except SystemExit:
    pass
for thread in threading.enumerate():
    if thread.name.startswith("lastword-"):
        thread.join(timeout=120)
minilm = sys.modules.get("lastword.embed.minilm")
print(minilm is not None and minilm._runtime is not None)
"""


def run_probe(argv: list[str]) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()[-1] == "True"


def test_ask_loads_the_model_while_typer_parses_even_when_the_command_then_fails(tmp_path) -> None:
    # no index there: the command fails after the preload started, and the session was made
    assert run_probe(["ask", "Does zinc shorten colds?", "--index", str(tmp_path / "none")])


def test_help_and_other_commands_load_no_model() -> None:
    assert not run_probe(["ask", "--help"])
    assert not run_probe(["settings", "--help"])
