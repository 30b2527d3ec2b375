"""Issue 16's web rows, each tried as the attacker did, against a real ``lastword serve``.

The server is the real command in its own process (uvicorn on 127.0.0.1, the real model), so
its peak memory (``VmHWM``) and its temporary files can be watched from outside while an attack
runs, and the client counts what the server let it send. The bytes the application itself read
are counted exactly on the same app served in a thread, by a wrapper around it
(``rchar`` in /proc/PID/io does not count socket reads, so it cannot tell).
"""

from __future__ import annotations

import concurrent.futures
import os
import select
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import ADMIN, READER, build_app, csrf_from, free_port

MB = 1024 * 1024
UPLOAD_LIMIT_MB = 2
REQUEST_LIMIT_KB = 64


@dataclass
class Served:
    base: str
    port: int
    pid: int
    state_dir: Path
    tmp_dir: Path
    reader_token: str
    admin_token: str


def _proc_field(pid: int, name: str, key: str) -> int:
    for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
        if line.startswith(key + ":"):
            value = line.split(":", 1)[1].split()
            return int(value[0]) * (1024 if len(value) > 1 else 1)  # status figures are kB
    raise AssertionError(f"no {key} in /proc/{pid}/{name}")


def peak_rss(pid: int) -> int:
    return _proc_field(pid, "status", "VmHWM")


