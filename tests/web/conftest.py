"""A real server per module: the demo index (copied, since tests change it), real accounts,
the real MiniLM model, uvicorn on 127.0.0.1 at a free port."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from lastword.demo import DEMO_OUT_OF_SCOPE
from lastword.settings import ScopeSettings, Settings

READER = ("rita", "reader-password-1")
ADMIN = ("ada", "admin-password-1")


@dataclass
class Site:
    app: object
    base: str
    state_dir: Path
    index: Path
    settings_path: Path
    reader_token: str
    admin_token: str


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_app(root: Path, demo_index: Path, embedder, **config):
    from lastword.web import WebConfig, create_app

    index = root / "index"
    shutil.copytree(demo_index, index)
    settings = Settings(scope=ScopeSettings(out_of_scope=DEMO_OUT_OF_SCOPE))
    state_dir = root / "state"
    settings = settings.model_copy(
        update={"state": settings.state.model_copy(update={"dir": state_dir})}
    )
    web = WebConfig(state_dir=state_dir, settings_path=root / "lastword.toml", **config)
    return create_app(settings, index, web, embedder=embedder), web


def add_accounts(app) -> tuple[str, str]:
    accounts = app.state.lastword.accounts
    accounts.add_user(*READER, role="reader")
    accounts.add_user(*ADMIN, role="admin")
    return accounts.create_token(READER[0]), accounts.create_token(ADMIN[0])


@pytest.fixture(scope="module")
def site(tmp_path_factory, demo_index, minilm) -> Iterator[Site]:
    """The app served by real uvicorn in a thread, with a reader and an admin."""
    root = tmp_path_factory.mktemp("site")
    app, web = build_app(root, demo_index, minilm, max_upload_bytes=2 * 1024 * 1024)
    reader_token, admin_token = add_accounts(app)
    server, port = start_uvicorn(app)
    yield Site(
        app,
        f"http://127.0.0.1:{port}",
        web.state_dir,
        app.state.lastword.index_dir,
        web.settings_path,
        reader_token,
        admin_token,
    )
    stop_uvicorn(server)


def start_uvicorn(app, **options):
    """Serve ``app`` with real uvicorn on 127.0.0.1 in a thread, configured as ``lastword
    serve`` does (no proxy trusted unless ``forwarded_allow_ips`` is given)."""
    import uvicorn

    port = free_port()
    trusted = options.pop("forwarded_allow_ips", None)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
            proxy_headers=bool(trusted),
            forwarded_allow_ips=trusted,
            **options,
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    server.lastword_thread = thread
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    return server, port


def stop_uvicorn(server) -> None:
    server.should_exit = True
    server.lastword_thread.join(timeout=10)


def login(client: httpx.Client, name: str, password: str) -> httpx.Response:
    """Log in like a browser: fetch the form (and its CSRF token), then post it."""
    page = client.get("/login")
    token = csrf_from(page.text)
    return client.post(
        "/login", data={"name": name, "password": password, "csrf_token": token, "next": "/ask"}
    )


def csrf_from(html: str) -> str:
    import re

    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no CSRF token"
    return match.group(1)
