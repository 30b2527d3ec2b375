"""The master key (issue 16): never a second one beside existing keys; where it lives is said;
from the environment or the OS keyring instead of a file beside the keys."""

from __future__ import annotations

import keyring
import pytest
from cryptography.fernet import Fernet
from keyring.backend import KeyringBackend

from lastword.errors import ConfigError
from lastword.settings import Settings
from lastword.websearch.keys import KEYRING_SERVICE, MASTER_KEY_ENV, KeyStore

BRAVE, SERPER = "BSA-live-key-0123456789abcdefXYZ", "serper-key-9876543210fedcba"


@pytest.fixture(autouse=True)
def no_master_env(monkeypatch):
    monkeypatch.delenv(MASTER_KEY_ENV, raising=False)


def test_a_second_master_key_is_refused_instead_of_made_silently(tmp_path, monkeypatch):
    """The issue's steps: brave stored under LASTWORD_MASTER_KEY, then serper without it."""
    master = Fernet.generate_key().decode()
    monkeypatch.setenv(MASTER_KEY_ENV, master)
    store = KeyStore(tmp_path)
    store.set("brave", BRAVE)
    monkeypatch.delenv(MASTER_KEY_ENV)

    with pytest.raises(ConfigError) as caught:
        store.set("serper", SERPER)
    message = str(caught.value)
    assert "stored for brave under another master key" in message
    assert str(store.master_key_path) in message and MASTER_KEY_ENV in message
    assert not store.master_key_path.exists()  # no new master key was made
    assert store.status()["serper"] is None  # and nothing stored

    monkeypatch.setenv(MASTER_KEY_ENV, Fernet.generate_key().decode())  # the wrong one
    with pytest.raises(ConfigError, match="does not open them"):
        store.set("serper", SERPER)

    monkeypatch.setenv(MASTER_KEY_ENV, master)  # the right one: both keys readable
    store.set("serper", SERPER)
    assert store.get("brave").get_secret_value() == BRAVE
    assert store.get("serper").get_secret_value() == SERPER


def test_a_file_master_key_then_an_environment_one_is_refused(tmp_path, monkeypatch):
    store = KeyStore(tmp_path)
    store.set("brave", BRAVE)  # creates master.key
    monkeypatch.setenv(MASTER_KEY_ENV, Fernet.generate_key().decode())
    with pytest.raises(ConfigError, match="the LASTWORD_MASTER_KEY environment variable"):
        store.set("serper", SERPER)
    monkeypatch.delenv(MASTER_KEY_ENV)
    store.set("serper", SERPER)  # the file's key again: fine
    assert store.get("brave").get_secret_value() == BRAVE


def test_where_the_master_key_lives_is_said(tmp_path, monkeypatch):
    store = KeyStore(tmp_path)
    assert store.master_key_source == f"the file {tmp_path / 'master.key'}"
    monkeypatch.setenv(MASTER_KEY_ENV, Fernet.generate_key().decode())
    assert store.master_key_source == "the LASTWORD_MASTER_KEY environment variable"


class MemoryKeyring(KeyringBackend):
    """A keyring backend in memory: no OS keyring service (D-Bus, Keychain) exists here."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.entries.get((service, username))

    def set_password(self, service, username, password):
        self.entries[(service, username)] = password

    def delete_password(self, service, username):
        self.entries.pop((service, username), None)


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_the_master_key_can_live_in_the_os_keyring(tmp_path, memory_keyring):
    settings = Settings(state={"dir": tmp_path, "master_key": "keyring"})
    store = KeyStore.for_settings(settings)
    store.set("brave", BRAVE)
    assert not store.master_key_path.exists()  # nothing beside the keys
    (service, user), master = next(iter(memory_keyring.entries.items()))
    assert service == KEYRING_SERVICE and str(tmp_path) in user
    Fernet(master.encode())  # a real Fernet key
    assert "OS keyring" in store.master_key_source
    assert KeyStore.for_settings(settings).get("brave").get_secret_value() == BRAVE
    # the same keys read with the file setting: no master key there, and none is made
    with pytest.raises(ConfigError, match="under another master key"):
        KeyStore(tmp_path).set("serper", SERPER)
    assert not store.master_key_path.exists()


def test_keys_status_says_where_the_master_key_lives(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("LASTWORD_STATE__DIR", str(tmp_path / "state"))
    outcome = cli("keys", "status")
    assert outcome.code == 0, outcome
    assert "brave: not set" in outcome.out
    assert f"master key: the file {tmp_path / 'state' / 'master.key'}" in outcome.out
