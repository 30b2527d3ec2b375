"""A local server that speaks OpenAI's Chat Completions API (``POST /v1/chat/completions``).

Point the official SDK at it with ``openai.OpenAI(base_url=api.base_url, api_key=...)`` (or
``GenerateSettings(openai_url=api.base_url)``). A scripted model (see ``scripted_model``)
writes the text; queue one of the replies below to force an outcome::

    api.queue(rate_limited(retry_after="7"))
    api.queue(completion_reply(None, refusal="I can't help with that."))
    api.queue(completion_reply("...", finish_reason="content_filter"))

Errors carry OpenAI's body ``{"error": {"message", "type", "param", "code"}}``. Like the real
API, a wrong key's 401 quotes the key masked (``sk-***...abcd``).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from tests.servers.base import LocalServer, Reply, Request
from tests.servers.scripted_model import ModelCall, ScriptedModel, estimate_tokens, quotes_passages

COMPLETIONS_PATH = "/v1/chat/completions"
DEFAULT_MODEL_NAME = "gpt-4o-mini-2024-07-18"
_ids = itertools.count(1)


def error_reply(
    status: int,
    message: str,
    error_type: str,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    body = {"error": {"message": message, "type": error_type, "param": param, "code": code}}
    return Reply(status, body, headers=dict(headers or {}))


def rate_limited(retry_after: str = "7") -> Reply:
    return error_reply(
        429,
        "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): "
        "Limit 3, Used 3, Requested 1. Please try again in 7s.",
        "requests",
        "rate_limit_exceeded",
        headers={"retry-after": retry_after},
    )


def server_error() -> Reply:
    return error_reply(
        500,
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
    )


def overloaded() -> Reply:
    return error_reply(
        503, "The engine is currently overloaded, please try again later", "server_error"
    )


def invalid_api_key(key: str) -> Reply:
    masked = f"{key[:3]}{'*' * max(len(key) - 7, 0)}{key[-4:]}" if len(key) > 7 else "***"
    return error_reply(
        401,
        f"Incorrect API key provided: {masked}. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key",
    )


def completion_reply(
    text: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    model: str = DEFAULT_MODEL_NAME,
    prompt_tokens: int = 100,
    with_usage: bool = True,
    delay_s: float = 0.0,
) -> Reply:
    """A complete ``chat.completion`` object."""
    completion_tokens = estimate_tokens(text or refusal or "")
    body: dict[str, Any] = {
        "id": f"chatcmpl-{next(_ids):020d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": refusal},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "system_fingerprint": "fp_local",
    }
    if with_usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(200, body, delay_s=delay_s)


class OpenAIChatAPI(LocalServer):
    """``model`` writes every answer not overridden by a queued reply; ``api_key`` (when set)
    is the only key accepted."""

    def __init__(
        self,
        model: ScriptedModel | None = None,
        *,
        api_key: str | None = None,
        model_name: str = DEFAULT_MODEL_NAME,
    ) -> None:
        super().__init__({("POST", COMPLETIONS_PATH): self._completions})
        self.model: ScriptedModel = model or quotes_passages()
        self.api_key = api_key
        self.model_name = model_name

    @property
    def base_url(self) -> str:
        """What the SDK's ``base_url`` should be (it appends ``/chat/completions``)."""
        return f"{self.url}/v1"

    @property
    def calls(self) -> list[ModelCall]:
        return [
            to_model_call(r.json()) for r in self.requests if r.path == COMPLETIONS_PATH and r.body
        ]

    def _completions(self, request: Request) -> Reply:
        authorization = request.header("authorization") or ""
        key = authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""
        if not key:
            return error_reply(
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                "invalid_request_error",
            )
        if self.api_key is not None and key != self.api_key:
            return invalid_api_key(key)
        try:
            body = request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return error_reply(
                400, "We could not parse the JSON body of your request.", "invalid_request_error"
            )
        if not isinstance(body, dict):
            return error_reply(400, "The body must be a JSON object.", "invalid_request_error")
        for field in ("model", "messages"):
            if field not in body:
                return error_reply(
                    400,
                    f"Missing required parameter: '{field}'.",
                    "invalid_request_error",
                    "missing_required_parameter",
                    field,
                )
        if "max_tokens" in body and "max_completion_tokens" in body:
            return error_reply(
                400,
                "max_tokens and max_completion_tokens cannot both be set.",
                "invalid_request_error",
                "invalid_value",
                "max_tokens",
            )
        call = to_model_call(body)
        text = self.model(call)
        prompt_tokens = estimate_tokens("".join(m["content"] for m in call.messages))
        return completion_reply(
            text, model=body.get("model") or self.model_name, prompt_tokens=prompt_tokens
        )


def to_model_call(body: dict[str, Any]) -> ModelCall:
    messages = tuple(
        {"role": m.get("role", ""), "content": _text(m.get("content"))}
        for m in body.get("messages") or []
    )
    system = "".join(m["content"] for m in messages if m["role"] in ("system", "developer"))
    conversation = tuple(m for m in messages if m["role"] not in ("system", "developer"))
    return ModelCall(model=body.get("model", ""), system=system, messages=conversation, body=body)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if p.get("type") == "text")
    return ""
