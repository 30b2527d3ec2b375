"""A local server that speaks Anthropic's Messages API (``POST /v1/messages``) on 127.0.0.1.

Point the official SDK at it with ``anthropic.Anthropic(base_url=api.base_url, api_key=...)``
(or ``GenerateSettings(anthropic_url=api.base_url)``). A scripted model (see
``scripted_model``) writes the text; queue one of the replies below to force an outcome::

    api.queue(rate_limited(retry_after="7"))   # the next request gets a 429
    api.queue(overloaded(), overloaded())      # the next two get a 529
    api.queue(message_reply("", stop_reason="refusal"))

Like the real API it checks what the SDK sends: a key (``x-api-key`` or ``Authorization:
Bearer``), ``anthropic-version``, the required body fields, and on version 2026-10-21 the
removal of sampling parameters.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.servers.base import LocalServer, Reply, Request
from tests.servers.scripted_model import ModelCall, ScriptedModel, estimate_tokens, quotes_passages

MESSAGES_PATH = "/v1/messages"
DEFAULT_MODEL_NAME = "claude-sonnet-4-5-20250929"
# API versions from this one on reject sampling parameters outright.
NO_SAMPLING_VERSION = "2026-10-21"
_ids = itertools.count(1)


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    """Anthropic's error body: ``{"type": "error", "error": {"type", "message"}, "request_id"}``."""
    request_id = f"req_{next(_ids):024d}"
    body = {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }
    return Reply(status, body, headers={"request-id": request_id, **(headers or {})})


def rate_limited(retry_after: str = "7") -> Reply:
    return error_reply(
        429,
        "rate_limit_error",
        "This request would exceed your organization's rate limit of 50 requests per minute.",
        {"retry-after": retry_after},
    )


def overloaded() -> Reply:
    return error_reply(529, "overloaded_error", "Overloaded")


def api_error() -> Reply:
    return error_reply(500, "api_error", "Internal server error")


def authentication_error(message: str = "invalid x-api-key") -> Reply:
    return error_reply(401, "authentication_error", message)


def message_reply(
    text: str,
    *,
    stop_reason: str = "end_turn",
    model: str = DEFAULT_MODEL_NAME,
    input_tokens: int = 100,
    delay_s: float = 0.0,
) -> Reply:
    """A complete ``message`` response; ``stop_reason="refusal"`` for Claude's refusal."""
    content = [{"type": "text", "text": text}] if text else []
    body = {
        "id": f"msg_{next(_ids):024d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": estimate_tokens(text)},
    }
    return Reply(200, body, delay_s=delay_s)


class AnthropicAPI(LocalServer):
    """``model`` writes every answer not overridden by a queued reply; ``api_key`` (when set)
    is the only key accepted, any other gets the real 401."""

    def __init__(
        self,
        model: ScriptedModel | None = None,
        *,
        api_key: str | None = None,
        model_name: str = DEFAULT_MODEL_NAME,
    ) -> None:
        super().__init__({("POST", MESSAGES_PATH): self._messages})
        self.model: ScriptedModel = model or quotes_passages()
        self.api_key = api_key
        self.model_name = model_name

    @property
    def base_url(self) -> str:
        """What the SDK's ``base_url`` should be (it appends ``/v1/messages``)."""
        return self.url

    @property
    def calls(self) -> list[ModelCall]:
        """Every well-formed Messages request received, as the model would read it."""
        return [
            to_model_call(r.json()) for r in self.requests if r.path == MESSAGES_PATH and r.body
        ]

    def _messages(self, request: Request) -> Reply:
        key = request.header("x-api-key") or _bearer(request.header("authorization"))
        if not key:
            return authentication_error("x-api-key header is required")
        if self.api_key is not None and key != self.api_key:
            return authentication_error()
        version = request.header("anthropic-version")
        if not version:
            return error_reply(
                400, "invalid_request_error", "anthropic-version: header is required"
            )
        try:
            body = request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error_reply(400, "invalid_request_error", "request body is not valid JSON")
        problem = _invalid(body, version)
        if problem:
            return error_reply(400, "invalid_request_error", problem)
        call = to_model_call(body)
        text = self.model(call)
        input_tokens = estimate_tokens(call.system + "".join(m["content"] for m in call.messages))
        return message_reply(
            text, model=body.get("model") or self.model_name, input_tokens=input_tokens
        )


def to_model_call(body: dict[str, Any]) -> ModelCall:
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system)
    messages = tuple(
        {"role": m.get("role", ""), "content": _text(m.get("content"))}
        for m in body.get("messages") or []
    )
    return ModelCall(model=body.get("model", ""), system=system, messages=messages, body=body)


def _invalid(body: Any, version: str) -> str | None:
    if not isinstance(body, dict):
        return "request body must be a JSON object"
    for field in ("model", "max_tokens", "messages"):
        if field not in body:
            return f"{field}: Field required"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        return "max_tokens: Input should be a valid integer greater than 0"
    if not isinstance(body["messages"], list) or not body["messages"]:
        return "messages: at least one message is required"
    if version >= NO_SAMPLING_VERSION:
        for field in ("temperature", "top_p", "top_k"):
            if field in body:
                return f"{field}: Extra inputs are not permitted"
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return ""


def _bearer(value: str | None) -> str | None:
    if value and value.lower().startswith("bearer "):
        return value[7:].strip()
    return None
