"""Log in and out.

Failed logins are counted per (user name, address), per user name and per address; past each
one's allowance every further try waits, growing from 1 s. The check and the recording of an
attempt are one transaction, so parallel attempts cannot all slip past the count, and a
correct password from another address (or another user behind the same one) is not locked out
by a stranger's failures: the per-name count holds back only an address that has itself failed
for that name. The address is the socket's peer, or the client a trusted proxy names
(``[web] forwarded_allow_ips``).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from lastword.web.errors import WebError
from lastword.web.security import (
    SESSION_COOKIE,
    check_csrf,
    client_address,
    resolve_user,
    secure_cookies,
)

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
    name = name.strip()
    client = client_address(request)
    account = name.lower()
    limits = [
        (f"pair:{account}|{client}", config.login_attempts),
        (f"user:{account}", config.login_attempts_per_account),
        (f"ip:{client}", config.login_attempts_per_address),
    ]
    # The name's own count, from every address, holds back only an address that failed for
    # this name itself: several strangers' addresses never lock the right password out.
    wait, attempt = state.accounts.begin_login(
        limits, config.login_window_s, config.login_max_delay_s, shared=frozenset({limits[1][0]})
    )
    if wait is not None:
        seconds = int(wait) + 1
        raise WebError(
            429,
            "rate_limited",
            f"too many failed logins; try again in {seconds} seconds",
            {"Retry-After": str(seconds)},
        )
    # argon2 takes tens of milliseconds of CPU: keep it off the event loop.
    user = await run_in_threadpool(state.accounts.verify_password, name, password)
    templates = request.app.state.templates
    if user is None:
        state.accounts.login_failed(attempt)
        return templates.TemplateResponse(
            request,
            "login.html",
            {"next": _safe_next(next), "error": "wrong user name or password", "name": name},
            status_code=401,
        )
    state.accounts.login_succeeded(attempt, limits[0][0])
    session_id, _ = state.accounts.start_session(user, config.session_lifetime_s)
    response = RedirectResponse(_safe_next(next), status_code=303)
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
