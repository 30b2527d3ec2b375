"""The encrypted keystore for search API keys.

Keys are encrypted with Fernet (``cryptography``). The master key comes from the environment
variable ``LASTWORD_MASTER_KEY`` when set, else from ``master.key`` in the state directory,
created on first use with mode 0600; a master-key file readable by others is refused. Nothing
here ever returns a stored key as plain text except ``KeyStore.get``, whose value is a
``SecretStr`` that prints as ``**********``.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import SecretStr

from lastword.errors import ConfigError, InputError

ProviderName = Literal["brave", "serper"]
PROVIDERS: tuple[ProviderName, ...] = ("brave", "serper")
MASTER_KEY_ENV = "LASTWORD_MASTER_KEY"
MASTER_KEY_FILE = "master.key"
KEYSTORE_FILE = "keys.json"


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


_write_private = write_private  # the old private name, kept for callers on other branches


class KeyStore:
    """Search API keys, encrypted at rest in ``state_dir/keys.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / KEYSTORE_FILE
        self.master_key_path = self.state_dir / MASTER_KEY_FILE

    def _fernet(self, create: bool):  # -> cryptography.fernet.Fernet
        from cryptography.fernet import Fernet

        raw = os.environ.get(MASTER_KEY_ENV)
        if raw:
            source = f"the {MASTER_KEY_ENV} variable"
        elif self.master_key_path.is_file():
            mode = stat.S_IMODE(self.master_key_path.stat().st_mode)
            if mode & 0o077:
                raise ConfigError(
                    f"{self.master_key_path} is readable by others (mode {mode:o}); "
                    f"run: chmod 600 {self.master_key_path}"
                )
            raw = self.master_key_path.read_text(encoding="ascii").strip()
            source = str(self.master_key_path)
        elif create:
            raw = Fernet.generate_key().decode("ascii")
            write_private(self.master_key_path, raw.encode("ascii"))
            source = str(self.master_key_path)
        else:
            return None
        try:
            return Fernet(raw.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            raise ConfigError(
                f"the master key in {source} is not a Fernet key (32 url-safe base64 bytes)"
            ) from None

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
        fernet = self._fernet(create=True)
        entries = self._entries()
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
                f"a {provider} key is stored but the master key is missing "
                f"({self.master_key_path} or {MASTER_KEY_ENV}); set the key again"
            )
        try:
            return SecretStr(fernet.decrypt(entry["token"].encode("ascii")).decode("utf-8"))
        except (InvalidToken, KeyError):
            raise ConfigError(
                f"the stored {provider} key cannot be decrypted with this master key; "
                "set the key again"
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
                f"{what} is stored but the master key is missing "
                f"({self.master_key_path} or {MASTER_KEY_ENV})"
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