def dir_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def served(tmp_path_factory, demo_index) -> Iterator[Served]:
    """``lastword serve`` as an operator runs it: a config file, accounts, a proxy trusted."""
    from lastword.web.accounts import Accounts

    root = tmp_path_factory.mktemp("served")
    index = root / "index"
    shutil.copytree(demo_index, index)
    state_dir = root / "state"
    accounts = Accounts(state_dir)
    accounts.add_user(*READER, role="reader")
    accounts.add_user(*ADMIN, role="admin")
    tmp_dir = root / "tmp"
    tmp_dir.mkdir()
    config = root / "lastword.toml"
    config.write_text(
        "[web]\n"
        f"max_upload_mb = {UPLOAD_LIMIT_MB}\n"
        f"max_request_kb = {REQUEST_LIMIT_KB}\n"
        'forwarded_allow_ips = ["127.0.0.1"]\n'
        "login_window_s = 600\n"
    )
    port = free_port()
    env = {**os.environ, "LASTWORD_CONFIG": str(config), "TMPDIR": str(tmp_dir)}
    lastword = Path(sys.executable).with_name("lastword")
    command = [str(lastword), "serve", "--index", str(index), "--port", str(port)]
    command += ["--state-dir", str(state_dir)]
    log = (root / "serve.log").open("wb")
    process = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/login", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError((root / "serve.log").read_text()[-3000:])
        time.sleep(0.3)
    try:
        yield Served(
            base,
            port,
            process.pid,
            state_dir,
            tmp_dir,
            accounts.create_token(READER[0]),
            accounts.create_token(ADMIN[0]),
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


# ---------------------------------------------------------------- bodies: size and who
MULTIPART_HEAD = (
    b'--x\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\n'
    b"Content-Type: text/plain\r\n\r\n"
)


def _send_chunked(
    port: int,
    path: str,
    headers: dict[str, str],
    total: int,
    pause_after_head: float = 0.5,
    prefix: bytes = b"",
) -> tuple[int, int | None, bytes]:
    """POST a chunked body of ``total`` bytes (1 MB chunks) on a raw socket, stopping when the
    server answers or drops the connection. Returns (body bytes sent, status, response head)."""
    sock = socket.create_connection(("127.0.0.1", port))
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nTransfer-Encoding: chunked\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    sock.sendall(head.encode())
    chunk = b"%x\r\n" % MB + b"z" * MB + b"\r\n"
    sent = 0
    pending = b"%x\r\n" % len(prefix) + prefix + b"\r\n" if prefix else b""
    response = b""
    try:
        readable, _, _ = select.select([sock], [], [], pause_after_head)
        while not readable and sent < total:
            pending = pending or chunk
            _, writable, _ = select.select([], [sock], [], 5)
            if not writable:  # the server stopped reading: wait for its answer
                break
            count = sock.send(pending)
            pending, sent = pending[count:], sent + count
            readable, _, _ = select.select([sock], [], [], 0)
        sock.settimeout(10)
        while part := sock.recv(65536):  # the server closes the connection after answering
            response += part
    except (BrokenPipeError, ConnectionResetError, TimeoutError):
        pass
    finally:
        sock.close()
    status = int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/1.1 ") else None
    return sent, status, response


def test_no_upload_body_is_read_before_the_sender_is_known(served):
    before_peak = peak_rss(served.pid)
    multipart = {"Content-Type": "multipart/form-data; boundary=x"}
    cases = [
        ("/api/ingest", {}, 401),  # nobody
        ("/corpus/upload", {"Accept": "text/html"}, 303),  # nobody, a browser: to the login
        ("/api/ingest", {"Authorization": f"Bearer {served.reader_token}"}, 403),  # a reader
        ("/api/ask", {"Content-Type": "application/json"}, 401),  # a huge JSON, nobody
    ]
    for path, headers, status in cases:
        sent, got, response = _send_chunked(
            served.port, path, {**multipart, **headers}, total=200 * MB
        )
        # The answer came right after the headers: not one byte of body was needed.
        assert got == status, (path, response[:300])
        assert sent == 0, (path, sent)
        assert b"connection: close" in response.lower()
    # With a declared Content-Length of 100 MB, the same: refused before reading.
    sock = socket.create_connection(("127.0.0.1", served.port))
    sock.sendall(
        b"POST /corpus/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
        b"boundary=x\r\nContent-Length: 104857600\r\n\r\n"
    )
    sock.settimeout(10)
    assert sock.recv(200).startswith(b"HTTP/1.1 303")
    sock.close()
    grown = peak_rss(served.pid) - before_peak
    print(f"\n200 MB bodies from senders who may not: 0 body bytes sent, peak RSS +{grown} B")
    assert grown < 32 * MB
    assert dir_bytes(served.tmp_dir) == 0


def test_an_admins_chunked_upload_stops_at_the_limit_while_it_is_read(served):
    before_peak = peak_rss(served.pid)
    headers = {
        "Authorization": f"Bearer {served.admin_token}",
        "Content-Type": "multipart/form-data; boundary=x",
    }
    sent, status, response = _send_chunked(
        served.port, "/api/ingest", headers, total=200 * MB, prefix=MULTIPART_HEAD
    )
    assert status == 413, response[:300]
    assert b"over its limit" in response and b"2.1 MB" in response
    grown = peak_rss(served.pid) - before_peak
    print(f"\nadmin's chunked 200 MB upload: 413 after {sent} B sent; peak RSS +{grown} B")
    # What the server read plus what the kernel's socket buffers took: far from 200 MB.
    assert sent < 40 * MB, sent
    assert grown < 32 * MB
    time.sleep(0.5)
    assert dir_bytes(served.tmp_dir) == 0  # nothing spooled is left behind
    uploads = served.state_dir / "corpus"
    assert not uploads.exists() or not any(uploads.iterdir())


def test_a_signed_in_readers_huge_json_is_cut_off_at_the_request_limit(served):
    headers = {
        "Authorization": f"Bearer {served.reader_token}",
        "Content-Type": "application/json",
    }
    sent, status, response = _send_chunked(
        served.port, "/api/ask", headers, total=300 * MB, prefix=b'{"question": "'
    )
    assert status == 413, response[:300]
    assert b"64 KB" in response
    print(f"\nreader's chunked 300 MB JSON: 413 after {sent} B sent")
    assert sent < 40 * MB
    # A declared length over the limit is refused before reading; a small body still works.
    big = httpx.post(
        served.base + "/api/ask",
        content=b'{"question": "' + b"a" * (REQUEST_LIMIT_KB * 1024) + b'"}',
        headers=headers,
    )
    assert big.status_code == 413 and big.json()["error"]["kind"] == "too_large"
    ok = httpx.post(
        served.base + "/api/inspect",
        json={"question": "vitamin D and bone density", "k": 2},
        headers=headers,
        timeout=60,
    )
    assert ok.status_code == 200


class BodyCounter:
    """ASGI wrapper: counts the body bytes the application took from the server."""

    def __init__(self, app) -> None:
        self.app = app
        self.state = app.state
        self.read = 0

    async def __call__(self, scope, receive, send) -> None:
        async def counted():
            message = await receive()
            if message["type"] == "http.request":
                self.read += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@pytest.fixture(scope="module")
def counted_site(tmp_path_factory, demo_index, minilm):
    from tests.web.conftest import add_accounts, start_uvicorn, stop_uvicorn

    app, _ = build_app(
        tmp_path_factory.mktemp("counted"),
        demo_index,
        minilm,
        max_upload_bytes=UPLOAD_LIMIT_MB * MB,
        max_request_bytes=REQUEST_LIMIT_KB * 1024,
    )
    reader_token, admin_token = add_accounts(app)
    counter = BodyCounter(app)
    server, port = start_uvicorn(counter)
    yield counter, port, reader_token, admin_token
    stop_uvicorn(server)


def test_the_application_reads_no_body_it_may_not_and_stops_at_the_limit(counted_site):
    counter, port, reader_token, admin_token = counted_site
    multipart = {"Content-Type": "multipart/form-data; boundary=x"}
    for headers in ({}, {"Authorization": f"Bearer {reader_token}"}):
        counter.read = 0
        sent, status, _ = _send_chunked(port, "/api/ingest", {**multipart, **headers}, 200 * MB)
        assert status in (401, 403) and sent == 0 and counter.read == 0
    counter.read = 0
    admin = {**multipart, "Authorization": f"Bearer {admin_token}"}
    sent, status, _ = _send_chunked(port, "/api/ingest", admin, 200 * MB, prefix=MULTIPART_HEAD)
    print(f"\nadmin's chunked 200 MB upload: the app read {counter.read} B ({sent} B sent)")
    assert status == 413
    # The limit (2 MB), the multipart framing allowance and at most one more 1 MB chunk.
    assert counter.read <= UPLOAD_LIMIT_MB * MB + 64 * 1024 + 2 * MB
    counter.read = 0
    json_headers = {"Content-Type": "application/json", "Authorization": f"Bearer {reader_token}"}
    sent, status, _ = _send_chunked(port, "/api/ask", json_headers, 300 * MB, prefix=b'{"q": "')
    print(f"reader's chunked 300 MB JSON: the app read {counter.read} B ({sent} B sent)")
    assert status == 413 and counter.read <= REQUEST_LIMIT_KB * 1024 + 2 * MB


# ---------------------------------------------------------------- logins
def _login_client(base: str, forwarded_for: str | None = None) -> tuple[httpx.Client, str]:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    client = httpx.Client(base_url=base, headers=headers, timeout=60)
    return client, csrf_from(client.get("/login").text)


def _post_login(client: httpx.Client, token: str, name: str, password: str) -> httpx.Response:
    return client.post("/login", data={"name": name, "password": password, "csrf_token": token})


def test_parallel_logins_cannot_race_past_the_limit(served):
    from lastword.web.accounts import Accounts

    Accounts(served.state_dir).add_user("racer", "racer-password-1", "reader")
    client, token = _login_client(served.base, "10.0.0.40")
    attempts = ["wrong-password"] * 39 + ["racer-password-1"]
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        statuses = list(
            pool.map(lambda pw: _post_login(client, token, "racer", pw).status_code, attempts)
        )
    client.close()
    checked = statuses.count(401) + statuses.count(303)
    print(f"\n40 parallel logins: {checked} password checks, {statuses.count(429)} x 429")
    # The allowance (5) was checked at once; on this busy machine the burst may outlast the
    # first delays (1 s, 2 s...), which admit one try each. Before the fix: 39 checks.
    assert 5 <= checked <= 8, statuses
    assert statuses.count(429) == 40 - checked
    import sqlite3

    with sqlite3.connect(served.state_dir / "accounts.sqlite") as db:
        times = [
            at
            for (at,) in db.execute(
                "SELECT at FROM login_failures WHERE key = 'pair:racer|10.0.0.40' ORDER BY at"
            )
        ]
    # Every password check was recorded (before it ran): the count is the database's.
    assert len(times) == statuses.count(401)


def test_failed_logins_slow_the_attacker_with_growing_delays(served):
    from lastword.web.accounts import Accounts

    Accounts(served.state_dir).add_user("victim", "victim-password-1", "reader")
    attacker, token = _login_client(served.base, "10.0.0.66")
    for _ in range(5):
        assert _post_login(attacker, token, "victim", "guess").status_code == 401
    first = _post_login(attacker, token, "victim", "guess")
    assert first.status_code == 429 and "too many failed logins" in first.text
    assert first.headers["retry-after"] == "1"
    time.sleep(1.1)
    assert _post_login(attacker, token, "victim", "guess").status_code == 401
    second = _post_login(attacker, token, "victim", "guess")
    assert second.status_code == 429 and int(second.headers["retry-after"]) == 2
    # The victim, from their own address, logs in at once: the attacker locked out nobody.
    victim, victim_token = _login_client(served.base, "192.0.2.7")
    assert _post_login(victim, victim_token, "victim", "victim-password-1").status_code == 303
    attacker.close()
    victim.close()


def test_made_up_names_from_one_address_do_not_lock_out_a_real_user_there(served):
    from lastword.web.accounts import Accounts

    Accounts(served.state_dir).add_user("colleague", "colleague-password-1", "reader")
    client, token = _login_client(served.base, "198.51.100.20")  # a shared NAT
    for n in range(20):
        assert _post_login(client, token, f"made-up-{n}", "guess").status_code == 401
    assert _post_login(client, token, "colleague", "colleague-password-1").status_code == 303
    client.close()


def test_an_untrusted_x_forwarded_for_is_ignored(site):
    """The in-thread site trusts no proxy (the default): a header cannot pick the address."""
    site.app.state.lastword.accounts.add_user("spoofed", "spoofed-password-1", "reader")
    with httpx.Client(base_url=site.base) as client:
        token = csrf_from(client.get("/login").text)
        statuses = [
            client.post(
                "/login",
                data={"name": "spoofed", "password": "nope", "csrf_token": token},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(6)
        ]
    assert statuses == [401] * 5 + [429]


# ---------------------------------------------------------------- local mode
@pytest.fixture(scope="module")
def open_site(tmp_path_factory, demo_index, minilm):
    from tests.web.conftest import start_uvicorn, stop_uvicorn

    app, _ = build_app(
        tmp_path_factory.mktemp("open"), demo_index, minilm, open_when_no_accounts=True
    )
    server, port = start_uvicorn(app)
    yield app, f"http://127.0.0.1:{port}"
    stop_uvicorn(server)


def test_local_mode_is_decided_by_the_sockets_not_the_host_header(open_site):
    app, base = open_site
    get = lambda **headers: httpx.get(base + "/admin", headers=headers).status_code  # noqa: E731
    assert get() == 200  # loopback bind, loopback peer: the machine's own user
    assert get(Host="evil.example") == 303  # DNS rebinding
    # A proxy on this host forwarding a remote user, even with a loopback Host: not local.
    assert get(**{"X-Forwarded-For": "203.0.113.9", "Host": "127.0.0.1"}) == 303
    assert get(Forwarded="for=203.0.113.9", Host="localhost") == 303
    # An app not bound to loopback (open_when_no_accounts off) never is, whatever the Host.
    state = app.state.lastword
    state.config = state.config.__class__(
        **{**state.config.__dict__, "open_when_no_accounts": False}
    )
    try:
        assert get(Host="127.0.0.1") == 303
    finally:
        state.config = state.config.__class__(
            **{**state.config.__dict__, "open_when_no_accounts": True}
        )


# ---------------------------------------------------------------- exposure
def test_pages_carry_a_content_security_policy_and_the_docs_ui_is_off(served):
    page = httpx.get(served.base + "/login")
    policy = page.headers["content-security-policy"]
    assert (
        "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("style-src-attr")[0]
    )
    assert "<script>" not in page.text and "javascript:" not in page.text
    assert httpx.get(served.base + "/api/docs").status_code == 404
    assert httpx.get(served.base + "/api/openapi.json").status_code == 200


def test_app_js_never_writes_text_as_html():
    from lastword.web.app import HERE

    script = (HERE / "static" / "app.js").read_text()
    assert "innerHTML" not in script and "outerHTML" not in script
    assert "insertAdjacentHTML" not in script


def test_invalid_unicode_is_one_clear_400(served):
    auth = {"Authorization": f"Bearer {served.reader_token}", "Content-Type": "application/json"}
    for body in (b'{"question": "zinc \\ud800 trial"}', b'{"question": "zinc \xff trial"}'):
        for path in ("/api/ask", "/api/inspect"):
            response = httpx.post(served.base + path, content=body, headers=auth)
            assert response.status_code == 400, (path, body, response.text)
            error = response.json()["error"]
            assert error["kind"] == "input" and "not valid Unicode" in error["message"]


def test_the_web_app_and_the_auth_routes_import_each_other_no_more():
    import ast

    from lastword.web.app import HERE

    tree = ast.parse((HERE / "routes" / "auth.py").read_text())
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert "lastword.web.app" not in imported


def test_an_ipv6_client_counts_as_its_64_for_login_limits():
    from starlette.requests import Request

    from lastword.web.security import client_address

    def request(host: str) -> Request:
        return Request({"type": "http", "client": (host, 1234), "headers": []})

    assert client_address(request("2001:db8:1:2::5")) == "2001:db8:1:2::/64"
    assert client_address(request("2001:db8:1:2:ffff::9")) == "2001:db8:1:2::/64"
    assert client_address(request("203.0.113.4")) == "203.0.113.4"
