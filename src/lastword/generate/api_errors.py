"""Small pieces the HTTP-API generators share when they turn an SDK error into ours."""

from __future__ import annotations

import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the API asked us to wait: ``retry-after-ms``, or ``retry-after`` as seconds or
    an HTTP date. ``None`` when the API did not say or said something unreadable."""
    if not headers:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


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
