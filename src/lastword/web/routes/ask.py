"""The Ask page: a question, the verified answer with [N] links, the passages, the band."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from lastword.web.accounts import User
from lastword.web.library import filter_bar, user_scope
from lastword.web.reading import passage_views
from lastword.web.security import Reader

router = APIRouter(include_in_schema=False)


def _context(request: Request, user: User, q: str | None, filters: dict) -> dict:
    state = request.app.state.lastword
    result, cached_at, views = None, None, []
    scope = user_scope(state, user, **filters)
    if q and q.strip():
        result, cached_at = state.ask(q, scope)
        sources, metadata = state.document_sources()
        views = passage_views(result, sources, metadata)
    thresholds = state.pipeline().thresholds if state.has_index else None
    return {
        **filter_bar(state, scope, filters),
        "q": q or "",
        "result": result,
        "views": views,
        "cached_at": cached_at,
        "thresholds": thresholds,
        "page": "ask",
    }


@router.get("/ask")
def ask_page(
    request: Request,
    user: Reader,
    q: str | None = None,
    collection: Annotated[list[str] | None, Query()] = None,
    year: str | None = None,
    author: str | None = None,
    tag: str | None = None,
) -> Response:
    """Without JavaScript the form reloads this page; with it, only the fragment is fetched.
    The filter bar (collection, years, author, tag) narrows the library searched."""
    filters = {"collection": collection, "year": year, "author": author, "tag": tag}
    context = _context(request, user, q, filters)
    context["has_index"] = request.app.state.lastword.has_index
    return request.app.state.templates.TemplateResponse(request, "ask.html", context)


@router.get("/ask/result")
def ask_fragment(
    request: Request,
    user: Reader,
    q: str,
    collection: Annotated[list[str] | None, Query()] = None,
    year: str | None = None,
    author: str | None = None,
    tag: str | None = None,
) -> Response:
    filters = {"collection": collection, "year": year, "author": author, "tag": tag}
    return request.app.state.templates.TemplateResponse(
        request, "_answer.html", _context(request, user, q, filters)
    )
