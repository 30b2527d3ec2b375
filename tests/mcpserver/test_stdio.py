"""``lastword mcp`` on stdio, driven by the official ``mcp`` client as a real subprocess."""

from __future__ import annotations

import os
import sys

import anyio
import pytest

from lastword.demo import DEMO_OUT_OF_SCOPE
from tests.mcpserver.checks import exercise

pytestmark = pytest.mark.timeout(300)


def test_the_tools_over_stdio(tmp_path, demo_index):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    config = tmp_path / "lastword.toml"
    scope = ", ".join(f'"{t}"' for t in DEMO_OUT_OF_SCOPE)
    config.write_text(f'[scope]\nout_of_scope = [{scope}]\n[state]\ndir = "{tmp_path}"\n')
    env = {k: v for k, v in os.environ.items() if k.startswith(("PYTHON", "HF_", "XDG_", "HOME"))}
    env["HF_HUB_OFFLINE"] = "1"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from lastword.cli import main; main()", "--config", str(config),
              "mcp", "--index", str(demo_index)],
        env=env,
    )  # fmt: skip

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            await exercise(client)

    anyio.run(main)
