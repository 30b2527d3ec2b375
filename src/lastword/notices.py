"""Telling a waiting user what a slow step is doing, without the library printing anything.

The library wraps a step that may take a while in ``slow("loading the embedding model…")``;
if the step is still running after ``after_s`` seconds, the message goes to the listener a
face registered (the CLI prints it on stderr). With no listener nothing is said.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_listener: Callable[[str], None] | None = None


def set_listener(listener: Callable[[str], None] | None) -> None:
    global _listener
    _listener = listener


def say(message: str) -> None:
    listener = _listener
    if listener is not None:
        listener(message)


@contextmanager
def slow(message: str, after_s: float = 0.5) -> Iterator[None]:
    """Says ``message`` only if the block is still running after ``after_s`` seconds."""
    if _listener is None:
        yield
        return
    timer = threading.Timer(after_s, say, args=(message,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
