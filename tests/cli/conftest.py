"""Run the real ``lastword`` entry point in-process (the model loads once) or as a process."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Outcome:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``cli("inspect", "q", "--index", d)`` runs ``lastword.cli.main`` as the shell would."""
    from lastword.cli import main
    from lastword.cli.app import state

    monkeypatch.chdir(tmp_path)  # no stray ./lastword.toml from the developer's folder
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: object) -> Outcome:
        monkeypatch.setattr(sys, "argv", ["lastword", *map(str, args)])
        capsys.readouterr()
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    yield run
    state.config, state._settings = None, None  # the next test starts from no --config


def lastword_process(
    *args: object, env: dict[str, str] | None = None, **kwargs
) -> subprocess.Popen:
    """``lastword`` in its own process, for what must cross a process boundary (kill -9)."""
    command = [sys.executable, "-c", "from lastword.cli import main; main()", *map(str, args)]
    return subprocess.Popen(
        command,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )
