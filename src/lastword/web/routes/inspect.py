"""The Inspector: retrieval alone, the top-k with scores, the thresholds on a score bar."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from lastword.web.library import filter_bar, user_scope
from lastword.web.reading import passage_views
from lastword.web.security import Reader

router = APIRouter(include_in_schema=False)


@router.get("/inspect")
def inspect_page(
    request: Request,
    user: Reader,
    q: str | None = None,
    k: Annotated[int | None, Query(ge=1, le=100)] = None,
    collection: Annotated[list[str] | None, Query()] = None,
    year: str | None = None,
    author: str | None = None,
    tag: str | None = None,
) -> Response:
    state = request.app.state.lastword
    filters = {"collection": collection, "year": year, "author": author, "tag": tag}
    scope = user_scope(state, user, **filters)
    result = state.pipeline().inspect(q, k=k, scope=scope) if q and q.strip() else None
    views = []
    if result is not None:
        sources, metadata = state.document_sources()
        views = passage_views(result, sources, metadata)
    thresholds = state.pipeline().thresholds if state.has_index else None
    source = state.pipeline().thresholds_source if state.has_index else None
    return request.app.state.templates.TemplateResponse(
        request,
        "inspect.html",
        {
            "q": q or "",
            "k": k or state.settings.retrieve.k,
            "result": result,
            "views": views,
            "thresholds": thresholds,
            "thresholds_source": source,
            "has_index": state.has_index,
            "page": "inspect",
            **filter_bar(state, scope, filters),
        },
    )
