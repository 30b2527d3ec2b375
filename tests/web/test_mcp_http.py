"""The MCP tools over streamable HTTP at /mcp of a live server, with the official ``mcp`` client."""

from __future__ import annotations

import anyio
import httpx
import pytest

from tests.mcpserver.checks import exercise

pytestmark = pytest.mark.timeout(300)


def _client(url: str, token: str | None):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)))


def test_the_tools_over_streamable_http(site):
    async def main() -> None:
        async with _client(f"{site.base}/mcp", site.reader_token) as client:
            await exercise(client)

    anyio.run(main)


def test_mcp_needs_an_api_token_not_a_cookie(site):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    none = httpx.post(f"{site.base}/mcp", json=body, headers=headers)
    assert none.status_code == 401 and "Bearer" in none.json()["error"]["message"]
    wrong = httpx.post(
        f"{site.base}/mcp", json=body, headers={**headers, "Authorization": "Bearer nope"}
    )
    assert wrong.status_code == 401 and "not valid" in wrong.json()["error"]["message"]
