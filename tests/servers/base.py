"""A threaded HTTP server on 127.0.0.1 that records requests and serves scripted replies."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; str/bytes sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # sleep before answering (timeouts)

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, bytes):
            data = self.body
        elif isinstance(self.body, str):
            data = self.body.encode("utf-8")
            headers.setdefault("content-type", "text/plain; charset=utf-8")
        else:
            data = json.dumps(self.body).encode("utf-8")
            headers.setdefault("content-type", "application/json")
        return data, headers


Handler = Callable[[Request], Reply]


class LocalServer:
    """``routes`` maps ``(METHOD, path)`` to a handler; ``script`` queues replies that win first.

    Use as a context manager; ``url`` is ``http://127.0.0.1:PORT``.
    """

    def __init__(self, routes: dict[tuple[str, str], Handler]) -> None:
        self.routes = routes
        self.requests: list[Request] = []
        self.script: deque[Reply] = deque()
        self._lock = threading.Lock()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                request = Request(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k: v for k, v in self.headers.items()},
                    body=body,
                )
                reply = server._reply_for(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data, headers = reply.encoded()
                try:
                    self.send_response(reply.status)
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def _reply_for(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.popleft()
        handler = self.routes.get((request.method, request.path))
        if handler is None:
            return Reply(404, {"error": f"no route {request.method} {request.path}"})
        return handler(request)

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.script.clear()

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
