"""The settings command: the effective settings, or the reference of every key."""

from __future__ import annotations

import sys
from typing import Annotated

import tomli_w
import typer

from lastword.cli.app import app, state
from lastword.settings_reference import settings_reference


@app.command("settings")
def show_settings(
    reference: Annotated[
        bool, typer.Option("--reference", help="Print the reference of every key (Markdown).")
    ] = False,
) -> None:
    """Print the effective settings (file + environment + defaults) as TOML."""
    if reference:
        sys.stdout.write(settings_reference() + "\n")
        return
    data = state.settings.model_dump(mode="json", exclude_none=True)
    sys.stdout.write(tomli_w.dumps(data))
