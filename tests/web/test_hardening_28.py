"""Issue 28's server rows, each tried as the attacker did against a live server on 127.0.0.1:
the real ``lastword serve`` in its own process (one process, and ``--workers 2``), or the app
served by real uvicorn in a thread where the test must reach inside (a damaged index, jobs)."""

from __future__ import annotations

import json
import logging
import os
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

from lastword.web.reading import file_key
from tests.ingest.crafted_pdfs import dense_cells, flate_bomb
from tests.ingest.test_symlinks import TEXT
from tests.web.conftest import ADMIN, READER, csrf_from, free_port, start_uvicorn, stop_uvicorn

READ_TIMEOUT_S = 2
MAX_CONNECTIONS = 16


@dataclass
class Served:
    base: str
    port: int
    root: Path
    state_dir: Path
    log: Path
    reader_token: str
    admin_token: str


def _serve(root: Path, index: Path, config: str, *extra: str) -> tuple[subprocess.Popen, Served]:
    """``lastword serve`` as an operator runs it, with ``config`` as its settings file."""
    from lastword.web.accounts import Accounts

    state_dir = root / "state"
    accounts = Accounts(state_dir)
    accounts.add_user(*READER, role="reader")
    accounts.add_user(*ADMIN, role="admin")
    (root / "lastword.toml").write_text(config)
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LASTWORD_")},
        "LASTWORD_CONFIG": str(root / "lastword.toml"),
        "PYTHONPATH": str(Path(__import__("lastword").__file__).resolve().parents[1]),
    }
    command = [sys.executable, "-c", "from lastword.cli import main; main()", "serve"]
    command += ["--index", str(index), "--port", str(port), "--state-dir", str(state_dir)]
    command += list(extra)
    log = root / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while True:
        try:
            if httpx.get(base + "/login", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(log.read_text()[-3000:])
        time.sleep(0.3)
    tokens = accounts.create_token(READER[0]), accounts.create_token(ADMIN[0])
    return process, Served(base, port, root, state_dir, log, *tokens)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


PROXY_CONFIG = '[web]\nforwarded_allow_ips = ["127.0.0.1"]\n'
LIMITS_CONFIG = (
    f"read_timeout_s = {READ_TIMEOUT_S}\nidle_timeout_s = 2\nmax_connections = {MAX_CONNECTIONS}\n"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory, demo_index, minilm) -> Iterator[Served]:
    """One server process over the demo index plus a folder of papers ingested from disk."""
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    root = tmp_path_factory.mktemp("served28")
    index = root / "index"
    shutil.copytree(demo_index, index)
    papers = root / "papers"
    papers.mkdir()
    (papers / "zinc-notes.md").write_text(TEXT, encoding="utf-8")
    ingest_paths([papers], index, minilm, IngestSettings())
    process, site = _serve(root, index, PROXY_CONFIG + LIMITS_CONFIG)
    try:
        yield site
    finally:
        _stop(process)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---------------------------------------------------------------- row 4: a swapped symlink
def test_a_file_swapped_for_a_link_to_a_private_file_is_never_served(served):
    papers = served.root / "papers"
    ingested = papers / "zinc-notes.md"
    url = f"{served.base}/documents/{file_key(content_hash(ingested))}"
    first = httpx.get(url, headers=_bearer(served.reader_token))
    assert first.status_code == 200 and first.text == TEXT
    secret = served.root / "server-secret.txt"
    secret.write_text("DB_PASSWORD=hunter2\n")
    secret.chmod(0o600)
    original = ingested.read_bytes()
    try:
        ingested.unlink()
        ingested.symlink_to(secret)  # the attacker's swap
        asks_json = {**_bearer(served.reader_token), "Accept": "application/json"}
        swapped = httpx.get(url, headers=asks_json)
        assert swapped.status_code == 404, swapped.text  # before: the secret, 200
        assert "hunter2" not in swapped.text
        assert swapped.json()["error"]["kind"] == "not_found"
        # A link inside the folder, or the file edited since: its bytes are not the document's.
        ingested.unlink()
        (papers / "other.md").write_text("Something else entirely.\n")
        ingested.symlink_to(papers / "other.md")
        assert httpx.get(url, headers=_bearer(served.reader_token)).status_code == 404
        ingested.unlink()
        ingested.write_bytes(original + b"\nEdited since.\n")
        assert httpx.get(url, headers=_bearer(served.reader_token)).status_code == 404
        # A FIFO in its place neither hangs the server nor is served.
        ingested.unlink()
        os.mkfifo(ingested)
        fifo = httpx.get(url, headers=_bearer(served.reader_token), timeout=10)
        assert fifo.status_code == 404
    finally:
        ingested.unlink(missing_ok=True)
        ingested.write_bytes(original)
    assert httpx.get(url, headers=_bearer(served.reader_token)).text == TEXT


def content_hash(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- row 7: many addresses
def _client_from(base: str, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=base, transport=transport, timeout=60)


def _login(client: httpx.Client, name: str, password: str) -> httpx.Response:
    token = csrf_from(client.get("/login").text)
    return client.post("/login", data={"name": name, "password": password, "csrf_token": token})


def test_failures_from_several_addresses_never_stop_the_right_password_from_another(served):
    from lastword.web.accounts import Accounts

    Accounts(served.state_dir).add_user("victim28", "victim-password-28", "reader")
    attackers = [_client_from(served.base, f"127.0.0.{n}") for n in range(2, 6)]
    try:
        for attacker in attackers:  # 5 each: 20, the name's allowance from anywhere
            for _ in range(5):
                assert _login(attacker, "victim28", "guess").status_code == 401
        # Each attacking address is held back now ...
        assert _login(attackers[0], "victim28", "guess").status_code == 429
        # ... but the victim, from an address of their own, logs in at once (before: 429).
        with _client_from(served.base, "127.0.0.1") as victim:
            assert _login(victim, "victim28", "victim-password-28").status_code == 303
        # One more try per delay from every attacker does not lock the victim out either.
        time.sleep(1.1)
        for attacker in attackers:
            assert _login(attacker, "victim28", "guess").status_code in (401, 429)
        with _client_from(served.base, "127.0.0.1") as victim:
            assert _login(victim, "victim28", "victim-password-28").status_code == 303
        # A fresh address gets one try past the name's allowance; its failure holds it back.
        with _client_from(served.base, "127.0.0.9") as stranger:
            assert _login(stranger, "victim28", "guess").status_code == 401
            assert _login(stranger, "victim28", "guess").status_code == 429
    finally:
        for attacker in attackers:
            attacker.close()


# ---------------------------------------------------------------- row 16: slow and idle clients
def _closed_within(sock: socket.socket, seconds: float, trickle: float = 0.0) -> float | None:
    """Seconds until the server closed ``sock`` (sending a header line every ``trickle`` s
    meanwhile), or None if it was still open after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(0.2)
    next_line = started + trickle if trickle else float("inf")
    while time.monotonic() - started < seconds:
        try:
            data = sock.recv(4096)
            if not data or b"408" in data:
                return time.monotonic() - started
        except TimeoutError:
            pass
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - started
        if time.monotonic() >= next_line:
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - started
            next_line += trickle
    return None


def test_slow_headers_are_cut_off_at_the_read_timeout(served):
    sockets = []
    for _ in range(10):
        sock = socket.create_connection(("127.0.0.1", served.port))
        sock.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sockets.append(sock)
    try:
        closed = [_closed_within(sock, 3 * READ_TIMEOUT_S + 4, trickle=0.5) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
    print(f"\n10 slow clients closed after {[round(c, 1) if c else None for c in closed]} s")
    assert all(c is not None and c < 2 * READ_TIMEOUT_S + 2 for c in closed), closed
    assert httpx.get(served.base + "/login").status_code == 200


def test_idle_connections_close_and_the_connection_cap_holds(served):
    # An idle keep-alive connection closes after the idle timeout.
    sock = socket.create_connection(("127.0.0.1", served.port))
    sock.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    sock.settimeout(10)
    assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    idle = _closed_within(sock, 10)
    sock.close()
    assert idle is not None and idle < 5, idle
    # Past the cap, a new connection is answered 503 at once and closed.
    held = [socket.create_connection(("127.0.0.1", served.port)) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.3)
        extra = socket.create_connection(("127.0.0.1", served.port))
        extra.settimeout(5)
        answer = extra.recv(4096)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 503") and b"too many open connections" in answer
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)
    assert httpx.get(served.base + "/login").status_code == 200


# ---------------------------------------------------------------- row 8: --workers N behind a proxy
@pytest.fixture(scope="module")
def workers(tmp_path_factory, demo_index) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("workers28")
    index = root / "index"
    shutil.copytree(demo_index, index)
    process, site = _serve(root, index, PROXY_CONFIG + LIMITS_CONFIG, "--workers", "2")
    try:
        yield site
    finally:
        _stop(process)


def test_workers_take_the_client_and_scheme_from_the_trusted_proxy(workers):
    from lastword.web.accounts import Accounts

    Accounts(workers.state_dir).add_user("behind", "behind-password-1", "reader")

    def via_proxy(client_ip: str) -> httpx.Client:
        headers = {"X-Forwarded-For": client_ip, "X-Forwarded-Proto": "https"}
        return httpx.Client(base_url=workers.base, headers=headers, timeout=60)

    def login(client: httpx.Client, password: str) -> httpx.Response:
        # The proxy spoke https to the browser: the cookies are Secure, which httpx keeps for
        # https only, so they are sent back by hand here, as the browser would through it.
        form = client.get("/login")
        cookies = "; ".join(c.split(";", 1)[0] for c in form.headers.get_list("set-cookie"))
        data = {"name": "behind", "password": password, "csrf_token": csrf_from(form.text)}
        return client.post("/login", data=data, headers={"Cookie": cookies})

    with via_proxy("203.0.113.5") as stranger:
        first = stranger.get("/login").headers["set-cookie"]
        assert "secure" in first.lower(), first  # before: no Secure cookie behind the proxy
        for _ in range(5):
            assert login(stranger, "guess").status_code == 401
        assert login(stranger, "guess").status_code == 429
    with via_proxy("198.51.100.7") as member:  # before: the proxy's one allowance, 429
        answer = login(member, "behind-password-1")
        assert answer.status_code == 303, answer.text
        cookie = answer.headers["set-cookie"]
        assert "secure" in cookie.lower(), cookie  # the proxy said https
    # The read timeout reaches every worker too.
    sock = socket.create_connection(("127.0.0.1", workers.port))
    sock.sendall(b"GET /login HTTP/1.1\r\n")
    closed = _closed_within(sock, 3 * READ_TIMEOUT_S + 4, trickle=0.5)
    sock.close()
    assert closed is not None and closed < 2 * READ_TIMEOUT_S + 2, closed


# ---------------------------------------------------------------- in-thread apps
def _app(root: Path, demo_index: Path, embedder, **ingest):
    from lastword.demo import DEMO_OUT_OF_SCOPE
    from lastword.settings import IngestSettings, ScopeSettings, Settings, StateSettings
    from lastword.web import WebConfig, create_app

    index = root / "index"
    shutil.copytree(demo_index, index)
    state_dir = root / "state"
    settings = Settings(
        scope=ScopeSettings(out_of_scope=DEMO_OUT_OF_SCOPE),
        ingest=IngestSettings(**ingest),
        state=StateSettings(dir=state_dir),
    )
    web = WebConfig(state_dir=state_dir, settings_path=root / "lastword.toml")
    app = create_app(settings, index, web, embedder=embedder)
    accounts = app.state.lastword.accounts
    accounts.add_user(*READER, role="reader")
    accounts.add_user(*ADMIN, role="admin")
    tokens = accounts.create_token(READER[0]), accounts.create_token(ADMIN[0])
    return app, index, tokens


# ---------------------------------------------------------------- row 10: a damaged index
def test_a_damaged_index_under_a_running_server_is_503_with_the_clis_message(
    tmp_path, demo_index, minilm, caplog
):
    app, index, (reader, _) = _app(tmp_path, demo_index, minilm)
    server, port = start_uvicorn(app)
    base = f"http://127.0.0.1:{port}"
    try:
        database = index / "index.sqlite"
        size = database.stat().st_size
        with open(database, "r+b") as handle:  # every page after the first overwritten
            handle.seek(4096)
            handle.write(os.urandom(size - 4096))
        caplog.set_level(logging.INFO)
        for path, body in (
            ("/api/ask", {"question": "Does vitamin D improve bone density?"}),
            ("/api/inspect", {"question": "zinc and the common cold", "k": 3}),
        ):
            answer = httpx.post(base + path, json=body, headers=_bearer(reader), timeout=60)
            assert answer.status_code == 503, (path, answer.text)  # before: 500
            error = answer.json()["error"]
            assert error["kind"] == "index"
            assert "index.sqlite) is damaged" in error["message"]
            assert "lastword index check" in error["message"]
        page = httpx.get(
            base + "/ask", params={"q": "vitamin D and falls"}, headers=_bearer(reader)
        )
        assert page.status_code == 503 and "is damaged" in page.text
    finally:
        stop_uvicorn(server)
    assert not [r for r in caplog.records if r.exc_info], "a traceback reached the log"


# ---------------------------------------------------------------- row 5: uploads and cancelling
def _wait(base: str, token: str, job_id: str, until: tuple[str, ...], seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        job = httpx.get(f"{base}/api/jobs/{job_id}", headers=_bearer(token)).json()
        if job["state"] in until or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


def _upload(base: str, token: str, files: list[tuple[str, bytes]]) -> dict:
    parts = [("files", (name, data)) for name, data in files]
    answer = httpx.post(base + "/api/ingest", files=parts, headers=_bearer(token), timeout=60)
    assert answer.status_code == 202, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def jobs_site(tmp_path_factory, demo_index, minilm):
    app, index, tokens = _app(
        tmp_path_factory.mktemp("jobs28"), demo_index, minilm, commit_every=32
    )
    server, port = start_uvicorn(app)
    yield f"http://127.0.0.1:{port}", index, tokens
    stop_uvicorn(server)


def test_crafted_uploads_finish_quickly_and_the_bomb_is_one_failure(jobs_site):
    base, _, (_, admin) = jobs_site
    started = time.monotonic()
    job = _upload(
        base,
        admin,
        [
            ("dense.pdf", dense_cells(20_000)),
            ("bomb.pdf", flate_bomb(40)),
            ("notes.txt", TEXT.encode()),
        ],
    )
    job = _wait(base, admin, job["id"], ("done", "failed"), 180)
    seconds = time.monotonic() - started
    print(f"\nupload of a 20,000-character page and a Flate bomb: {seconds:.1f} s")
    assert job["state"] == "done", job
    assert sorted(job["result"]["added"]) == ["dense.pdf", "notes.txt"]
    (failure,) = job["result"]["failed"]
    assert failure["file"] == "bomb.pdf" and "max_decoded_mb" in failure["message"]
    assert seconds < 120


def _many_records(count: int) -> bytes:
    lines = []
    for n in range(count):
        paragraphs = [f"Record {n} paragraph {p}. {TEXT}" for p in range(4)]
        lines.append(json.dumps({"id": f"bulk-{n}", "text": "\n\n".join(paragraphs)}))
    return ("\n".join(lines) + "\n").encode()


def test_an_admin_cancels_a_running_ingest_and_the_index_is_free_again(jobs_site):
    base, index, (reader, admin) = jobs_site
    running = _upload(base, admin, [("bulk.jsonl", _many_records(400))])
    queued = _upload(
        base, admin, [("later.txt", b"Queued behind the bulk upload. " + TEXT.encode())]
    )
    deadline = time.monotonic() + 120
    while True:  # the first batches are committed
        job = httpx.get(f"{base}/api/jobs/{running['id']}", headers=_bearer(admin)).json()
        if job["done"] >= 64 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert job["state"] == "running", job
    # A reader may not cancel; an admin may, running or queued.
    refused = httpx.post(f"{base}/api/jobs/{running['id']}/cancel", headers=_bearer(reader))
    assert refused.status_code == 403
    answer = httpx.post(f"{base}/api/jobs/{queued['id']}/cancel", headers=_bearer(admin))
    assert answer.status_code == 200 and answer.json()["state"] == "cancelled"
    asked = time.monotonic()
    answer = httpx.post(f"{base}/api/jobs/{running['id']}/cancel", headers=_bearer(admin))
    assert answer.status_code == 200 and answer.json()["cancelled_by"] == ADMIN[0]
    stopped = _wait(base, admin, running["id"], ("cancelled", "done", "failed"), 60)
    print(
        f"\ncancelled after {stopped['done']} of {stopped['total']} passages, "
        f"{time.monotonic() - asked:.1f} s after the request"
    )
    assert stopped["state"] == "cancelled", stopped
    assert "cancelled by ada" in stopped["error"] and stopped["done"] < stopped["total"]
    later = _wait(base, admin, queued["id"], ("cancelled", "done", "failed", "running"), 5)
    assert later["state"] == "cancelled" and later["finished_at"] is not None
    # What was committed before the cancel stays; the write lock is free for the next ingest.
    import sqlite3

    with sqlite3.connect(index / "index.sqlite") as db:
        (kept,) = db.execute("SELECT COUNT(*) FROM documents WHERE doc_id LIKE 'bulk-%'").fetchone()
    assert 0 < kept < 400
    after = _upload(base, admin, [("after.txt", b"After the cancel. " + TEXT.encode())])
    assert _wait(base, admin, after["id"], ("done", "failed"), 120)["state"] == "done"
    # The Corpus page offers the button to admins only while a job can still be stopped.
    with httpx.Client(base_url=base, headers=_bearer(admin)) as client:
        page = client.get("/corpus").text
    assert f'action="/corpus/jobs/{running["id"]}/cancel"' not in page
