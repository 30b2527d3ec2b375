"""The filter options of ``ask`` and ``inspect`` (``--collection``, ``--year``, ``--author``,
``--tag``, ``--doc``) and the one ``Scope`` they make."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from lastword.errors import InputError

if TYPE_CHECKING:
    from lastword.scope import Scope
    from lastword.store.protocol import Store

CollectionFilter = Annotated[
    list[str] | None,
    typer.Option("--collection", "-C", help="Only these collections (repeat, or a,b)."),
]
YearFilter = Annotated[
    str | None, typer.Option("--year", help="Only these years: 2020..2024, 2020.., ..2024, 2021.")
]
AuthorFilter = Annotated[
    list[str] | None,
    typer.Option("--author", help="Only documents with an author whose name contains this."),
]
TagFilter = Annotated[list[str] | None, typer.Option("--tag", help="Only documents with this tag.")]
DocFilter = Annotated[
    list[str] | None,
    typer.Option("--doc", help="Only this document (its id, or its path as 'sources' shows)."),
]


def scope_from(
    collection: list[str] | None,
    year: str | None,
    author: list[str] | None,
    tag: list[str] | None,
    doc: list[str] | None,
) -> Scope | None:
    """The filter options as one scope (None when none was given)."""
    from lastword.scope import make_scope

    scope = make_scope(collections=collection, years=year, authors=author, tags=tag, doc_ids=doc)
    return scope if scope.filtered else None


def check_scope(store: Store, scope: Scope | None) -> None:
    """One clear error for a collection the index does not hold (nothing is searched)."""
    if scope is None or not scope.collections:
        return
    known = {c.name for c in store.collections()}
    missing = sorted(scope.collections - known)
    if missing:
        have = ", ".join(sorted(known)) or "none yet"
        raise InputError(f"no collection named {', '.join(missing)} in this index (it has: {have})")
