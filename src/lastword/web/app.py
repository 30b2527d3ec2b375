"""The FastAPI application: ``create_app(settings, index_dir, ...)``.

Pages are server-rendered (Jinja2) with a little JavaScript; the JSON API lives under ``/api/``
with its OpenAPI description at ``/api/openapi.json`` (browsable at ``/api/docs`` when
``[web] api_docs`` is on). Every page and
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
from lastword.web.errors import install_error_handlers
from lastword.web.limits import BodyLimit
from lastword.web.security import (
    PRE_SESSION_COOKIE,
    csrf_token_for,
    new_pre_session_value,
    resolve_user,
    secure_cookies,
)
from lastword.web.server_state import ServerState

HERE = Path(__file__).parent

#: scripts, styles, fonts and images only from this site; inline style *attributes* (score bars'
#: widths) are allowed, inline scripts and styles are not; no plugins, no framing elsewhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'self'"
)
#: the Swagger UI (only when ``[web] api_docs`` is on) loads its code from this CDN
DOCS_CDN = "https://cdn.jsdelivr.net"
DOCS_POLICY = (
    f"default-src 'self'; script-src 'self' 'unsafe-inline' {DOCS_CDN}; "
    f"style-src 'self' {DOCS_CDN}; img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'self'"
)


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
    mcp_running: list[contextlib.AbstractAsyncContextManager] = []

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI):
        async with contextlib.AsyncExitStack() as stack:
            for context in mcp_running:
                await stack.enter_async_context(context)
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
        docs_url="/api/docs" if config.api_docs else None,
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
    # Inside the guard below (added later, so outside): sizes and upload rights come first.
    app.add_middleware(BodyLimit)

    @app.middleware("http")
    async def _guard(request: Request, call_next) -> Response:
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
        policy = DOCS_POLICY if request.url.path == "/api/docs" else CONTENT_SECURITY_POLICY
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    from lastword.web.routes import (
        admin,
        api,
        ask,
        auth,
        corpus,
        documents,
        evaluation,
        inspect,
        openai_compat,
    )

    for module in (auth, ask, inspect, corpus, documents, evaluation, admin, api, openai_compat):
        app.include_router(module.router)
    from lastword.web.mcp_mount import mount_mcp

    running = mount_mcp(app, state, settings.web.host)
    if running is not None:
        mcp_running.append(running)

    return app
