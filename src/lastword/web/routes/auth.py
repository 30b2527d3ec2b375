"""Log in and out. Failed logins are counted per user name and per client address."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from lastword.web.errors import WebError
from lastword.web.security import SESSION_COOKIE, check_csrf, resolve_user

router = APIRouter(include_in_schema=False)


def _safe_next(target: str | None) -> str:
    # Only a path on this site: never an absolute or scheme-relative URL (open redirect).
    if (
        not target
        or not target.startswith("/")
        or target.startswith("//")
        or urlsplit(target).netloc
    ):
        return "/ask"
    return target


@router.get("/login")
def login_page(request: Request, next: str | None = None) -> Response:
    templates = request.app.state.templates
    return templates.TemplateResponse(
        request, "login.html", {"next": _safe_next(next), "error": None, "name": ""}
    )


@router.post("/login")
async def login(
    request: Request,
    name: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/ask",
) -> Response:
    from starlette.concurrency import run_in_threadpool

    resolve_user(request)
    await check_csrf(request)
    state = request.app.state.lastword
    config = state.config
    client = request.client.host if request.client else "unknown"
    keys = [f"user:{name.strip().lower()}", f"ip:{client}"]
    # One account gets few tries; one address several accounts' worth (a shared NAT).
    wait = state.accounts.login_blocked_for(
        keys, [config.login_attempts, config.login_attempts * 4], config.login_window_s
    )
    if wait is not None:
        raise WebError(
            429,
            "rate_limited",
            f"too many failed logins; try again in {int(wait) + 1} seconds",
            {"Retry-After": str(int(wait) + 1)},
        )
    # argon2 takes tens of milliseconds of CPU: keep it off the event loop.
    user = await run_in_threadpool(state.accounts.verify_password, name.strip(), password)
    templates = request.app.state.templates
    if user is None:
        state.accounts.record_login_failure(keys)
        return templates.TemplateResponse(
            request,
            "login.html",
            {"next": _safe_next(next), "error": "wrong user name or password", "name": name},
            status_code=401,
        )
    state.accounts.clear_login_failures(keys[0])
    session_id, _ = state.accounts.start_session(user, config.session_lifetime_s)
    response = RedirectResponse(_safe_next(next), status_code=303)
    from lastword.web.app import secure_cookies

    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=int(config.session_lifetime_s),
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request),
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    resolve_user(request)
    await check_csrf(request)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        request.app.state.lastword.accounts.end_session(cookie)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


@router.get("/")
def home() -> Response:
    return RedirectResponse("/ask", status_code=303)
