"""``lastword store copy``: move an index between a directory and PostgreSQL, no re-embedding.

Registered by ``lastword.cli`` as ``app.add_typer(store_app, name="store")``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lastword.cli.app import console, err_console, safe, state
from lastword.errors import InputError

if TYPE_CHECKING:
    from lastword.settings import StoreSettings
    from lastword.store.copy import CopyReport

store_app = typer.Typer(
    help="Move an index between stores (a local directory, PostgreSQL).", no_args_is_help=True
)

_SCHEMES = ("postgresql://", "postgres://")


def _where(location: str, schema: str | None) -> tuple[StoreSettings, Path]:
    """A directory or a postgresql:// DSN as store settings (and the directory)."""
    base = state.settings.store
    if location.startswith(_SCHEMES):
        update = {"backend": "postgres", "dsn": location}
        if schema is not None:
            update["schema_name"] = schema
        from lastword.settings import StoreSettings

        return StoreSettings.model_validate({**base.model_dump(), **update}), Path(".")
    if "://" in location:
        raise InputError(f"{location}: give a directory or a postgresql:// connection string")
    return base.model_copy(update={"backend": "local"}), Path(location)


@store_app.command("copy")
def copy(
    source: Annotated[
        str, typer.Option("--from", help="The index to read: a directory or postgresql://…")
    ],
    target: Annotated[
        str, typer.Option("--to", help="The index to write: a directory or postgresql://…")
    ],
    schema: Annotated[
        str | None,
        typer.Option(help="PostgreSQL schema of --from/--to. Default: [store] schema_name."),
    ] = None,
    mirror: Annotated[
        bool, typer.Option("--mirror", help="Also remove target documents the source lacks.")
    ] = False,
) -> None:
    """Copy every document, passage and vector; documents already there unchanged are skipped."""
    from lastword.store.copy import copy_index
    from lastword.store.open import open_store, store_exists

    source_settings, source_dir = _where(source, schema)
    target_settings, target_dir = _where(target, schema)
    if not store_exists(source_settings, source_dir):
        raise InputError(f"no index at {source}")
    local = source_settings.backend == target_settings.backend == "local"
    if local and source_dir.resolve() == target_dir.resolve():
        raise InputError("--from and --to are the same index")

    def progress(report: CopyReport) -> None:
        err_console.print(f"  {report.documents} documents, {report.passages} passages")

    with (
        open_store(source_settings, source_dir) as reader,
        open_store(target_settings, target_dir, write_as=reader.embedder) as writer,
    ):
        if writer.location == reader.location:
            raise InputError("--from and --to are the same index")
        console.print(f"copying {safe(reader.location)} -> {safe(writer.location)}")
        report = copy_index(reader, writer, mirror=mirror, progress=progress)
        fingerprint = writer.info().fingerprint
    console.print(
        f"copied {report.documents} documents ({report.passages} passages), "
        f"{report.skipped} already there, {report.removed} removed; fingerprint {fingerprint}"
    )
