"""Refusals name the mechanism and the real reason, in words an operator can change."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastword.refusals import REASONS, refusal, reword
from lastword.settings import RefusalSettings, load_settings


def test_every_reason_names_its_mechanism_and_fits_any_lab() -> None:
    mechanisms = ("scope guard", "retrieval gate", "generator", "verifier", "corpus is empty")
    for reason in REASONS:
        message = refusal(reason).message
        assert message.startswith("Not answered:")
        assert any(m in message for m in mechanisms), reason
        assert "licensed professional" not in message and "[" not in message.replace("[N]", "")


def test_the_messages_are_settings_read_from_the_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lastword.toml").write_text(
        '[refusals]\nweak_retrieval = "Nothing in our papers is close to that."\n'
    )
    settings = load_settings()
    made = refusal("weak_retrieval", messages=settings.refusals)
    assert made.message == "Nothing in our papers is close to that."
    assert made.reason == "weak_retrieval"


def test_the_scope_guards_wording_is_replaced_and_its_detail_kept() -> None:
    configured = RefusalSettings(out_of_scope="We do not discuss that here.")
    made = reword(refusal("out_of_scope", detail="the question mentions 'bitcoin'"), configured)
    assert made.message == "We do not discuss that here. (the question mentions 'bitcoin')"


def test_an_unknown_reason_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown refusal reason 'nope'"):
        refusal("nope")
