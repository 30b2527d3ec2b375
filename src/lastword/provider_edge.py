"""The provider edge, once: API keys from the environment, secrets kept out of messages, and
SDK/HTTP errors turned into ours.

Every remote model or API (the generators, the embedders, the search providers) goes through
these, so a key is read, a failure is classified and a secret is redacted the same way
everywhere. No SDK is imported here: the SDK module is passed in by the caller, which imports
it only when chosen.
"""

from __future__ import annotations

import os
import re
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

#: Sent as the key to an OpenAI-compatible base URL that needs none (Ollama, vLLM...): the SDK
#: refuses to start without one.
PLACEHOLDER_KEY = "no-key-needed"
#: Shown where a secret was.
REDACTED = "***"
#: Key-shaped words an API may echo, masked or not ("sk-proj-****abcd").
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]+")
#: Longest provider detail kept in a message.
MAX_DETAIL = 500


def api_key(
    variable: str,
    provider: str,
    *,
    given: str | None = None,
    keyless_url: str | None = None,
    hint: str = "",
) -> str:
    """The key passed in, else ``$variable``; ``PLACEHOLDER_KEY`` for a ``keyless_url`` (a
    local server of the same wire format); else ``ProviderAuthError`` saying what to set."""
    key = (given if given is not None else os.environ.get(variable, "")).strip()
    if key:
        return key
    if keyless_url is not None:
        return PLACEHOLDER_KEY
    raise ProviderAuthError(f"no API key: set the {variable} environment variable{hint}", provider)


def redact(text: str, secret: str | None) -> str:
    """``text`` without the secret, any 8+ character piece of it an API echoes (a masked key
    shows its head and tail), or anything shaped like an OpenAI key."""
    if secret and secret != PLACEHOLDER_KEY:
        text = text.replace(secret, REDACTED)
    text = _KEY_LIKE.sub(REDACTED, text)  # before the pieces: a masked key goes whole
    if secret and secret != PLACEHOLDER_KEY and len(secret) >= 16:
        for piece in (secret[:8], secret[-8:]):
            text = text.replace(piece, REDACTED)
    return text


def error_for_status(
    status: int,
    detail: str,
    *,
    provider: str,
    key_variable: str,
    retry_after: float | None = None,
    keyless_url: str | None = None,
) -> ProviderError:
    """Our error for an HTTP status from a provider; ``detail`` must be redacted already."""
    detail = detail[:MAX_DETAIL]
    if status in (401, 403):
        asked = (
            f"{keyless_url} wants a key: set {key_variable}"
            if keyless_url
            else f"the key in {key_variable} was rejected"
        )
        return ProviderAuthError(f"{asked} (HTTP {status}): {detail}", provider)
    if status == 429:
        return ProviderRateLimited(
            f"rate limited (HTTP 429): {detail}", provider, retry_after=retry_after
        )
    if status >= 500:  # includes Anthropic's 529 overloaded
        return ProviderUnavailable(f"server error (HTTP {status}): {detail}", provider)
    return ProviderError(f"request rejected (HTTP {status}): {detail}", provider)


def wrap_sdk_error(
    sdk: ModuleType,
    exc: Exception,
    *,
    provider: str,
    key: str,
    key_variable: str,
    timeout_s: float,
    where: str,
    keyless_url: str | None = None,
) -> ProviderError:
    """Our error for an ``anthropic`` or ``openai`` SDK error.

    Both SDKs are generated from one template and raise the same tree (``APITimeoutError`` <
    ``APIConnectionError``, ``APIStatusError`` with ``status_code``), so one mapping serves both.
    """
    if isinstance(exc, sdk.APITimeoutError):  # an APIConnectionError: tested first
        return ProviderTimeout(f"no answer within {timeout_s:g} s", provider)
    if isinstance(exc, sdk.APIConnectionError):
        return ProviderUnavailable(f"cannot reach {where}", provider)
    if not isinstance(exc, sdk.APIStatusError):
        return ProviderError(redact(str(exc), key)[:MAX_DETAIL], provider)
    return error_for_status(
        exc.status_code,
        redact(error_message(exc), key),
        provider=provider,
        key_variable=key_variable,
        retry_after=retry_after_seconds(exc.response.headers),
        keyless_url=keyless_url if key == PLACEHOLDER_KEY else None,
    )


def error_message(exc: Any) -> str:
    """``error.message`` of the API's error body (Anthropic nests it, OpenAI too, some
    compatible servers put ``message`` at the top), else the SDK's summary."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", "") or exc)
