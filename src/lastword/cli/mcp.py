"""``lastword mcp``: the MCP server on stdin/stdout, for desktop and coding assistants."""

from __future__ import annotations

from typing import Annotated

import typer

from lastword.cli.app import app, err_console, index_dir, state
from lastword.cli.corpus import IndexOption


@app.command("mcp")
def mcp(
    index: IndexOption = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", "-g", help="Who writes answers. Default: settings."),
    ] = None,
) -> None:
    """Serve ask, inspect and sources as MCP tools on stdin/stdout (the client starts this).

    Nothing but the protocol is written to stdout; messages go to stderr. Over HTTP, `lastword
    serve` offers the same tools at /mcp (streamable HTTP, an API token as Bearer).
    """
    from lastword.mcpserver.server import _sdk, run_stdio
    from lastword.pipeline import Pipeline

    _sdk()  # a missing SDK is one message before the model loads
    with Pipeline.open(state.settings, index_dir(index), generator=generator) as pipeline:
        err_console.print(f"lastword MCP server on stdio: {pipeline.store.location}")
        run_stdio(pipeline)
