"""What the bot keeps between runs: credentials encrypted, state private and durable."""

from __future__ import annotations

import stat

import pytest

from lastword.chat.platforms.matrix_state import STATE_FILE, BotState, CredentialStore
from lastword.errors import ConfigError

TOKEN = "syt_bGFzdHdvcmQ_secretsecretsecret_0abc12"
DEVICE = "QWERTYDEVICE"


@pytest.fixture(autouse=True)
def _no_master_key_env(monkeypatch):
    monkeypatch.delenv("LASTWORD_MASTER_KEY", raising=False)


def test_credentials_roundtrip_encrypted_and_private(tmp_path):
    store = CredentialStore(tmp_path)
    assert store.load() is None
    with pytest.raises(ConfigError, match="lastword matrix login"):
        store.require()
    store.save("http://127.0.0.1:8008", "@lastword:lab.org", DEVICE, TOKEN)
    raw = store.path.read_text()
    assert TOKEN not in raw and DEVICE not in raw
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    creds = CredentialStore(tmp_path).require()
    assert creds.access_token.get_secret_value() == TOKEN
    assert creds.device_id.get_secret_value() == DEVICE
    assert TOKEN not in repr(creds) and DEVICE not in repr(creds)
    assert store.delete() and store.load() is None


def test_credentials_with_another_master_key_are_a_clear_error(tmp_path):
    CredentialStore(tmp_path).save("http://h", "@b:h", DEVICE, TOKEN)
    (tmp_path / "master.key").unlink()
    with pytest.raises(ConfigError, match="master key is missing"):
        CredentialStore(tmp_path).load()


def test_sync_position_and_handled_messages_survive_a_restart(tmp_path):
    state = BotState(tmp_path)
    assert state.next_batch("@b:h") is None
    state.set_next_batch("@b:h", "s42_7")
    state.record("$m1", "!r:h", "claimed")
    state.record("$m1", "!r:h", "answered", "$reply1")
    state.add_own_event("$reply1", "!r:h")
    state.mark_encrypted_notice("!enc:h")
    state.close()
    assert stat.S_IMODE((tmp_path / STATE_FILE).stat().st_mode) == 0o600
    again = BotState(tmp_path)
    assert again.next_batch("@b:h") == "s42_7"
    assert again.outcome("$m1") == "answered" and again.outcome("$m2") is None
    assert again.own_events() == {"$reply1"}
    assert again.encrypted_notice_sent("!enc:h") and not again.encrypted_notice_sent("!r:h")
    assert again.counts() == {"answered": 1}
    again.close()
