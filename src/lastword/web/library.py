"""Who may read what on the web: each signed-in user's ``Scope``, and the filters a request adds.

A user asks as ``Reader(name, groups, admin)``: an administrator sees every document, anyone
else the documents of the collections whose readers name them or one of their groups (and,
with ``[library] open_documents``, documents in no collection that has readers). The store
applies that inside every search; the routes use the same scope for what they list (the
Corpus page, the collections of the filter bar), serve (a document's file) and count.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from lastword.errors import InputError
from lastword.scope import Reader, Scope, make_scope

if TYPE_CHECKING:
    from lastword.store.protocol import DocumentRecord
    from lastword.web.accounts import User
    from lastword.web.server_state import ServerState


class Filters(BaseModel):
    """The filters of ``/api/ask`` and ``/api/inspect`` (every one optional)."""

    collection: list[str] | None = Field(None, description="Only these collections.")
    year: str | None = Field(None, description="Only these years: 2020..2024, 2020.., ..2024.")
    author: list[str] | None = Field(None, description="Only documents with such an author.")
    tag: list[str] | None = Field(None, description="Only documents with one of these tags.")
    doc: list[str] | None = Field(None, description="Only these documents (ids or paths).")


def reader_of(state: ServerState, user: User) -> Reader:
    return Reader(
        name=user.name,
        groups=state.accounts.groups(user.name) if not user.is_admin else frozenset(),
        admin=user.is_admin,
        open_documents=state.settings.library.open_documents,
    )


def user_scope(
    state: ServerState,
    user: User,
    collection: list[str] | str | None = None,
    year: str | None = None,
    author: list[str] | str | None = None,
    tag: list[str] | str | None = None,
    doc: list[str] | str | None = None,
) -> Scope:
    """The scope of one request: the user's permissions and the filters asked for. A
    collection the user may not read is named as unknown, the same as one that is not there."""

    def listed(value: list[str] | str | None) -> list[str] | None:
        return [value] if isinstance(value, str) else value

    scope = make_scope(
        collections=[c for c in listed(collection) or () if c.strip()] or None,
        years=year or None,
        authors=[a for a in listed(author) or () if a.strip()] or None,
        tags=[t for t in listed(tag) or () if t.strip()] or None,
        doc_ids=[d for d in listed(doc) or () if d.strip()] or None,
        reader=reader_of(state, user),
    )
    if scope.collections and state.has_index:
        known = {c.name for c in state.pipeline().store.collections(scope)}
        missing = sorted(scope.collections - known)
        if missing:
            raise InputError(f"no collection named {', '.join(missing)} that you can read")
    return scope


def visible_documents(state: ServerState, scope: Scope) -> list[DocumentRecord]:
    """The documents this scope's reader may see (every one for an administrator)."""
    if not state.has_store():
        return []
    with state.open_store() as store:
        allowed = store.scope_documents(scope)
        documents = list(store.documents())
    if allowed is None:
        return documents
    keep = set(allowed)
    return [d for d in documents if d.doc_id in keep]


def restricted_library(state: ServerState) -> bool:
    """Whether any collection has readers (then evaluation reports, which quote passages of
    every document, are for administrators only)."""
    if not state.has_index:
        return False
    return any(c.readers for c in state.pipeline().store.collections())


def filter_bar(state: ServerState, scope: Scope, filters: dict) -> dict:
    """What the Ask page's and the Inspector's filter bar shows: the collections this reader
    may read, and the filters in effect."""
    names = [c.name for c in state.pipeline().store.collections(scope)] if state.has_index else []
    chosen = filters.get("collection") or []
    return {
        "collections": names,
        "filters": {
            "collection": [chosen] if isinstance(chosen, str) else list(chosen),
            "year": filters.get("year") or "",
            "author": filters.get("author") or "",
            "tag": filters.get("tag") or "",
        },
        "scope_text": scope.describe() if scope.filtered else "",
    }
