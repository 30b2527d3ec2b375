"""A real Synapse homeserver on 127.0.0.1 for the tests, and a member's client for it.

Synapse (``matrix-synapse`` from PyPI) lives in its own virtualenv, ``.venv-synapse`` beside
``.venv`` (``scripts/setup`` makes it), so its pinned dependencies cannot touch lastword's.
``LASTWORD_SYNAPSE_VENV`` points elsewhere. The homeserver uses SQLite, a config made by
``--generate-config`` with the rate limits opened up for tests, and accounts made by
``register_new_matrix_user`` with the shared secret.

``Member`` speaks the client-server API with httpx: log in, create a room, invite, send,
read the room's messages.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
SERVER_NAME = "lab.test"
_OPEN_LIMIT = {"per_second": 1000, "burst_count": 1000}


def synapse_venv() -> Path:
    return Path(os.environ.get("LASTWORD_SYNAPSE_VENV", REPO / ".venv-synapse"))


def synapse_python() -> Path | None:
    python = synapse_venv() / "bin" / "python"
    if not python.is_file():
        return None
    ok = subprocess.run([python, "-c", "import synapse"], capture_output=True).returncode == 0
    return python if ok else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Synapse:
    def __init__(self, python: Path, root: Path) -> None:
        self.python = python
        self.root = root
        self.config = root / "homeserver.yaml"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = root / "synapse.out"

    def generate(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                self.python, "-m", "synapse.app.homeserver",
                "--server-name", SERVER_NAME,
                "--config-path", self.config,
                "--generate-config", "--report-stats=no",
                "--data-directory", self.root / "data",
            ],
            cwd=self.root, check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        config = yaml.safe_load(self.config.read_text())
        config["listeners"] = [
            {
                "port": self.port,
                "bind_addresses": ["127.0.0.1"],
                "type": "http",
                "tls": False,
                "x_forwarded": False,
                "resources": [{"names": ["client"], "compress": False}],
            }
        ]
        config["trusted_key_servers"] = []
        config["suppress_key_server_warning"] = True
        config["presence"] = {"enabled": False}
        config["rc_message"] = _OPEN_LIMIT
        config["rc_registration"] = _OPEN_LIMIT
        config["rc_login"] = {k: _OPEN_LIMIT for k in ("address", "account", "failed_attempts")}
        config["rc_joins"] = {"local": _OPEN_LIMIT, "remote": _OPEN_LIMIT}
        config["rc_invites"] = {k: _OPEN_LIMIT for k in ("per_room", "per_user", "per_sender")}
        config["rc_admin_redaction"] = _OPEN_LIMIT
        self.config.write_text(yaml.safe_dump(config))

    def start(self, timeout_s: float = 90) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [self.python, "-m", "synapse.app.homeserver", "--config-path", self.config],
                cwd=self.root,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"synapse exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/_matrix/client/versions", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError("synapse did not answer in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def register(self, user: str, password: str) -> str:
        return self.register_all({user: password})[0]

    def register_all(self, users: dict[str, str]) -> list[str]:
        """``register_new_matrix_user`` (the shared secret) for each user, run side by side."""
        running = [
            subprocess.Popen(
                [
                    self.python,
                    "-m",
                    "synapse._scripts.register_new_matrix_user",
                    "-u",
                    user,
                    "-p",
                    password,
                    "--no-admin",
                    "-c",
                    self.config,
                    self.url,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            for user, password in users.items()
        ]
        for process in running:
            out, _ = process.communicate(timeout=120)
            if process.returncode != 0:
                raise RuntimeError(f"register_new_matrix_user failed: {out.decode()[-1000:]}")
        return [f"@{user}:{SERVER_NAME}" for user in users]


class Member:
    """A person in the chat, on the plain client-server API."""

    def __init__(self, url: str, user: str, password: str) -> None:
        self.url = url
        self.http = httpx.Client(base_url=url, timeout=30)
        body = self._call(
            "POST",
            "/_matrix/client/v3/login",
            json={
                "type": "m.login.password",
                "identifier": {"type": "m.id.user", "user": user},
                "password": password,
            },
            auth=False,
        )
        self.user_id = body["user_id"]
        self.token = body["access_token"]

    def _call(self, method: str, path: str, auth: bool = True, **kwargs: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}"} if auth else {}
        response = self.http.request(method, path, headers=headers, **kwargs)
        response.raise_for_status()
        return response.json()

    def create_room(self, invite: list[str], encrypted: bool = False) -> str:
        body: dict[str, Any] = {"preset": "private_chat", "invite": invite, "name": "lab chat"}
        if encrypted:
            body["initial_state"] = [
                {
                    "type": "m.room.encryption",
                    "state_key": "",
                    "content": {"algorithm": "m.megolm.v1.aes-sha2"},
                }
            ]
        return self._call("POST", "/_matrix/client/v3/createRoom", json=body)["room_id"]

    def join(self, room_id: str) -> None:
        self._call("POST", f"/_matrix/client/v3/join/{quote(room_id)}", json={})

    def invite(self, room_id: str, user_id: str) -> None:
        self._call(
            "POST", f"/_matrix/client/v3/rooms/{quote(room_id)}/invite", json={"user_id": user_id}
        )

    def send(self, room_id: str, body: str, **extra: Any) -> str:
        content = {"msgtype": "m.text", "body": body, **extra}
        path = f"/_matrix/client/v3/rooms/{quote(room_id)}/send/m.room.message/{uuid.uuid4().hex}"
        return self._call("PUT", path, json=content)["event_id"]

    def messages(self, room_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The room's events, oldest first."""
        body = self._call(
            "GET",
            f"/_matrix/client/v3/rooms/{quote(room_id)}/messages",
            params={"dir": "b", "limit": str(limit)},
        )
        return list(reversed(body["chunk"]))

    def members(self, room_id: str) -> set[str]:
        body = self._call("GET", f"/_matrix/client/v3/rooms/{quote(room_id)}/joined_members")
        return set(body["joined"])

    def replies_to(self, room_id: str, event_id: str, sender: str) -> list[dict[str, Any]]:
        return [
            e
            for e in self.messages(room_id)
            if e.get("sender") == sender
            and e.get("type") == "m.room.message"
            and ((e["content"].get("m.relates_to") or {}).get("m.in_reply_to") or {}).get(
                "event_id"
            )
            == event_id
        ]

    def wait_reply(
        self, room_id: str, event_id: str, sender: str, timeout_s: float = 60
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = self.replies_to(room_id, event_id, sender)
            if found:
                return found[0]
            time.sleep(0.25)
        raise AssertionError(f"no reply to {event_id} within {timeout_s} s")

    def wait_for(self, room_id: str, predicate, timeout_s: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for event in self.messages(room_id):
                if predicate(event):
                    return event
            time.sleep(0.25)
        raise AssertionError("the awaited event did not arrive")
