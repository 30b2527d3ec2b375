"""The Ask page: a question, the verified answer with [N] links, the passages, the band.

An Ask session is a conversation: the page carries the earlier questions (``after``, at most
``[conversation] max_turns``) in the form, so a follow-up is made standalone before retrieval
and shown as "asked as" (``lastword.conversation``). Only questions are carried, never answers.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from lastword.conversation import ask as ask_in_conversation
from lastword.conversation import replay
from lastword.conversation.rules import CorpusView
from lastword.conversation.run import rewrite
from lastword.web.accounts import User
from lastword.web.library import filter_bar, user_scope
from lastword.web.reading import passage_views
from lastword.web.security import Reader

router = APIRouter(include_in_schema=False)
After = Annotated[list[str] | None, Query(max_length=20)]


def _context(
    request: Request, user: User, q: str | None, filters: dict, after: list[str] | None = None
) -> dict:
    state = request.app.state.lastword
    conversation = state.settings.conversation
    earlier = [a for a in (after or []) if a.strip()][-conversation.max_turns :]
    result, cached_at, views = None, None, []
    scope = user_scope(state, user, **filters)
    if q and q.strip():
        history = replay(earlier, conversation.max_turns) if conversation.followups else []
        pipeline = state.pipeline()
        corpus = CorpusView.of(pipeline.store)
        if history and rewrite(q, history, corpus=corpus).followed_up:
            result, _turn = ask_in_conversation(pipeline, q, history, scope=scope)
        else:  # a question that stands alone is the cached one
            result, cached_at = state.ask(q, scope)
        sources, metadata = state.document_sources()
        views = passage_views(result, sources, metadata)
        if conversation.followups:
            earlier = [*earlier, q][-conversation.max_turns :]
    thresholds = state.pipeline().thresholds if state.has_index else None
    return {
        **filter_bar(state, scope, filters),
        "q": q or "",
        "after": earlier,
        "max_turns": conversation.max_turns if conversation.followups else 0,
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
    after: After = None,
) -> Response:
    """Without JavaScript the form reloads this page; with it, only the fragment is fetched.
    The filter bar (collection, years, author, tag) narrows the library searched."""
    filters = {"collection": collection, "year": year, "author": author, "tag": tag}
    context = _context(request, user, q, filters, after)
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
    after: After = None,
) -> Response:
    filters = {"collection": collection, "year": year, "author": author, "tag": tag}
    return request.app.state.templates.TemplateResponse(
        request, "_answer.html", _context(request, user, q, filters, after)
    )
