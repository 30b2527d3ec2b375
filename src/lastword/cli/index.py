"""Index commands: ``lastword index check``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lastword.cli.app import console, err_console, index_dir, safe

index_app = typer.Typer(help="Look after an index directory.", no_args_is_help=True)


@index_app.command("check")
def index_check(
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    repair: Annotated[
        bool,
        typer.Option("--repair/--no-repair", help="Rebuild damaged derived files from SQLite."),
    ] = True,
) -> None:
    """Check index.sqlite and every derived file (matrix, row ids, lexicon) against it.

    A damaged derived file is rebuilt from SQLite; a damaged index.sqlite is named with what
    to do; documents without any passage are a finding. Exit code 0: whole (or repaired);
    1: damage left unrepaired, or documents without passages; 3: SQLite damaged.
    """
    target = index_dir(index)
    from lastword.store.check import check_index

    report = check_index(target, repair=repair)
    verdict = "damaged" if report.findings else "ok"
    console.print(
        f"{safe(target)}: index.sqlite {verdict} ({report.documents} documents, "
        f"{report.passages} passages, generation {report.generation})"
    )
    for finding in report.findings:
        err_console.print(f"[bold yellow]damaged:[/] {safe(finding)}", soft_wrap=True)
    for problem in report.problems:
        err_console.print(f"[bold yellow]damaged:[/] {safe(problem)}", soft_wrap=True)
    if report.rebuilt:
        console.print("rebuilt from index.sqlite: " + ", ".join(report.rebuilt))
    if not report.problems:
        console.print("matrix, row ids and lexicon match index.sqlite")
    if not report.ok:
        if report.problems and not report.rebuilt:
            err_console.print("run again without --no-repair to rebuild them")
        raise typer.Exit(1)
