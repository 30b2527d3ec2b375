"""Turning an SDK error into ours, shared by the HTTP-API generators.

The ``anthropic`` and ``openai`` SDKs are generated from one template and raise the same tree
(``APITimeoutError`` < ``APIConnectionError``, ``APIStatusError`` with ``status_code``), so one
mapping serves both; each passes its own SDK module.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from lastword.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderTimeout,
    ProviderUnavailable,
)
from lastword.retry_after import retry_after_seconds


def wrap_sdk_error(
    sdk: ModuleType,
    exc: Exception,
    *,
    provider: str,
    key: str,
    key_variable: str,
    timeout_s: float,
    where: str,
) -> ProviderError:
    # APITimeoutError is an APIConnectionError, so it is tested first.
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderTimeout(f"no answer within {timeout_s:g} s", provider)
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderUnavailable(f"cannot reach {where}", provider)
    if not isinstance(exc, sdk.APIStatusError):
        return ProviderError(redact(str(exc), key), provider)
    status = exc.status_code
    detail = redact(error_message(exc), key)
    if status in (401, 403):
        # The API's own text may quote (part of) the key; say only what to check.
        return ProviderAuthError(
            f"the API rejected the key in {key_variable} (HTTP {status})", provider
        )
    if status == 429:
        return ProviderRateLimited(
            f"rate limited (HTTP 429): {detail}",
            provider,
            retry_after=retry_after_seconds(exc.response.headers),
        )
    if status >= 500:  # includes Anthropic's 529 overloaded
        return ProviderUnavailable(f"HTTP {status}: {detail}", provider)
    return ProviderError(f"HTTP {status}: {detail}", provider)


def error_message(exc: Any) -> str:
    """``error.message`` of the API's error body (Anthropic nests it, OpenAI too, some
    compatible servers put ``message`` at the top), else the SDK's summary."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", "") or exc)


def redact(text: str, secret: str | None) -> str:
    """``text`` with the secret, and any 8+ character piece of it an API echoes, removed."""
    if not secret:
        return text
    text = text.replace(secret, "[redacted]")
    # Some APIs echo a masked key ("sk-abc1***wxyz"): drop its visible head and tail too.
    for piece in (secret[:8], secret[-8:]):
        if len(secret) >= 16 and piece in text:
            text = text.replace(piece, "[redacted]")
    return text
