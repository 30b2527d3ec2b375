"""The MCP server over streamable HTTP at ``/mcp`` of ``lastword serve``.

The same tools as ``lastword mcp`` (``mcpserver/server.py``) on the server's one pipeline. A
request must carry ``Authorization: Bearer TOKEN`` (an API token of the web app's accounts,
any role), or be the machine's own user when no account exists (the web app's local mode). A
session cookie is not accepted here: a web page elsewhere cannot call tools with a browser's
login. Without the ``mcp`` SDK installed the route is simply absent.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.routing import Route

from lastword.errors import MissingExtraError
from lastword.web.errors import WebError, error_body
from lastword.web.security import local_mode

log = logging.getLogger("lastword.web")
MCP_PATH = "/mcp"


class _BearerOnly:
    """An ASGI wrapper letting through only a valid API token (or the local user)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        request = Request(scope, receive)
        try:
            self._authenticate(request)
        except WebError as exc:
            from starlette.responses import JSONResponse

            response = JSONResponse(error_body(exc.kind, exc.message), status_code=exc.status)
            await response(scope, receive, send)
            return
        await self.inner(scope, receive, send)

    @staticmethod
    def _authenticate(request: Request) -> None:
        state = request.app.state.lastword
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise WebError(401, "unauthenticated", "use 'Authorization: Bearer TOKEN'")
            if state.accounts.user_for_token(token.strip()) is None:
                raise WebError(401, "unauthenticated", "the API token is not valid (revoked?)")
            return
        request.state.via = None
        if not local_mode(request):
            raise WebError(
                401,
                "unauthenticated",
                "send 'Authorization: Bearer TOKEN' (lastword tokens create)",
            )


def mount_mcp(
    app: FastAPI, state: Any, host: str = "127.0.0.1"
) -> contextlib.AbstractAsyncContextManager | None:
    """Add ``/mcp`` to ``app``; returns the context the app's lifespan must run (the SDK's
    session manager), or None when the SDK is not installed."""
    try:
        from lastword.mcpserver.server import build_server

        server = build_server(state.pipeline)
        sdk_app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    except MissingExtraError:
        log.info("the mcp SDK is not installed: no /mcp (pip install 'lastword[mcp]')")
        return None
    for route in sdk_app.routes:
        if isinstance(route, Route) and route.path == MCP_PATH:
            app.router.routes.append(Route(MCP_PATH, endpoint=_BearerOnly(route.endpoint)))

    @contextlib.asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return running()
