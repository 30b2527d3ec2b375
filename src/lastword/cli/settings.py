"""The settings command (effective settings, the reference of every key) and ``lastword state``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import tomli_w
import typer

from lastword import statedir
from lastword.cli.app import app, console, err_console, safe, state

state_app = typer.Typer(
    help="The one folder of accounts, API keys, master key, search log and uploads.",
    no_args_is_help=True,
)


@app.command("settings")
def show_settings(
    reference: Annotated[
        bool, typer.Option("--reference", help="Print the reference of every key (Markdown).")
    ] = False,
) -> None:
    """Print the effective settings (file + environment + defaults) and the state folder."""
    if reference:
        from lastword.settings_reference import settings_reference

        sys.stdout.write(settings_reference() + "\n")
        return
    settings = state.settings
    folder = statedir.state_dir(settings)
    data = settings.model_dump(mode="json", exclude_none=True)
    if data.get("store", {}).get("dsn"):  # a password in the connection string never prints
        from lastword.store.postgres import safe_dsn

        data["store"]["dsn"] = safe_dsn(data["store"]["dsn"])
    sys.stdout.write(
        f"# state folder (accounts, API keys, master key, search log, uploads): {folder}\n"
        + tomli_w.dumps(data)
    )


@state_app.command("show")
def state_show() -> None:
    """Print the state folder the settings choose and what it holds."""
    folder = statedir.state_dir(state.settings)
    console.print(f"state folder: {safe(folder)}", soft_wrap=True)
    held = [name for name in statedir.ENTRIES if (folder / name).exists()]
    console.print("holds: " + (", ".join(held) if held else "nothing yet"))


@state_app.command("migrate")
def state_migrate(
    source: Annotated[
        Path,
        typer.Option("--from", help="The old state folder. Default: ./.lastword (before 0.2)."),
    ] = statedir.LEGACY_DIR,
) -> None:
    """Move accounts, keys, master key, search log and uploads from an old folder into the
    state folder. What the state folder already has is left in place and named."""
    target = statedir.state_dir(state.settings)
    if not source.is_dir():
        err_console.print(f"nothing to migrate: {safe(source)} is not a folder")
        raise typer.Exit(1)
    if source.resolve() == target:
        console.print(f"{safe(source)} is already the state folder")
        return
    outcome = statedir.migrate(source, target)
    console.print(
        f"moved to {target}: " + (", ".join(outcome.moved) if outcome.moved else "nothing"),
        soft_wrap=True,
    )
    for name in outcome.clashes:
        err_console.print(
            f"[yellow]left in {safe(source)}:[/] {safe(name)} (the state folder has one)"
        )
