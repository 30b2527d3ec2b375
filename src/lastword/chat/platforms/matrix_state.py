"""What the Matrix bot keeps between runs, in the one state folder (``lastword/statedir.py``).

* ``matrix.json``: homeserver, user id, when it logged in, and the access token and device id
  encrypted with the same master key as the search keys (``websearch.keys``). Never printed.
* ``matrix-state.sqlite`` (0600): the sync position (``next_batch``), every member message
  the bot took up and how it ended (answered / skipped), the bot's own event ids (so a reply
  to one of them addresses the bot), when it joined each room, and the encrypted rooms it has
  already told that it cannot read them.

A restart resumes from the stored sync position, so nothing is replayed; a message already
recorded is never answered again, even if the homeserver sends it twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import SecretStr

from lastword.errors import ConfigError
from lastword.websearch.keys import KeyStore, write_private

CREDENTIALS_FILE = "matrix.json"
STATE_FILE = "matrix-state.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS handled (
    event_id TEXT PRIMARY KEY,
    room_id TEXT NOT NULL,
    at REAL NOT NULL,
    outcome TEXT NOT NULL,
    reply_event_id TEXT
);
CREATE TABLE IF NOT EXISTS own_events (event_id TEXT PRIMARY KEY, room_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    room_id TEXT PRIMARY KEY,
    joined_at REAL,
    encrypted_notice_sent INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class Credentials:
    homeserver: str
    user_id: str
    device_id: SecretStr
    access_token: SecretStr
    logged_in_at: datetime


class CredentialStore:
    def __init__(self, state_dir: Path, master_key: Literal["file", "keyring"] = "file") -> None:
        self.keys = KeyStore(state_dir, master_key)
        self.path = Path(state_dir) / CREDENTIALS_FILE

    def save(self, homeserver: str, user_id: str, device_id: str, access_token: str) -> datetime:
        now = datetime.now(UTC).replace(microsecond=0)
        data = {
            "homeserver": homeserver,
            "user_id": user_id,
            "device_id": self.keys.encrypt(device_id),
            "access_token": self.keys.encrypt(access_token),
            "logged_in_at": now.isoformat(),
        }
        write_private(self.path, json.dumps(data, indent=2).encode("utf-8"))
        return now

    def load(self) -> Credentials | None:
        if not self.path.is_file():
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return Credentials(
                homeserver=data["homeserver"],
                user_id=data["user_id"],
                device_id=self.keys.decrypt(data["device_id"], "the Matrix device id"),
                access_token=self.keys.decrypt(data["access_token"], "the Matrix access token"),
                logged_in_at=datetime.fromisoformat(data["logged_in_at"]),
            )
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"{self.path} is damaged; run: lastword matrix login --homeserver URL --user ID"
            ) from None

    def require(self) -> Credentials:
        creds = self.load()
        if creds is None:
            raise ConfigError(
                "the bot is not logged in; run: lastword matrix login --homeserver URL --user ID"
            )
        return creds

    def delete(self) -> bool:
        if not self.path.is_file():
            return False
        self.path.unlink()
        return True


class BotState:
    """The bot's SQLite state file (one process at a time)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / STATE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        self._conn.close()

    # sync position
    def next_batch(self, user_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT value FROM kv WHERE key = ?", (f"next_batch:{user_id}",)
        ).fetchone()
        return row[0] if row else None

    def set_next_batch(self, user_id: str, token: str) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO kv (key, value) VALUES (?, ?)", (f"next_batch:{user_id}", token)
        )

    # member messages
    def outcome(self, event_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT outcome FROM handled WHERE event_id = ?", (event_id,)
        ).fetchone()
        return row[0] if row else None

    def record(
        self, event_id: str, room_id: str, outcome: str, reply_event_id: str | None = None
    ) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO handled (event_id, room_id, at, outcome, reply_event_id) "
            "VALUES (?, ?, ?, ?, ?)",
            (event_id, room_id, time.time(), outcome, reply_event_id),
        )

    # the bot's own messages
    def add_own_event(self, event_id: str, room_id: str) -> None:
        self._conn.execute(
            "INSERT OR IGNORE INTO own_events (event_id, room_id) VALUES (?, ?)",
            (event_id, room_id),
        )

    def own_events(self) -> set[str]:
        return {row[0] for row in self._conn.execute("SELECT event_id FROM own_events")}

    # rooms
    def joined(self, room_id: str, at: float) -> None:
        self._conn.execute(
            "INSERT INTO rooms (room_id, joined_at) VALUES (?, ?) "
            "ON CONFLICT(room_id) DO UPDATE SET joined_at = excluded.joined_at",
            (room_id, at),
        )

    def joined_at(self, room_id: str) -> float | None:
        row = self._conn.execute(
            "SELECT joined_at FROM rooms WHERE room_id = ?", (room_id,)
        ).fetchone()
        return row[0] if row else None

    def encrypted_notice_sent(self, room_id: str) -> bool:
        row = self._conn.execute(
            "SELECT encrypted_notice_sent FROM rooms WHERE room_id = ?", (room_id,)
        ).fetchone()
        return bool(row and row[0])

    def mark_encrypted_notice(self, room_id: str) -> None:
        self._conn.execute(
            "INSERT INTO rooms (room_id, encrypted_notice_sent) VALUES (?, 1) "
            "ON CONFLICT(room_id) DO UPDATE SET encrypted_notice_sent = 1",
            (room_id,),
        )

    def counts(self) -> dict[str, int]:
        rows = self._conn.execute("SELECT outcome, COUNT(*) FROM handled GROUP BY outcome")
        return {outcome: n for outcome, n in rows}
