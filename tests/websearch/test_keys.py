"""The Fernet keystore and ``lastword keys``: encrypted at rest, 0600, never shown again."""

from __future__ import annotations

import stat

import pytest
import typer
from cryptography.fernet import Fernet
from typer.testing import CliRunner

from lastword.cli.app import state
from lastword.cli.chat import keys_app
from lastword.errors import ConfigError, InputError
from lastword.websearch.keys import MASTER_KEY_ENV, KeyStore

KEY = "BSA-live-key-0123456789abcdefXYZ"


@pytest.fixture(autouse=True)
def no_master_env(monkeypatch):
    monkeypatch.delenv(MASTER_KEY_ENV, raising=False)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_roundtrip_encrypted_at_rest_with_private_files(tmp_path):
    store = KeyStore(tmp_path / "state")
    when = store.set("brave", KEY + "\n")
    assert store.get("brave").get_secret_value() == KEY
    assert store.get("serper") is None
    assert KEY not in store.path.read_text()
    assert mode(store.path) == 0o600
    assert mode(store.master_key_path) == 0o600
    assert store.status() == {"brave": when, "serper": None}
    assert KEY not in repr(store.get("brave")) and KEY not in str(store.get("brave"))


def test_master_key_from_environment_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv(MASTER_KEY_ENV, Fernet.generate_key().decode())
    store = KeyStore(tmp_path)
    store.set("serper", KEY)
    assert not store.master_key_path.exists()
    assert store.get("serper").get_secret_value() == KEY
    monkeypatch.setenv(MASTER_KEY_ENV, Fernet.generate_key().decode())
    with pytest.raises(ConfigError, match="cannot be decrypted") as caught:
        store.get("serper")
    assert KEY not in str(caught.value)


def test_a_readable_master_key_file_is_refused(tmp_path):
    store = KeyStore(tmp_path)
    store.set("brave", KEY)
    store.master_key_path.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        store.get("brave")


def test_bad_input(tmp_path):
    store = KeyStore(tmp_path)
    with pytest.raises(InputError, match="empty"):
        store.set("brave", "  \n")
    with pytest.raises(InputError, match="brave, serper"):
        store.set("google", KEY)
    with pytest.raises(ConfigError, match="not a Fernet key"):
        import os

        os.environ[MASTER_KEY_ENV] = "short"
        try:
            store.set("brave", KEY)
        finally:
            del os.environ[MASTER_KEY_ENV]


def test_cli_set_from_stdin_status_and_delete_never_show_the_key(tmp_path, monkeypatch):
    app = typer.Typer()
    app.add_typer(keys_app, name="keys")
    (tmp_path / "lastword.toml").write_text(f'[state]\ndir = "{tmp_path / "s"}"\n')
    monkeypatch.chdir(tmp_path)
    state.config, state._settings = None, None
    runner = CliRunner()
    result = runner.invoke(app, ["keys", "set", "brave"], input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert KEY not in result.output
    assert KeyStore(tmp_path / "s").get("brave").get_secret_value() == KEY
    status = runner.invoke(app, ["keys", "status"])
    assert "brave: set " in status.output and "serper: not set" in status.output
    assert KEY not in status.output
    deleted = runner.invoke(app, ["keys", "delete", "brave"])
    assert "deleted" in deleted.output
    assert KeyStore(tmp_path / "s").get("brave") is None
    state._settings = None
