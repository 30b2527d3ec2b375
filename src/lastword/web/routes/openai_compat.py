"""An OpenAI-compatible chat API: ``POST /v1/chat/completions`` (streaming and not), ``GET
/v1/models``. Any client of the OpenAI chat API (Open WebUI, LibreChat, the ``openai`` SDKs)
asks the corpus with an API key of the web app's accounts (``lastword tokens create NAME``).

The last user message is the question; the earlier user messages are the conversation it
follows (``lastword.conversation``): the standalone question goes through ``Pipeline.ask``, the
same gate, verifier and limits as the web app. Assistant and system messages are never read:
an earlier answer is never evidence. The reply's text is the verified answer with its ``[N]``
markers and a plain "Sources" list, or a refusal saying why; the passages (document, page,
link) come in the ``lastword`` field of the response (of the last chunk when streaming).
A stream starts only once the answer is verified: no unchecked word is ever sent.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from lastword.conversation import ask as ask_in_conversation
from lastword.conversation import replay
from lastword.conversation.text import plain_text
from lastword.errors import InputError
from lastword.result import Result, RetrievedPassage
from lastword.web.errors import WebError, valid_unicode
from lastword.web.reading import file_key
from lastword.web.routes.api import ERRORS
from lastword.web.security import Reader

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

MODEL_ID = "lastword"
MAX_MESSAGES = 200

Text = Annotated[str, AfterValidator(valid_unicode)]


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str
    text: Text | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: Text | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if not self.content:
            return ""
        return "\n".join(part.text or "" for part in self.content if part.type == "text")


class ChatRequest(BaseModel):
    """The OpenAI chat request; sampling options (temperature, max_tokens...) are accepted and
    ignored: the answer is the verified one."""

    model_config = ConfigDict(extra="allow")

    model: Text = Field(description=f"'{MODEL_ID}' (GET /v1/models).")
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False


def _link(request: Request, sources: dict[str, str]):
    base = str(request.base_url).rstrip("/")

    def link(passage: RetrievedPassage) -> str | None:
        source = sources.get(passage.doc_id)
        if source is None:
            return None
        url = f"{base}/documents/{file_key(passage.doc_id)}"
        if source.lower().endswith(".pdf") and passage.page:
            url += f"#page={passage.page}"
        return url

    return link


def extension(result: Result, link) -> dict[str, Any]:
    """The ``lastword`` field: the decision and the numbered passages with pages and links."""
    cited = set(result.citations)
    return {
        "status": result.status.value,
        "decided_by": result.decided_by.value if result.decided_by else None,
        "question": result.question,
        "asked_as": result.asked_as,
        "band": result.band.value if result.band else None,
        "refusal": result.refusal.model_dump() if result.refusal else None,
        "citations": list(result.citations),
        "phantoms": len(result.phantoms),
        "passages": [
            {
                "n": p.n,
                "document": p.doc_id,
                "title": p.title,
                "page": p.page,
                "page_label": p.page_label,
                "link": link(p),
                "score": p.score,
                "cited": p.n in cited,
                "text": p.text,
            }
            for p in result.passages
        ],
    }


def _question_and_history(body: ChatRequest) -> tuple[str, list[str]]:
    users = [m.text() for m in body.messages if m.role == "user"]
    if not users or not users[-1].strip():
        raise InputError("the last user message is empty; send the question as a user message")
    return users[-1], users[:-1]


@router.get("/models", responses=ERRORS, summary="The one model: lastword")
def list_models(_: Reader) -> dict:
    return {
        "object": "list",
        "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "lastword"}],
    }


@router.post(
    "/chat/completions", responses=ERRORS, summary="Answer the last user message, or refuse"
)
def chat_completions(request: Request, _: Reader, body: ChatRequest):
    if body.model != MODEL_ID:
        raise WebError(404, "model_not_found", f"no model '{body.model}'; the one model is "
                       f"'{MODEL_ID}' (GET /v1/models)")  # fmt: skip
    state = request.app.state.lastword
    question, earlier = _question_and_history(body)
    pipeline = state.pipeline()
    conversation = state.settings.conversation
    history = replay(earlier, conversation.max_turns, conversation.followups)
    result, _turn = ask_in_conversation(pipeline, question, history, enabled=conversation.followups)
    sources, _meta = state.document_sources()
    link = _link(request, sources)
    content = plain_text(result, link)
    ident = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    extra = extension(result, link)
    usage = {
        "prompt_tokens": result.usage.input_tokens if result.usage else 0,
        "completion_tokens": result.usage.output_tokens if result.usage else 0,
    }
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    if body.stream:
        return StreamingResponse(
            _chunks(ident, created, content, extra, usage),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )
    return {
        "id": ident,
        "object": "chat.completion",
        "created": created,
        "model": MODEL_ID,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
        "lastword": extra,
    }


def _pieces(text: str, size: int = 80) -> Iterator[str]:
    """The text in pieces of about ``size`` characters, split after a space."""
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            space = text.rfind(" ", start, end)
            end = space + 1 if space > start else end
        yield text[start:end]
        start = end


def _chunks(
    ident: str, created: int, content: str, extra: dict[str, Any], usage: dict[str, int]
) -> Iterator[str]:
    def event(delta: dict[str, Any], finish: str | None = None, **more: Any) -> str:
        chunk = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": MODEL_ID,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **more,
        }
        return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"

    yield event({"role": "assistant", "content": ""})
    for piece in _pieces(content):
        yield event({"content": piece})
    yield event({}, "stop", usage=usage, lastword=extra)
    yield "data: [DONE]\n\n"
