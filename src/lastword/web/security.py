"""Who is asking, what they may do, and the CSRF check on every state-changing request.

A request is authenticated by ``Authorization: Bearer TOKEN`` (scripts) or by the session
cookie (browsers). With no account at all and ``open_when_no_accounts`` (only ever set for a
loopback bind), the machine's own user is a local administrator, for requests that arrived on a
loopback socket from a loopback peer, carry no proxy forwarding header (a proxy on the same host
would otherwise make every remote user the administrator), and name a loopback Host (so a web
page elsewhere cannot reach it through DNS rebinding). The Host header alone decides nothing.

CSRF: a signed-in browser has a per-session token; before signing in, a random pre-session
cookie is the token (double submit). Forms carry it as ``csrf_token``; scripts on the pages send
it as ``X-CSRF-Token``. Bearer requests carry no ambient credential and need none.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from typing import Annotated

from fastapi import Depends, Request

from lastword.web.accounts import User
from lastword.web.errors import LoginRequired, WebError

SESSION_COOKIE = "lw_session"
PRE_SESSION_COOKIE = "lw_pre"
LOCAL_ADMIN = User("local", "admin")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: a request carrying one of these came through a proxy: never the machine's own user
FORWARDING_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip")


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (an address, or 'localhost') is this machine's loopback interface."""
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(request: Request) -> str:
    host = request.headers.get("host", "")
    if host.startswith("["):
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0]


def resolve_user(request: Request) -> User | None:
    """Authenticate once per request; the outcome is kept on ``request.state``."""
    if hasattr(request.state, "user"):
        return request.state.user
    state = request.app.state.lastword
    user: User | None = None
    request.state.via = None
    request.state.session = None
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise WebError(401, "unauthenticated", "use 'Authorization: Bearer TOKEN'")
        user = state.accounts.user_for_token(token.strip())
        if user is None:
            raise WebError(401, "unauthenticated", "the API token is not valid (revoked?)")
        request.state.via = "token"
    elif cookie := request.cookies.get(SESSION_COOKIE):
        session = state.accounts.session(cookie)
        if session is not None:
            user = session.user
            request.state.via = "session"
            request.state.session = session
    if user is None and local_mode(request):
        user = LOCAL_ADMIN
        request.state.via = "local"
    request.state.user = user
    return user


def local_mode(request: Request) -> bool:
    """The machine's own user, decided by the sockets: bound, arrived on and came from."""
    state = request.app.state.lastword
    if not state.config.open_when_no_accounts:
        return False
    server = request.scope.get("server")  # the local address this connection arrived on
    if not server or not is_loopback(server[0]):
        return False
    if request.client is None or not is_loopback(request.client.host):
        return False
    if any(name in request.headers for name in FORWARDING_HEADERS):
        return False
    return _host_name(request) in LOOPBACK_HOSTS and not state.accounts.has_users()


def client_address(request: Request) -> str:
    """The client's address for rate limits: the socket's peer, or what a trusted proxy named
    (uvicorn's ``forwarded_allow_ips``; an untrusted X-Forwarded-For is ignored). An IPv6
    address counts as its /64, which one subscriber usually holds whole."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6 and not address.is_loopback:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return host


def secure_cookies(request: Request) -> bool:
    configured = request.app.state.lastword.config.secure_cookies
    if configured is not None:
        return configured
    # The scheme is https when TLS ends here, or when a trusted proxy said so (uvicorn
    # rewrites it from X-Forwarded-Proto only for ``forwarded_allow_ips``).
    return request.url.scheme == "https"


def csrf_token_for(request: Request) -> str:
    """The token this browser's forms must carry."""
    resolve_user(request)
    session = request.state.session
    if session is not None:
        return session.csrf
    return request.state.pre_csrf


async def check_csrf(request: Request) -> None:
    if request.method not in UNSAFE_METHODS or request.state.via == "token":
        return
    expected = csrf_token_for(request)
    sent = request.headers.get("x-csrf-token")
    if sent is None:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            value = form.get("csrf_token")
            sent = value if isinstance(value, str) else None
    if not sent or not hmac.compare_digest(sent, expected):
        raise WebError(
            403, "csrf", "the form's security token is missing or stale; reload the page and retry"
        )


async def require_reader(request: Request) -> User:
    user = resolve_user(request)
    if user is None:
        raise LoginRequired()
    await check_csrf(request)
    return user


async def require_admin(request: Request, user: Annotated[User, Depends(require_reader)]) -> User:
    if not user.is_admin:
        raise WebError(403, "forbidden", "this needs an administrator account")
    return user


def new_pre_session_value() -> str:
    return secrets.token_urlsafe(32)


#: route parameters: ``user: Reader`` signs in any role, ``user: Admin`` only administrators
Reader = Annotated[User, Depends(require_reader)]
Admin = Annotated[User, Depends(require_admin)]
