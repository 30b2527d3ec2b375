"""The library on the command line: filter options for ``ask`` and ``inspect`` (one ``Scope``),
and ``lastword collection add|remove|list|readers``.

Registered by ``lastword.cli`` as ``app.add_typer(collection_app, name="collection")``. The
local command line asks as the index's owner: every document, no reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from lastword.cli.app import console, index_dir, state
from lastword.cli.corpus import IndexOption
from lastword.cli.filters import check_scope, scope_from  # noqa: F401  (re-exported)
from lastword.errors import InputError

if TYPE_CHECKING:
    from lastword.store.protocol import Store

collection_app = typer.Typer(
    help="Collections: groups of documents a question can be asked of, with their readers.",
    no_args_is_help=True,
)


def _documents(store: Store, names: list[str]) -> list[str]:
    """Document ids for names given on the command line: an id, a shown path or a file name."""
    by_path: dict[str, set[str]] = {}
    ids = set()
    for record in store.documents():
        ids.add(record.doc_id)
        for _, shown in store.source_paths(record.doc_id) or [("", record.doc_id)]:
            by_path.setdefault(shown, set()).add(record.doc_id)
            by_path.setdefault(Path(shown).name, set()).add(record.doc_id)
    out = []
    for name in names:
        found = {name} if name in ids else by_path.get(name, set())
        if len(found) != 1:
            why = "no document" if not found else f"{len(found)} documents"
            raise InputError(f"{why} named {name!r} in this index ('lastword sources' lists them)")
        out.append(found.pop())
    return out


def _writer(index: Path | None) -> Store:
    from lastword.store.open import open_store

    target = index_dir(index)
    with open_store(state.settings, target) as reader:
        embedder = reader.embedder
    return open_store(state.settings, target, write_as=embedder)


@collection_app.command("add")
def collection_add(
    name: Annotated[str, typer.Argument(help="The collection (created if new).")],
    documents: Annotated[
        list[str], typer.Argument(help="Documents: ids, paths as 'sources' shows, or file names.")
    ],
    index: IndexOption = None,
) -> None:
    """Put documents in a collection (nothing is re-read or re-embedded)."""
    with _writer(index) as store:
        added = store.add_to_collection(name, _documents(store, documents))
        store.commit()
        store.refresh_derived()
    console.print(f"{added} document(s) added to {name}")


@collection_app.command("remove")
def collection_remove(
    name: Annotated[str, typer.Argument(help="The collection.")],
    documents: Annotated[
        list[str] | None,
        typer.Argument(help="Documents to take out (none: delete the collection)."),
    ] = None,
    index: IndexOption = None,
) -> None:
    """Take documents out of a collection, or delete the collection (its documents stay)."""
    with _writer(index) as store:
        if name not in {c.name for c in store.collections()}:
            raise InputError(f"no collection named {name!r} in this index")
        removed = store.remove_from_collection(
            name, _documents(store, documents) if documents else None
        )
        store.commit()
        store.refresh_derived()
    console.print(
        f"{removed} document(s) taken out of {name}" if documents else f"collection {name} deleted"
    )


@collection_app.command("list")
def collection_list(index: IndexOption = None) -> None:
    """List the collections with their documents' count and readers."""
    from lastword.cli.render import safe
    from lastword.store.open import open_store

    with open_store(state.settings, index_dir(index)) as store:
        table = Table(title_justify="left")
        table.add_column("collection")
        table.add_column("documents", justify="right")
        table.add_column("readers")
        found = store.collections()
        for c in found:
            table.add_row(safe(c.name), str(c.documents), safe(", ".join(c.readers) or "anyone"))
        console.print(table if found else "no collections yet")


@collection_app.command("readers")
def collection_readers(
    name: Annotated[str, typer.Argument(help="The collection.")],
    add: Annotated[
        list[str] | None,
        typer.Option("--add", help="A reader: user:NAME, group:NAME or room:ID (repeat)."),
    ] = None,
    remove: Annotated[
        list[str] | None, typer.Option("--remove", help="A reader to take off.")
    ] = None,
    index: IndexOption = None,
) -> None:
    """Who may read a collection (web users and groups, chat rooms). A collection with
    readers is hidden from everyone else; administrators see everything."""
    from lastword.scope import principal

    adding = [principal(p) for p in add or ()]
    removing = [principal(p) for p in remove or ()]
    with _writer(index) as store:
        if adding:
            store.set_readers(name, adding, add=True)
        if removing:
            store.set_readers(name, removing, add=False)
        store.commit()
        store.refresh_derived()
        found = next((c for c in store.collections() if c.name == name), None)
    if found is None:
        raise InputError(f"no collection named {name!r} in this index")
    console.print(f"{name}: readers {', '.join(found.readers) or 'anyone'}")
