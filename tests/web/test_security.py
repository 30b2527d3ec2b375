"""Who may do what, CSRF, login rate limiting, upload names and sizes, the error shape."""

from __future__ import annotations

import time

import httpx
from fastapi.routing import APIRoute

from lastword.web.security import require_admin
from tests.web.conftest import ADMIN, READER, csrf_from, login


def _admin_routes(app) -> list[tuple[str, str]]:
    """Every (method, path) whose handler depends on the administrator check."""

    def needs_admin(dependant) -> bool:
        return any(d.call is require_admin or needs_admin(d) for d in dependant.dependencies)

    def walk(routes):
        for route in routes:
            # Newer FastAPI keeps an included router whole; its routes carry their full path.
            inner = getattr(route, "original_router", None)
            yield from walk(inner.routes) if inner is not None else (route,)

    found = []
    for route in walk(app.routes):
        if isinstance(route, APIRoute) and needs_admin(route.dependant):
            for method in route.methods:
                found.append((method, route.path.replace("{provider}", "brave")))
    return sorted(found)


def test_every_admin_route_refuses_readers_and_anonymous_users(site):
    routes = _admin_routes(site.app)
    assert {
        ("GET", "/admin"),
        ("POST", "/admin/settings"),
        ("POST", "/admin/keys/brave"),
        ("POST", "/corpus/upload"),
        ("POST", "/corpus/remove"),
        ("POST", "/evaluation/run"),
        ("POST", "/api/ingest"),
        ("POST", "/api/eval"),
    } <= set(routes)
    with httpx.Client(base_url=site.base) as anonymous, httpx.Client(base_url=site.base) as reader:
        assert login(reader, *READER).status_code == 303
        token = csrf_from(reader.get("/ask").text)
        for method, path in routes:
            # Anonymous: pages send the browser to the login form, the API answers 401.
            response = anonymous.request(method, path, data={"csrf_token": "x"})
            if path.startswith("/api/"):
                assert response.status_code == 401, (method, path)
                assert response.json()["error"]["kind"] == "unauthenticated"
            else:
                assert response.status_code == 303, (method, path)
                assert response.headers["location"].startswith("/login?next=")
            # A signed-in reader with a valid CSRF token is still refused.
            response = reader.request(
                method, path, data={"csrf_token": token}, headers={"Accept": "application/json"}
            )
            assert response.status_code == 403, (method, path, response.text)
            assert response.json()["error"]["kind"] == "forbidden"
            # And so is a reader's API token.
            response = httpx.request(
                method,
                site.base + path,
                headers={
                    "Authorization": f"Bearer {site.reader_token}",
                    "Accept": "application/json",
                },
            )
            assert response.status_code == 403, (method, path)
    from lastword.websearch.keys import KeyStore

    assert KeyStore(site.state_dir).status()["brave"] is None  # nothing got through


def test_a_form_post_without_the_csrf_token_fails(site):
    from lastword.websearch.keys import KeyStore

    with httpx.Client(base_url=site.base) as admin:
        assert login(admin, *ADMIN).status_code == 303
        for data in ({"key": "abc123"}, {"key": "abc123", "csrf_token": "forged"}):
            response = admin.post("/admin/keys/serper", data=data)
            assert response.status_code == 403
            assert "security token" in response.text
        assert KeyStore(site.state_dir).status()["serper"] is None
        # The login form itself is protected (by the pre-session token).
        response = admin.post("/login", data={"name": ADMIN[0], "password": ADMIN[1]})
        assert response.status_code == 403
        # With the page's token the same post works.
        token = csrf_from(admin.get("/admin").text)
        response = admin.post("/admin/keys/serper", data={"key": "abc123", "csrf_token": token})
        assert response.status_code == 303
        assert KeyStore(site.state_dir).status()["serper"] is not None
        admin.post("/admin/keys/serper", data={"action": "clear", "csrf_token": token})


def test_wrong_passwords_are_rate_limited(site):
    accounts = site.app.state.lastword.accounts
    accounts.add_user("target", "correct-horse-1", "reader")
    attempts = site.app.state.lastword.config.login_attempts
    with httpx.Client(base_url=site.base) as client:
        for _ in range(attempts):
            assert login(client, "target", "wrong-password").status_code == 401
        # Now even the right password is refused until the window passes.
        response = login(client, "target", "correct-horse-1")
        assert response.status_code == 429
        assert int(response.headers["retry-after"]) > 0
        assert "too many failed logins" in response.text
        # Another account from the same address is not locked out by this one.
        assert login(client, *READER).status_code == 303


