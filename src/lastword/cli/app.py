"""The typer application, its global options, and the one place errors become exit codes."""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from lastword import __version__
from lastword.errors import LastwordError
from lastword.text_check import check_text, printable

if TYPE_CHECKING:  # settings (pydantic) load when a command first reads them, not for --help
    from lastword.settings import Settings

app = typer.Typer(
    name="lastword",
    help="Answers questions only from evidence it already holds, cites every claim, "
    "and refuses when the evidence is not there.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: human-readable output goes to stderr when stdout carries JSON
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def safe(text: object) -> str:
    """``printable`` and escaped for rich markup: shows exactly the characters, styles none.
    Every name, id, path or message the CLI did not write itself goes through it."""
    from rich.markup import escape

    return escape(printable(str(text)))


@dataclass
class State:
    config: Path | None = None
    _settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from lastword.settings import load_settings

            self._settings = load_settings(self.config)
            _point_at_old_state(self._settings)
        return self._settings


def _point_at_old_state(settings: Settings) -> None:
    """State used to live in ./.lastword of the working folder: say so when one is left here."""
    from lastword.statedir import legacy_entries, state_dir

    left = legacy_entries(settings)
    if left:
        err_console.print(
            f"[yellow]note:[/] ./.lastword holds {', '.join(left)}, which lastword no longer "
            f"reads: state now lives in {state_dir(settings)} ([state] in the settings). "
            "Move it there with: lastword state migrate",
            soft_wrap=True,
        )


state = State()


#: Commands that embed a question at once: ``main`` starts loading MiniLM before typer parses.
EMBEDDING_COMMANDS = frozenset({"ask", "inspect"})
_preloading = False


def command_named(argv: list[str]) -> str | None:
    """The command in ``argv`` (the first word after the global options), None with --help
    or --version, which run nothing."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help", "--version"):
            return None
        if word in ("-c", "--config"):
            next(words, None)
        elif not word.startswith("-"):
            rest = list(words)
            return None if ("-h" in rest or "--help" in rest) else word
    return None


def preload_embedder() -> None:
    """Start loading MiniLM on another core as a command (``ask``, ``inspect``) begins, before
    it reads its settings and imports the pipeline: the two overlap, and the first embedding
    waits for the load under a lock. The load guesses the default embedder (MiniLM on every
    usable core); an index or settings that want another embedder or thread count simply do not
    use it (a background load wasted, nothing else)."""
    global _preloading
    if _preloading:
        return
    _preloading = True
    import threading

    def load() -> None:
        try:
            from lastword.embed.minilm import preload

            preload()
        except Exception:  # the command's own load reports any failure where the user sees it
            return

    threading.Thread(target=load, name="lastword-preload", daemon=True).start()


def _version(value: bool) -> None:
    if value:
        console.print(f"lastword {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="Settings file (TOML). Default: $LASTWORD_CONFIG, else ./lastword.toml if there.",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    state.config = config
    state._settings = None


def index_dir(index: Path | None) -> Path:
    """The ``--index`` option, else the settings default."""
    return index if index is not None else state.settings.index.path


def main() -> None:
    """Entry point: run the app, turning lastword errors into one message and an exit code."""
    from lastword import notices

    notices.set_listener(lambda message: err_console.print(f"[dim]{safe(message)}[/]"))
    try:
        for argument in sys.argv[1:]:
            check_text(argument, "a command-line argument")
        if command_named(sys.argv[1:]) in EMBEDDING_COMMANDS:
            preload_embedder()  # overlaps typer's parsing and the pipeline's imports
        # Without standalone mode click returns the code of a typer.Exit instead of exiting.
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except LastwordError as exc:
        err_console.print(f"[bold red]error:[/] {safe(exc)}", soft_wrap=True)
        sys.exit(exc.exit_code)
    except UnicodeError as exc:  # stdin or a file that is not UTF-8, met while reading it
        err_console.print(
            f"[bold red]error:[/] input is not valid UTF-8 text ({exc.reason}); nothing was done",
            soft_wrap=True,
        )
        sys.exit(2)
    except sqlite3.DatabaseError as exc:  # damage met after open (the store names it at open)
        from lastword.store.check import database_problem

        kind, message = database_problem(exc)
        err_console.print(f"[bold red]error:[/] {safe(message)}", soft_wrap=True)
        sys.exit(5 if kind == "disk_full" else 3)
    except OSError as exc:  # no space left writing the matrix or a file: the same message
        from lastword.store.check import database_problem, disk_full

        if not disk_full(exc):
            raise
        err_console.print(f"[bold red]error:[/] {safe(database_problem(exc)[1])}", soft_wrap=True)
        sys.exit(5)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err_console.print("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors: bad option, missing argument
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            err_console.print(f"[bold red]error:[/] {safe(exc)}")
        sys.exit(getattr(exc, "exit_code", 2))
