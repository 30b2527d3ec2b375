"""Tests that keep the documentation honest."""

from __future__ import annotations

from pathlib import Path

import typer.main

from lastword.cli import app
from lastword.settings_reference import settings_reference

REPO = Path(__file__).resolve().parents[1]


def docs_text() -> str:
    parts = [(REPO / "README.md").read_text(encoding="utf-8")]
    parts += [p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md"))]
    return "\n".join(parts)


def command_paths() -> list[str]:
    found: list[str] = []

    def walk(command, prefix: list[str]) -> None:
        subcommands = getattr(command, "commands", {})
        if prefix and not subcommands:
            found.append(" ".join(prefix))
        for name, sub in subcommands.items():
            walk(sub, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return found


def test_settings_reference_is_current():
    """Regenerate with: .venv/bin/lastword settings --reference > docs/settings.md"""
    assert (REPO / "docs" / "settings.md").read_text(encoding="utf-8").strip() == (
        settings_reference().strip()
    )


def test_every_command_is_documented():
    text = docs_text()
    missing = [path for path in command_paths() if f"lastword {path}" not in text]
    assert not missing, f"commands not shown in README.md or docs/: {missing}"


def test_the_readme_gives_the_two_fresh_machine_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/check" in readme and "bash scripts/check" in ci
    assert ".venv/bin/lastword demo" in readme
