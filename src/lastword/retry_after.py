"""How long an API asked us to wait, from its response headers.

Shared by every provider that retries or reports a 429 (embedders, generators).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any


def _header(headers: Mapping[str, Any], name: str) -> Any:
    # httpx headers ignore case; a plain dict from an SDK may not.
    value = headers.get(name)
    return value if value is not None else headers.get(name.title())


def retry_after_seconds(headers: Mapping[str, Any] | None) -> float | None:
    """Seconds the API asked us to wait: ``retry-after-ms``, or ``retry-after`` as seconds or
    an HTTP date. ``None`` when the API did not say or said something unreadable."""
    if not headers:
        return None
    milliseconds = _header(headers, "retry-after-ms")
    if milliseconds is not None:
        try:
            return max(float(milliseconds) / 1000.0, 0.0)
        except ValueError:
            pass
    value = _header(headers, "retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)
