"""How ``lastword serve`` runs uvicorn: one set of options for one process and for N workers.

``uvicorn_options`` turns the ``[web]`` settings into uvicorn's keyword arguments: the trusted
proxies (``forwarded_allow_ips``), the idle timeout (uvicorn's keep-alive) and this module's
HTTP protocol, which adds what uvicorn lacks:

- a **read timeout**: a request's head must arrive within ``read_timeout_s`` of its first byte
  (a client sending one header line every few seconds is cut off), and a body may pause no
  longer than that between two reads (time the server itself stopped reading does not count);
- a **connection cap**: past ``max_connections`` open connections in this process, a new one
  is answered 503 and closed at once.

The limits reach the protocol through ``configure`` (called by ``serve`` in its own process,
and by each worker's app factory in the workers).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

PROTOCOL = "lastword.web.serving:GuardedH11Protocol"


@dataclass(frozen=True)
class ConnectionLimits:
    read_timeout_s: float = 15.0
    max_connections: int = 200


_limits = ConnectionLimits()


def configure(limits: ConnectionLimits) -> None:
    """Set the limits every connection of this process gets from now on."""
    global _limits
    _limits = limits


def uvicorn_options(web: Any) -> dict[str, Any]:
    """uvicorn's options from the ``[web]`` settings (a ``WebSettings``), the same for one
    process and for ``--workers N``; also applies the connection limits in this process."""
    configure(ConnectionLimits(web.read_timeout_s, web.max_connections))
    trusted = list(web.forwarded_allow_ips)
    return {
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or None,
        "timeout_keep_alive": web.idle_timeout_s,
        "http": PROTOCOL,
    }


_REFUSED = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)
_BUSY = b'{"error": {"kind": "unavailable", "message": "too many open connections"}}'
_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
)
_SLOW = b'{"error": {"kind": "timeout", "message": "the request was sent too slowly"}}'


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a read timeout and a cap on open connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = _limits
        self._read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self._limits.max_connections:
            self.logger.warning("too many open connections; refusing one")
            transport.write(_REFUSED % (len(_BUSY), _BUSY))
            transport.close()
            return
        self._arm()  # the first request's head is due from now

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        idle = self.conn.their_state is h11.IDLE
        if idle and self._read_timer is None:
            self._arm()  # a new request's head begins: its deadline runs from here
        super().data_received(data)
        if self.conn.their_state is h11.SEND_BODY:
            self._arm()  # a body: the next piece is due within the timeout
        elif self.conn.their_state is not h11.IDLE:
            self._disarm()  # the request is in: the application's time is not limited here

    def _arm(self) -> None:
        self._disarm()
        self._read_timer = self.loop.call_later(self._limits.read_timeout_s, self._timed_out)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.flow is not None and self.flow.read_paused:
            self._arm()  # the server stopped reading (the application is busy): not the client
            return
        self.logger.warning("a request was sent too slowly; closing its connection")
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(_TIMEOUT % (len(_SLOW), _SLOW))
        self.transport.close()
