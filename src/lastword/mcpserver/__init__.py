"""The MCP server: lastword's ``ask``, ``inspect`` and ``sources`` as Model Context Protocol
tools, on the official ``mcp`` SDK (imported only in ``mcpserver/server.py``). Named
``mcpserver`` so it never shadows the SDK's own ``mcp`` package."""