def _wait_for_job(base: str, token: str, job_id: str, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = httpx.get(f"{base}/api/jobs/{job_id}", headers={"Authorization": f"Bearer {token}"})
        body = job.json()
        if body["state"] in {"done", "failed"}:
            return body
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish")


def test_uploaded_file_names_cannot_escape_the_corpus_folder(site, tmp_path):
    text = "Magnesium supplementation and leg cramps in pregnancy. " * 20
    files = [
        ("files", ("../../escaped-one.txt", text.encode(), "text/plain")),
        ("files", ("..\\..\\escaped-two.txt", text.encode(), "text/plain")),
        ("files", ("/etc/escaped-three.txt", text.encode(), "text/plain")),
    ]
    response = httpx.post(
        f"{site.base}/api/ingest",
        files=files,
        headers={"Authorization": f"Bearer {site.admin_token}"},
    )
    assert response.status_code == 202, response.text
    job = _wait_for_job(site.base, site.admin_token, response.json()["id"])
    assert job["state"] == "done", job
    uploads = site.state_dir / "corpus"
    assert sorted(p.name for p in uploads.iterdir()) == [
        "escaped-one.txt",
        "escaped-three.txt",
        "escaped-two.txt",
    ]
    for parent in (site.state_dir, site.state_dir.parent, site.state_dir.parent.parent):
        assert not list(parent.glob("escaped-*"))
    # A name that is nothing but dots, or of a type lastword cannot read, is refused.
    for name in ("..", "notes.exe"):
        response = httpx.post(
            f"{site.base}/api/ingest",
            files=[("files", (name, b"x", "text/plain"))],
            headers={"Authorization": f"Bearer {site.admin_token}"},
        )
        assert response.status_code == 400
        assert response.json()["error"]["kind"] == "input"


def test_a_huge_upload_is_refused_with_a_clear_message(site):
    auth = {"Authorization": f"Bearer {site.admin_token}"}
    big = b"a" * (3 * 1024 * 1024)  # the site allows 2 MB
    response = httpx.post(
        f"{site.base}/api/ingest", files=[("files", ("big.txt", big, "text/plain"))], headers=auth
    )
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["kind"] == "too_large"
    assert "limit is 2.1 MB" in error["message"]
    # Without a Content-Length (chunked), the limit is enforced while the file is read.
    boundary = "lastwordboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big2.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()

    def chunks():
        yield head
        for _ in range(3):
            yield b"b" * (1024 * 1024)
        yield tail

    response = httpx.post(
        f"{site.base}/api/ingest",
        content=chunks(),
        headers={**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert response.status_code == 413
    assert "over its limit" in response.json()["error"]["message"]
    assert not (site.state_dir / "corpus" / "big2.txt").exists()


def test_the_api_has_one_error_shape_and_an_openapi_description(site):
    auth = {"Authorization": f"Bearer {site.reader_token}"}
    cases = [
        (httpx.get(f"{site.base}/api/nothing-here", headers=auth), 404, "not_found"),
        (httpx.post(f"{site.base}/api/ask", json={"question": "  "}, headers=auth), 400, "input"),
        (httpx.post(f"{site.base}/api/ask", json={"q": 1}, headers=auth), 422, "invalid_request"),
        (httpx.get(f"{site.base}/api/ask", headers=auth), 405, "method_not_allowed"),
        (
            httpx.post(
                f"{site.base}/api/ask",
                json={"question": "x"},
                headers={"Authorization": "Bearer no"},
            ),
            401,
            "unauthenticated",
        ),
    ]
    for response, status, kind in cases:
        assert response.status_code == status, response.text
        assert set(response.json()) == {"error"}
        assert response.json()["error"]["kind"] == kind
        assert response.json()["error"]["message"]
    spec = httpx.get(f"{site.base}/api/openapi.json").json()
    assert {"/api/ask", "/api/inspect", "/api/ingest", "/api/eval", "/api/jobs/{job_id}"} <= set(
        spec["paths"]
    )


def test_a_reader_token_asks_through_the_same_pipeline(site):
    auth = {"Authorization": f"Bearer {site.reader_token}"}
    question = "How much did vitamin D change lumbar spine bone density in older adults?"
    body = httpx.post(
        f"{site.base}/api/ask", json={"question": question}, headers=auth, timeout=120
    ).json()
    pipeline = site.app.state.lastword.pipeline()
    direct = pipeline.ask(question)
    assert body["status"] == direct.status.value == "answered"
    assert body["answer"] == direct.answer
    assert body["citations"] and body["citations"] == list(direct.citations)
    inspected = httpx.post(
        f"{site.base}/api/inspect", json={"question": question, "k": 3}, headers=auth, timeout=120
    ).json()
    assert inspected["status"] == "retrieved" and len(inspected["passages"]) == 3
