"""The FastAPI application: ``create_app(settings, index_dir, ...)``.

Pages are server-rendered (Jinja2) with a little JavaScript; the JSON API lives under ``/api/``
with its OpenAPI description at ``/api/openapi.json`` (browsable at ``/api/docs``). Every page and
endpoint calls the one ``Pipeline`` held by ``ServerState``; CPU-bound calls (embedding,
retrieval, generation) run in the threadpool because their handlers are plain functions.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from lastword import __version__
from lastword.embed import Embedder
from lastword.settings import Settings
from lastword.statedir import state_dir
from lastword.web import rendering
from lastword.web.config import WebConfig
from lastword.web.errors import error_body, install_error_handlers, render_error
from lastword.web.security import (
    PRE_SESSION_COOKIE,
    csrf_token_for,
    new_pre_session_value,
    resolve_user,
)
from lastword.web.server_state import ServerState

HERE = Path(__file__).parent
#: multipart framing around one file: headers, boundaries and the CSRF field
UPLOAD_OVERHEAD = 64 * 1024
UPLOAD_PATHS = ("/corpus/upload", "/api/ingest")


def create_app(
    settings: Settings,
    index_dir: Path,
    config: WebConfig | None = None,
    embedder: Embedder | None = None,
) -> FastAPI:
    config = config or WebConfig(state_dir=state_dir(settings))
    # one state folder for the server: accounts, uploads, keys and the search log alike
    settings = settings.model_copy(
        update={"state": settings.state.model_copy(update={"dir": config.state_dir})}
    )
    state = ServerState(settings, index_dir, config, embedder)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        state.jobs.shutdown()

    app = FastAPI(
        lifespan=lifespan,
        title="lastword",
        version=__version__,
        description="Answers only from the evidence it holds, cites every claim with [N], and "
        'refuses otherwise. Every error is `{"error": {"kind": ..., "message": ...}}`. '
        "Authenticate with `Authorization: Bearer TOKEN` (`lastword tokens create NAME`).",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
    )
    app.state.lastword = state
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(
        csrf_token=csrf_token_for,
        current_user=resolve_user,
        version=__version__,
    )
    templates.env.filters.update(rendering.FILTERS)
    app.state.templates = templates
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    install_error_handlers(app)

    @app.middleware("http")
    async def _guard(request: Request, call_next) -> Response:
        # A huge upload is refused from its Content-Length, before a byte of it is read.
        if request.method == "POST" and request.url.path in UPLOAD_PATHS:
            declared = request.headers.get("content-length")
            limit = config.max_upload_bytes
            if (
                declared is not None
                and declared.isdigit()
                and int(declared) > limit + UPLOAD_OVERHEAD
            ):
                return _too_large(request, int(declared), limit)
        pre = request.cookies.get(PRE_SESSION_COOKIE)
        request.state.pre_csrf = pre or new_pre_session_value()
        response = await call_next(request)
        if pre is None:
            response.set_cookie(
                PRE_SESSION_COOKIE,
                request.state.pre_csrf,
                httponly=True,
                samesite="strict",
                secure=secure_cookies(request),
            )
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    from lastword.web.routes import admin, api, ask, auth, corpus, evaluation, inspect

    for module in (auth, ask, inspect, corpus, evaluation, admin, api):
        app.include_router(module.router)

    return app


def secure_cookies(request: Request) -> bool:
    configured = request.app.state.lastword.config.secure_cookies
    if configured is not None:
        return configured
    forwarded = request.headers.get("x-forwarded-proto")
    return request.url.scheme == "https" or forwarded == "https"


def _too_large(request: Request, size: int, limit: int) -> Response:
    message = (
        f"the upload is {size / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB per request. "
        "Split it into smaller files, or ingest it with 'lastword ingest' on the server."
    )
    if request.url.path.startswith("/api/"):
        from fastapi.responses import JSONResponse

        return JSONResponse(error_body("too_large", message), status_code=413)
    return render_error(request, 413, "too_large", message)
