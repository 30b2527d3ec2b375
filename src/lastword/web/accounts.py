"""Users, API tokens, sessions and failed logins, in one SQLite file in the state folder.

Passwords are hashed with argon2id (``argon2-cffi``). API tokens and session ids are long random
strings, so a SHA-256 of each is what is stored: a stolen database holds nothing that logs in.
Nothing here ever returns a password, a token or a session id after it was first handed out.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lastword.errors import InputError

ACCOUNTS_FILE = "accounts.sqlite"
TOKEN_PREFIX = "lw_"
Role = Literal["reader", "admin"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('reader', 'admin')),
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_used REAL
);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS user_groups (
    user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    PRIMARY KEY (user, name)
);
CREATE TABLE IF NOT EXISTS login_failures (key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures (key, at);
"""

MIN_PASSWORD_CHARS = 8


@dataclass(frozen=True)
class User:
    name: str
    role: Role

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class Session:
    user: User
    csrf: str
    expires_at: float


@dataclass(frozen=True)
class TokenInfo:
    id: int
    user: str
    label: str
    created_at: float
    last_used: float | None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def check_user_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 64 or not all(c.isalnum() or c in "._-@" for c in name):
        raise InputError("a user name is 1-64 letters, digits or . _ - @")
    return name


class Accounts:
    """The accounts database. Each call opens its own connection: safe from any thread."""

    def __init__(self, state_dir: Path, clock=time.time) -> None:
        from argon2 import PasswordHasher

        self.path = Path(state_dir) / ACCOUNTS_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._hasher = PasswordHasher()
        self._clock = clock
        with self._connect() as conn:
            conn.executescript(_SCHEMA)
        self.path.chmod(0o600)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        conn = self._connect()
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    # ------------------------------------------------------------------ users
    def has_users(self) -> bool:
        return bool(self._run("SELECT 1 FROM users LIMIT 1"))

    def add_user(self, name: str, password: str, role: Role = "reader") -> User:
        name = check_user_name(name)
        if len(password) < MIN_PASSWORD_CHARS:
            raise InputError(f"the password must have at least {MIN_PASSWORD_CHARS} characters")
        try:
            self._run(
                "INSERT INTO users (name, password_hash, role, created_at) VALUES (?, ?, ?, ?)",
                (name, self._hasher.hash(password), role, self._clock()),
            )
        except sqlite3.IntegrityError:
            raise InputError(f"a user named '{name}' already exists") from None
        return User(name, role)

    def remove_user(self, name: str) -> bool:
        return bool(self._run("DELETE FROM users WHERE name = ? RETURNING name", (name,)))

    def users(self) -> list[tuple[User, float]]:
        rows = self._run("SELECT name, role, created_at FROM users ORDER BY name")
        return [(User(name, role), created) for name, role, created in rows]

    def groups(self, name: str) -> frozenset[str]:
        """The groups a user belongs to (a collection's readers may name a group)."""
        rows = self._run("SELECT name FROM user_groups WHERE user = ?", (name,))
        return frozenset(row[0] for row in rows)

    def set_groups(
        self, name: str, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()
    ) -> None:
        """Put a user in groups and take them out of others."""
        if not self._run("SELECT 1 FROM users WHERE name = ?", (name,)):
            raise InputError(f"no user named '{name}'")
        for group in add:
            check_user_name(group)
            self._run(
                "INSERT INTO user_groups (user, name) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (name, group),
            )
        for group in remove:
            self._run("DELETE FROM user_groups WHERE user = ? AND name = ?", (name, group))

    def verify_password(self, name: str, password: str) -> User | None:
        from argon2.exceptions import InvalidHashError, VerificationError

        rows = self._run("SELECT password_hash, role FROM users WHERE name = ?", (name,))
        if not rows:
            # Spend the same time as a real check, so timing does not reveal who exists.
            self._hasher.hash(password)
            return None
        stored, role = rows[0]
        try:
            self._hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if self._hasher.check_needs_rehash(stored):
            self._run(
                "UPDATE users SET password_hash = ? WHERE name = ?",
                (self._hasher.hash(password), name),
            )
        return User(name, role)

    # ------------------------------------------------------------------ API tokens
    def create_token(self, user: str, label: str = "") -> str:
        """A new token for ``user``, returned once; only its hash is kept."""
        if not self._run("SELECT 1 FROM users WHERE name = ?", (user,)):
            raise InputError(f"no user named '{user}': add one with 'lastword users add {user}'")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self._run(
            "INSERT INTO tokens (token_hash, user, label, created_at) VALUES (?, ?, ?, ?)",
            (_digest(token), user, label, self._clock()),
        )
        return token

    def tokens(self) -> list[TokenInfo]:
        rows = self._run("SELECT id, user, label, created_at, last_used FROM tokens ORDER BY id")
        return [TokenInfo(*row) for row in rows]

    def revoke_token(self, token_id: int) -> bool:
        return bool(self._run("DELETE FROM tokens WHERE id = ? RETURNING id", (token_id,)))

    def user_for_token(self, token: str) -> User | None:
        rows = self._run(
            "SELECT u.name, u.role FROM tokens t JOIN users u ON u.name = t.user "
            "WHERE t.token_hash = ?",
            (_digest(token),),
        )
        if not rows:
            return None
        self._run(
            "UPDATE tokens SET last_used = ? WHERE token_hash = ?", (self._clock(), _digest(token))
        )
        return User(*rows[0])

    # ------------------------------------------------------------------ sessions
    def start_session(self, user: User, lifetime_s: float) -> tuple[str, Session]:
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        expires = self._clock() + lifetime_s
        self._run("DELETE FROM sessions WHERE expires_at < ?", (self._clock(),))
        self._run(
            "INSERT INTO sessions (id_hash, user, csrf, expires_at) VALUES (?, ?, ?, ?)",
            (_digest(session_id), user.name, csrf, expires),
        )
        return session_id, Session(user, csrf, expires)

    def session(self, session_id: str) -> Session | None:
        rows = self._run(
            "SELECT u.name, u.role, s.csrf, s.expires_at FROM sessions s "
            "JOIN users u ON u.name = s.user WHERE s.id_hash = ?",
            (_digest(session_id),),
        )
        if not rows or rows[0][3] < self._clock():
            return None
        name, role, csrf, expires = rows[0]
        return Session(User(name, role), csrf, expires)

    def end_session(self, session_id: str) -> None:
        self._run("DELETE FROM sessions WHERE id_hash = ?", (_digest(session_id),))

    # ------------------------------------------------------------------ login rate limit
    def begin_login(
        self,
        limits: list[tuple[str, int]],
        window_s: float,
        max_delay_s: float,
        shared: frozenset[str] = frozenset(),
    ) -> tuple[float | None, list[int]]:
        """Check every ``(key, allowed)`` and record this attempt, in one transaction.

        A key with ``allowed`` or more failures inside the window makes the next try wait
        1 s after its latest failure, then 2, 4, ... up to ``max_delay_s``. A key in
        ``shared`` (a user name's, counted from every address) holds back only an attempt whose
        own first key (the name and this address) has failed inside the window: strangers'
        failures elsewhere never stop a first try from a clean address, and that try's failure
        puts the address under the shared delay too. When no key waits,
        the attempt is recorded as a failure *before* the password is checked (parallel
        attempts see each other); ``login_succeeded`` takes it back. Returns the seconds to
        wait (None: go ahead) and the ids of the rows written.
        """
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            now = self._clock()
            wait = 0.0
            own_failures = None
            for key, allowed in limits:
                count, latest = conn.execute(
                    "SELECT COUNT(*), MAX(at) FROM login_failures WHERE key = ? AND at > ?",
                    (key, now - window_s),
                ).fetchone()
                own_failures = count if own_failures is None else own_failures
                if key in shared and not own_failures:
                    continue
                if count >= allowed:
                    delay = min(max_delay_s, 2.0 ** min(count - allowed, 30))
                    wait = max(wait, latest + delay - now)
            if wait > 0:
                conn.execute("ROLLBACK")
                return wait, []
            ids = [
                conn.execute(
                    "INSERT INTO login_failures (key, at) VALUES (?, ?) RETURNING rowid",
                    (key, now),
                ).fetchone()[0]
                for key, _ in limits
            ]
            conn.execute("DELETE FROM login_failures WHERE at <= ?", (now - window_s,))
            conn.execute("COMMIT")
            return None, ids
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()

    def login_failed(self, attempt: list[int]) -> None:
        """Date this attempt's rows to now: a delay runs from when a failure was known."""
        conn = self._connect()
        try:
            now = self._clock()
            conn.executemany(
                "UPDATE login_failures SET at = ? WHERE rowid = ?", [(now, i) for i in attempt]
            )
        finally:
            conn.close()

    def login_succeeded(self, attempt: list[int], clear_key: str) -> None:
        """Take back this attempt's rows and forget ``clear_key``'s failures."""
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("DELETE FROM login_failures WHERE rowid = ?", [(i,) for i in attempt])
            conn.execute("DELETE FROM login_failures WHERE key = ?", (clear_key,))
            conn.execute("COMMIT")
        finally:
            conn.close()
