"""The outbound search log and the sliding-window rate limits it enforces.

Every search that leaves the machine is a row in SQLite (time, provider, the query sent, result
count, outcome; never the key). The same rows are the rate-limit counters, so a restart does
not reset them. Checking the limits and recording the search happen in one write transaction:
two processes sharing the file cannot both take the last slot.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SEARCH_LOG_FILE = "searches.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS searches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    member_id TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    query TEXT NOT NULL,
    result_count INTEGER,
    outcome TEXT NOT NULL DEFAULT 'sent'
);
CREATE INDEX IF NOT EXISTS searches_member ON searches (member_id, at);
CREATE INDEX IF NOT EXISTS searches_chat ON searches (chat_id, at);
"""


@dataclass(frozen=True)
class Limits:
    member: int = 5
    chat: int = 20
    window_s: float = 600.0


@dataclass(frozen=True)
class Admission:
    """The outcome of asking to search: a row id when admitted, else who is over the limit."""

    search_id: int | None
    limited_by: str | None = None  # "member" | "chat"
    used: int = 0
    retry_after_s: float | None = None

    @property
    def admitted(self) -> bool:
        return self.search_id is not None


@dataclass(frozen=True)
class SearchRecord:
    id: int
    at: float
    member_id: str
    chat_id: str
    provider: str
    query: str
    result_count: int | None
    outcome: str


class SearchLog:
    """SQLite file of outbound searches; also the rate limiter."""

    def __init__(
        self,
        path: Path,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.limits = limits or Limits()
        self._clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Member and chat ids and queries: readable by the owner only. SQLite gives its -wal and
        # -shm files the database file's permissions.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        with self._connect() as conn:
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def admit(self, member_id: str, chat_id: str, provider: str, query: str) -> Admission:
        """Record a search about to be sent, unless the member or chat is over its limit."""
        now = self._clock()
        since = now - self.limits.window_s
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            for scope, column, value, limit in (
                ("member", "member_id", member_id, self.limits.member),
                ("chat", "chat_id", chat_id, self.limits.chat),
            ):
                used, oldest = conn.execute(
                    f"SELECT COUNT(*), MIN(at) FROM searches WHERE {column} = ? AND at > ?",
                    (value, since),
                ).fetchone()
                if used >= limit:
                    conn.execute("ROLLBACK")
                    retry = (oldest + self.limits.window_s - now) if oldest else None
                    return Admission(None, limited_by=scope, used=used, retry_after_s=retry)
            cursor = conn.execute(
                "INSERT INTO searches (at, member_id, chat_id, provider, query) "
                "VALUES (?, ?, ?, ?, ?)",
                (now, member_id, chat_id, provider, query),
            )
            conn.execute("COMMIT")
            return Admission(int(cursor.lastrowid))
        finally:
            conn.close()

    def finish(self, search_id: int, outcome: str, result_count: int | None = None) -> None:
        """Record how a sent search ended: ``ok`` with a count, or an error kind."""
        conn = self._connect()
        try:
            conn.execute(
                "UPDATE searches SET outcome = ?, result_count = ? WHERE id = ?",
                (outcome, result_count, search_id),
            )
        finally:
            conn.close()

    def records(self) -> list[SearchRecord]:
        conn = self._connect()
        try:
            rows = conn.execute(
                "SELECT id, at, member_id, chat_id, provider, query, result_count, outcome "
                "FROM searches ORDER BY id"
            ).fetchall()
        finally:
            conn.close()
        return [SearchRecord(*row) for row in rows]
