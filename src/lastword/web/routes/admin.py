"""The Admin page: thresholds, scope, persona and lines; write-only provider keys; search log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from lastword.settings import ChatSettings
from lastword.web.admin_settings import LINE_FIELDS, apply_form, shown_thresholds
from lastword.web.security import Admin
from lastword.websearch.keys import PROVIDERS, KeyStore
from lastword.websearch.ratelimit import SEARCH_LOG_FILE, SearchLog

router = APIRouter(include_in_schema=False)

SEARCH_LOG_ROWS = 100


def _notice(code: str) -> str | None:
    """Only fixed messages: a link cannot put words of its own on the admin page."""
    if code == "settings":
        return "Settings saved and applied."
    action, _, provider = code.partition(":")
    if provider not in PROVIDERS:
        return None
    return {
        "set": f"The {provider} key is stored. It will not be shown again.",
        "cleared": f"The {provider} key is cleared.",
        "none": f"No {provider} key was stored.",
    }.get(action)


def _keys(request: Request) -> KeyStore:
    state = request.app.state.lastword
    return KeyStore(state.config.state_dir, state.settings.state.master_key)


def _render(request: Request, notice: str | None = None, error: str | None = None, status=200):
    state = request.app.state.lastword
    settings = state.settings
    log_path = state.config.state_dir / SEARCH_LOG_FILE
    searches = SearchLog(log_path).records()[-SEARCH_LOG_ROWS:][::-1] if log_path.exists() else []
    embedder = state.embedder_name
    return request.app.state.templates.TemplateResponse(
        request,
        "admin.html",
        {
            "settings": settings,
            "embedder": embedder,
            "thresholds": shown_thresholds(settings, embedder),
            "line_fields": [(n, ChatSettings.model_fields[n].description) for n in LINE_FIELDS],
            "keys": _keys(request).status(),
            "providers": PROVIDERS,
            "searches": searches,
            "settings_path": state.config.settings_path,
            "notice": notice or _notice(request.query_params.get("notice", "")),
            "error": error,
            "page": "admin",
        },
        status_code=status,
    )


@router.get("/admin")
def admin_page(request: Request, _: Admin) -> Response:
    return _render(request)


@router.post("/admin/settings")
async def save_settings(request: Request, user: Admin) -> Response:
    from starlette.concurrency import run_in_threadpool

    from lastword.errors import ConfigError

    state = request.app.state.lastword
    form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
    try:
        updated = apply_form(
            state.settings, state.config.settings_path, state.embedder_name, form, user.name
        )
    except ConfigError as exc:
        return _render(request, error=str(exc), status=400)
    await run_in_threadpool(state.apply_settings, updated)
    return RedirectResponse("/admin?notice=settings", status_code=303)


@router.post("/admin/keys/{provider}")
def set_key(
    request: Request,
    _: Admin,
    provider: str,
    key: Annotated[str, Form()] = "",
    action: Annotated[str, Form()] = "set",
) -> Response:
    keys = _keys(request)
    if action == "clear":
        code = "cleared" if keys.delete(provider) else "none"
    else:
        keys.set(provider, key)
        code = "set"
    return RedirectResponse(f"/admin?notice={code}:{provider}", status_code=303)
