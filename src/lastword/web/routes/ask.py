"""The Ask page: a question, the verified answer with [N] links, the passages, the band."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from lastword.web.reading import passage_views
from lastword.web.security import Reader

router = APIRouter(include_in_schema=False)


def _context(request: Request, q: str | None) -> dict:
    state = request.app.state.lastword
    result, cached_at, views = None, None, []
    if q and q.strip():
        result, cached_at = state.ask(q)
        sources, metadata = state.document_sources()
        views = passage_views(result, sources, metadata)
    thresholds = state.pipeline().thresholds if state.has_index else None
    return {
        "q": q or "",
        "result": result,
        "views": views,
        "cached_at": cached_at,
        "thresholds": thresholds,
        "page": "ask",
    }


@router.get("/ask")
def ask_page(request: Request, _: Reader, q: str | None = None) -> Response:
    """Without JavaScript the form reloads this page; with it, only the fragment is fetched."""
    context = _context(request, q)
    context["has_index"] = request.app.state.lastword.has_index
    return request.app.state.templates.TemplateResponse(request, "ask.html", context)


@router.get("/ask/result")
def ask_fragment(request: Request, _: Reader, q: str) -> Response:
    return request.app.state.templates.TemplateResponse(
        request, "_answer.html", _context(request, q)
    )
