"""One error shape for every error: ``{"error": {"kind": ..., "message": ...}}``.

Lastword errors map to HTTP status codes here and nowhere else. Pages get the same kind and
message rendered as HTML; anything under ``/api/`` (or a client that does not accept HTML) gets
the JSON shape.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from lastword import errors as lw

log = logging.getLogger("lastword.web")


class WebError(Exception):
    """An HTTP-level refusal (auth, CSRF, size, rate limit) with its status and kind."""

    def __init__(
        self, status: int, kind: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers or {}


class LoginRequired(WebError):
    def __init__(self) -> None:
        super().__init__(401, "unauthenticated", "log in, or send 'Authorization: Bearer TOKEN'")


# Most specific first: the first matching class decides.
_LASTWORD_STATUS: tuple[tuple[type[lw.LastwordError], int, str], ...] = (
    (lw.IngestError, 400, "ingest"),
    (lw.InputError, 400, "input"),
    (lw.ConfigError, 400, "config"),
    (lw.IndexLockedError, 409, "index_locked"),
    (lw.IndexMismatchError, 409, "index_mismatch"),
    (lw.CorpusIndexError, 503, "index"),
    (lw.ProviderTimeout, 504, "timeout"),
    (lw.ProviderRateLimited, 429, "rate_limited"),
    (lw.ProviderUnavailable, 503, "unavailable"),
    (lw.MissingExtraError, 501, "missing_extra"),
    (lw.ProviderError, 502, "provider_error"),
    (lw.LastwordError, 500, "error"),
)

_HTTP_KINDS = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
}


INVALID_UNICODE = (
    "the request holds text that is not valid Unicode (a lone surrogate such as \\ud800, or "
    "bytes that are not UTF-8); send UTF-8 text"
)


def valid_unicode(value: str) -> str:
    """A pydantic after-validator: refuse strings that cannot be written as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(INVALID_UNICODE) from None
    return value


def status_for(exc: lw.LastwordError) -> tuple[int, str]:
    for cls, status, kind in _LASTWORD_STATUS:
        if isinstance(exc, cls):
            return status, getattr(exc, "kind", kind) if isinstance(exc, lw.ProviderError) else kind
    return 500, "error"


def wants_json(request: Request) -> bool:
    if request.url.path.startswith(("/api/", "/v1/", "/mcp")):
        return True
    accept = request.headers.get("accept", "")
    return "text/html" not in accept and "*/*" not in accept and bool(accept)


def error_body(kind: str, message: str) -> dict:
    return {"error": {"kind": kind, "message": message}}


def render_error(
    request: Request, status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    if status == 401 and not wants_json(request):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        from urllib.parse import quote

        return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
    if wants_json(request):
        return JSONResponse(error_body(kind, message), status_code=status, headers=headers)
    templates = request.app.state.templates
    return templates.TemplateResponse(
        request,
        "error.html",
        {"status": status, "kind": kind, "message": message},
        status_code=status,
        headers=headers,
    )


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> Response:
        return render_error(request, exc.status, exc.kind, exc.message, exc.headers)

    @app.exception_handler(lw.LastwordError)
    async def _lastword_error(request: Request, exc: lw.LastwordError) -> Response:
        status, kind = status_for(exc)
        headers = {}
        if isinstance(exc, lw.ProviderRateLimited) and exc.retry_after:
            headers["Retry-After"] = str(int(exc.retry_after + 0.999))
        return render_error(request, status, kind, str(exc), headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if isinstance(exc.__cause__, UnicodeError):  # a JSON body that is not UTF-8
            return render_error(request, 400, "input", INVALID_UNICODE)
        kind = _HTTP_KINDS.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else "request failed"
        return render_error(request, exc.status_code, kind, message, dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        if any(INVALID_UNICODE in str(err.get("msg")) for err in exc.errors()):
            return render_error(request, 400, "input", INVALID_UNICODE)
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return render_error(request, 422, "invalid_request", "; ".join(parts) or "invalid request")

    @app.exception_handler(UnicodeError)
    async def _unicode(request: Request, exc: UnicodeError) -> Response:
        return render_error(request, 400, "input", INVALID_UNICODE)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return render_error(request, 500, "internal", "an internal error occurred; see the log")
