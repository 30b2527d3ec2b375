"""``build_server(pipeline)``: an ``MCPServer`` whose tools call ``Pipeline`` and return the
typed ``Result``.

- ``ask``: answer or refuse, as ``lastword ask`` does; ``history`` (earlier questions of the
  conversation, oldest first) makes a follow-up standalone first (``lastword.conversation``);
- ``inspect``: retrieval alone (passages with pages, the band), no model;
- ``sources``: the documents of the index with their pages and passage counts.

Every tool's result is structured (``structuredContent``, with its JSON schema as the tool's
output schema) and also given as text: an answer with its "Sources" list, or the refusal and
who decided. The same server runs on stdio (``lastword mcp``) and over streamable HTTP under
``lastword serve`` (``/mcp``, ``web/mcp_mount.py``). Pipeline calls run in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field

from lastword import __version__
from lastword.conversation import ask as ask_in_conversation
from lastword.conversation import replay
from lastword.errors import LastwordError, MissingExtraError
from lastword.pipeline import Pipeline
from lastword.result import Result, page_range_label

INSTRUCTIONS = (
    "lastword answers only from the documents in its index, cites every claim with [N] "
    "markers naming the passages returned, and refuses when the evidence is not there. A "
    "refusal (status 'refused', with decided_by and refusal.reason) is an answer: do not "
    "retry it elsewhere as if lastword had failed. Pass the conversation's earlier questions "
    "as 'history' so a follow-up is asked standalone."
)


class SourceDocument(BaseModel):
    doc_id: str
    title: str
    path: str | None = Field(None, description="Relative to the folder ingested.")
    pages: int | None = None
    printed_pages: str | None = Field(None, description="Printed page range, when not the PDF's.")
    passages: int


class Sources(BaseModel):
    """The documents of the index."""

    embedder: str
    documents: list[SourceDocument]
    passages: int


def _sdk() -> Any:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError as exc:
        raise MissingExtraError("mcp", "mcp") from exc
    return MCPServer


def build_server(pipeline: Callable[[], Pipeline]) -> Any:
    """The MCP server over the pipeline ``pipeline()`` returns at each call (the web server
    swaps its pipeline after an ingest; stdio holds one)."""
    import anyio

    server = _sdk()(name="lastword", version=__version__, instructions=INSTRUCTIONS)
    from mcp.server.mcpserver.exceptions import ToolError

    async def in_thread(work: Callable[[], Any]) -> Any:
        """``work`` in a worker thread; a lastword error is the tool's one clear message."""
        try:
            return await anyio.to_thread.run_sync(work)
        except LastwordError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(
        description="Answer a question from the indexed documents, or refuse. The result says "
        "who decided (status, decided_by), the verified answer with [N] markers, the numbered "
        "passages with document and page, and the refusal's reason."
    )
    async def ask(
        question: Annotated[str, Field(description="The question, as a person would ask it.")],
        history: Annotated[
            list[str],
            Field(
                description="Earlier questions of this conversation, oldest first (questions "
                "only: earlier answers are never evidence)."
            ),
        ] = [],  # noqa: B006  (the SDK reads the default for the schema; never mutated)
    ) -> Result:
        def run() -> Result:
            current = pipeline()
            conversation = current.settings.conversation
            turns = replay(history, conversation.max_turns, conversation.followups)
            result, _turn = ask_in_conversation(
                current, question, turns, enabled=conversation.followups
            )
            return result

        return await in_thread(run)

    @server.tool(
        description="Retrieval alone: the top passages for a question with document, page and "
        "score, and the gate's band. No answer is written and no model runs."
    )
    async def inspect(
        question: Annotated[str, Field(description="The question to retrieve passages for.")],
        k: Annotated[int | None, Field(ge=1, le=100, description="Passages to return.")] = None,
    ) -> Result:
        return await in_thread(lambda: pipeline().inspect(question, k=k))

    @server.tool(description="The documents in the index: title, pages and passage counts.")
    async def sources() -> Sources:
        def run() -> Sources:
            current = pipeline()
            documents = [
                SourceDocument(
                    doc_id=d.doc_id,
                    title=d.title,
                    path=d.metadata.get("path"),
                    pages=d.pages,
                    printed_pages=page_range_label(d.metadata),
                    passages=d.passages,
                )
                for d in current.store.documents()
            ]
            info = current.store.info()
            return Sources(
                embedder=info.embedder.describe(), documents=documents, passages=info.passages
            )

        return await in_thread(run)

    return server


def run_stdio(pipeline: Pipeline) -> None:
    """Serve ``pipeline`` on stdin/stdout until the client closes it."""
    import anyio

    server = build_server(lambda: pipeline)
    anyio.run(server.run_stdio_async)
