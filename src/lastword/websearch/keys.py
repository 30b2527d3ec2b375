"""The encrypted keystore for search API keys.

Keys are encrypted with Fernet (``cryptography``) under one master key, which comes from, first
found: the environment variable ``LASTWORD_MASTER_KEY``; the OS keyring when
``[state] master_key = "keyring"`` (the optional ``keyring`` package); else ``master.key`` in
the state folder, created on first use with mode 0600 (a file readable by others is refused).
``KeyStore.master_key_source`` says which, for ``lastword keys status``.

Keys are never stored under a second master key: when keys exist that the master key at hand
cannot decrypt (it came from elsewhere, or none is found), ``set`` refuses and says where it
looked, instead of silently making a new one that orphans them. Nothing here ever returns a
stored key as plain text except ``KeyStore.get``, whose value is a ``SecretStr``.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import SecretStr

from lastword.errors import ConfigError, InputError
from lastword.text_check import check_text

if TYPE_CHECKING:
    from lastword.settings import Settings

ProviderName = Literal["brave", "serper"]
PROVIDERS: tuple[ProviderName, ...] = ("brave", "serper")
MASTER_KEY_ENV = "LASTWORD_MASTER_KEY"
MASTER_KEY_FILE = "master.key"
KEYSTORE_FILE = "keys.json"
KEYRING_SERVICE = "lastword"


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` readable by its owner only, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _keyring():  # -> the keyring module
    try:
        import keyring
    except ImportError:
        raise ConfigError(
            "[state] master_key = \"keyring\" needs the optional package 'keyring': "
            "pip install 'lastword[keyring]'"
        ) from None
    return keyring


class KeyStore:
    """Search API keys, encrypted at rest in ``state_dir/keys.json``."""

    def __init__(self, state_dir: Path, master_key: Literal["file", "keyring"] = "file") -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / KEYSTORE_FILE
        self.master_key_path = self.state_dir / MASTER_KEY_FILE
        self.master_key = master_key
        #: the keyring entry's user name: one master key per state folder
        self.keyring_user = f"master-key:{self.state_dir.resolve()}"

    @classmethod
    def for_settings(cls, settings: Settings) -> KeyStore:
        from lastword.statedir import state_dir

        return cls(state_dir(settings), settings.state.master_key)

    @property
    def master_key_source(self) -> str:
        """Where the master key is read from (or would be created), in words."""
        if os.environ.get(MASTER_KEY_ENV):
            return f"the {MASTER_KEY_ENV} environment variable"
        if self.master_key == "keyring":
            return f"the OS keyring (service '{KEYRING_SERVICE}', user '{self.keyring_user}')"
        return f"the file {self.master_key_path}"

    def _read_master(self) -> str | None:
        raw = os.environ.get(MASTER_KEY_ENV)
        if raw:
            return raw
        if self.master_key == "keyring":
            keyring = _keyring()
            try:
                return keyring.get_password(KEYRING_SERVICE, self.keyring_user)
            except keyring.errors.KeyringError as exc:
                raise ConfigError(f"the OS keyring cannot be read: {exc}") from None
        if not self.master_key_path.is_file():
            return None
        mode = stat.S_IMODE(self.master_key_path.stat().st_mode)
        if mode & 0o077:
            raise ConfigError(
                f"{self.master_key_path} is readable by others (mode {mode:o}); "
                f"run: chmod 600 {self.master_key_path}"
            )
        return self.master_key_path.read_text(encoding="ascii").strip()

    def _create_master(self) -> str:
        from cryptography.fernet import Fernet

        raw = Fernet.generate_key().decode("ascii")
        if self.master_key == "keyring":
            keyring = _keyring()
            try:
                keyring.set_password(KEYRING_SERVICE, self.keyring_user, raw)
            except keyring.errors.KeyringError as exc:
                raise ConfigError(f"the OS keyring cannot store the master key: {exc}") from None
        else:
            write_private(self.master_key_path, raw.encode("ascii"))
        return raw

    def _fernet(self, create: bool):  # -> cryptography.fernet.Fernet | None
        from cryptography.fernet import Fernet

        raw = self._read_master()
        if raw is None:
            if not create:
                return None
            raw = self._create_master()
        try:
            return Fernet(raw.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            raise ConfigError(
                f"the master key in {self.master_key_source} is not a Fernet key "
                "(32 url-safe base64 bytes)"
            ) from None

    def _check_same_master(self, entries: dict[str, dict[str, str]]) -> None:
        """Refuse to add a key under a master key other than the one existing keys use."""
        if not entries:
            return
        from cryptography.fernet import InvalidToken

        names = ", ".join(sorted(entries))
        fernet = self._fernet(create=False)
        if fernet is not None:
            try:
                for entry in entries.values():
                    fernet.decrypt(entry["token"].encode("ascii"))
                return
            except (InvalidToken, KeyError):
                problem = f"the master key in {self.master_key_source} does not open them"
        else:
            problem = f"no master key was found (looked in {self.master_key_source})"
        raise ConfigError(
            f"keys are stored for {names} under another master key, and {problem}. Nothing was "
            f"stored: give the master key they were stored under ({MASTER_KEY_ENV}, or "
            f"[state] master_key), or delete them first (lastword keys delete NAME)"
        )

    def _entries(self) -> dict[str, dict[str, str]]:
        if not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise ConfigError(f"the keystore {self.path} is damaged (not JSON)") from None
        return data if isinstance(data, dict) else {}

    def set(self, provider: str, key: str) -> datetime:
        """Encrypt and store ``key`` for ``provider``; returns when it was stored."""
        _check_provider(provider)
        key = key.strip()
        if not key:
            raise InputError("the key is empty; nothing was stored")
        if any(ch.isspace() for ch in key):
            raise InputError("a key cannot contain spaces or line breaks; nothing was stored")
        check_text(key, "the key")
        entries = self._entries()
        self._check_same_master(entries)
        fernet = self._fernet(create=True)
        now = datetime.now(UTC).replace(microsecond=0)
        entries[provider] = {
            "token": fernet.encrypt(key.encode("utf-8")).decode("ascii"),
            "set_at": now.isoformat(),
        }
        write_private(self.path, json.dumps(entries, indent=2).encode("utf-8"))
        return now

    def get(self, provider: str) -> SecretStr | None:
        """The stored key, or None when none is set."""
        _check_provider(provider)
        entry = self._entries().get(provider)
        if not entry:
            return None
        from cryptography.fernet import InvalidToken

        fernet = self._fernet(create=False)
        if fernet is None:
            raise ConfigError(
                f"a {provider} key is stored but its master key is missing (looked in "
                f"{self.master_key_source}); give it, or set the key again"
            )
        try:
            return SecretStr(fernet.decrypt(entry["token"].encode("ascii")).decode("utf-8"))
        except (InvalidToken, KeyError):
            raise ConfigError(
                f"the stored {provider} key cannot be decrypted with the master key in "
                f"{self.master_key_source}; give the one it was stored under, or set it again"
            ) from None

    def encrypt(self, secret: str) -> str:
        """``secret`` encrypted with the master key (created if needed), for another store."""
        return self._fernet(create=True).encrypt(secret.encode("utf-8")).decode("ascii")

    def decrypt(self, token: str, what: str) -> SecretStr:
        """A value ``encrypt`` returned; ``what`` names it in errors."""
        from cryptography.fernet import InvalidToken

        fernet = self._fernet(create=False)
        if fernet is None:
            raise ConfigError(
                f"{what} is stored but its master key is missing "
                f"(looked in {self.master_key_source})"
            )
        try:
            return SecretStr(fernet.decrypt(token.encode("ascii")).decode("utf-8"))
        except (InvalidToken, ValueError):
            raise ConfigError(f"{what} cannot be decrypted with this master key") from None

    def status(self) -> dict[str, datetime | None]:
        """For each provider, when its key was set (None: not set). Never the key."""
        entries = self._entries()
        out: dict[str, datetime | None] = {}
        for provider in PROVIDERS:
            entry = entries.get(provider)
            out[provider] = datetime.fromisoformat(entry["set_at"]) if entry else None
        return out

    def delete(self, provider: str) -> bool:
        _check_provider(provider)
        entries = self._entries()
        if provider not in entries:
            return False
        del entries[provider]
        write_private(self.path, json.dumps(entries, indent=2).encode("utf-8"))
        return True


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise InputError(f"unknown search provider '{provider}'; choose one of: brave, serper")
