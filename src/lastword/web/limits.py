"""Request bodies: who may send one, and how big, decided before and while it is read.

``BodyLimit`` is plain ASGI middleware around the whole app:

- A state-changing request to the API, the corpus, admin or evaluation routes must come from a
  signed-in sender, and an upload from an administrator, *before* a byte of the body is read:
  the check uses only the headers (bearer token or session cookie). Anyone else gets 401 (a
  page: the login redirect) or 403 at once, and the connection is closed unread.
- Every route has a byte limit: ``max_upload_bytes`` (plus framing) on the upload routes,
  ``max_request_bytes`` on all others. A declared ``Content-Length`` over it is refused
  before reading; a chunked body is counted as it arrives and refused the moment it passes
  the limit, so a body is never parsed, spooled to disk or held in memory past it.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lastword.web.errors import LoginRequired, WebError, render_error

#: multipart framing around the files: headers, boundaries and the CSRF field
UPLOAD_OVERHEAD = 64 * 1024
UPLOAD_PATHS = frozenset({"/corpus/upload", "/api/ingest"})
#: every state-changing request here needs a signed-in sender (only /login and /logout do not)
SIGNED_IN_PREFIXES = ("/api/", "/corpus/", "/admin", "/evaluation/")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` when the body passes its limit; FastAPI re-raises HTTP
    exceptions met while parsing, so this reaches the one error handler as a 413."""

    def __init__(self, message: str) -> None:
        super().__init__(413, message)


def limit_for(path: str, max_upload: int, max_request: int) -> tuple[int, str]:
    if path in UPLOAD_PATHS:
        return max_upload + UPLOAD_OVERHEAD, _upload_advice(max_upload)
    return max_request, f"the limit for this request is {max_request / 1024:.0f} KB"


def _upload_advice(limit: int) -> str:
    return (
        f"the limit is {limit / 1e6:.1f} MB per request. Split it into smaller files, or "
        "ingest it with 'lastword ingest' on the server"
    )


class BodyLimit:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        config = scope["app"].state.lastword.config
        limit, advice = limit_for(scope["path"], config.max_upload_bytes, config.max_request_bytes)
        if scope["method"] in UNSAFE_METHODS and scope["path"].startswith(SIGNED_IN_PREFIXES):
            refusal = _sender_refusal(request, admin=scope["path"] in UPLOAD_PATHS)
            if refusal is not None:
                await _close_unread(refusal, scope, receive, send)
                return
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            response = render_error(
                request,
                413,
                "too_large",
                f"the request body is {int(declared) / 1e6:.1f} MB; {advice}.",
            )
            await _close_unread(response, scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(f"the request body is over its limit: {advice}.")
            return message

        await self.app(scope, counted, send)


def _sender_refusal(request: Request, admin: bool):
    """The response for a sender who may not send this body, decided from headers alone."""
    from lastword.web.security import resolve_user

    try:
        user = resolve_user(request)
        if user is None:
            raise LoginRequired()
        if admin and not user.is_admin:
            raise WebError(403, "forbidden", "this needs an administrator account")
    except WebError as exc:
        return render_error(request, exc.status, exc.kind, exc.message, exc.headers)
    return None


async def _close_unread(response, scope: Scope, receive: Receive, send: Send) -> None:
    """Answer without reading the body, and ask the server to drop the connection."""
    response.headers["Connection"] = "close"
    await response(scope, receive, send)
