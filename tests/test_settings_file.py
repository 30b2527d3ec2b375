"""Settings files (issue 16): one reader/patcher/writer, and the documented precedence."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lastword.errors import ConfigError
from lastword.settings import load_settings, resolve_config_path
from lastword.settings_file import patch, read_document, table


def test_a_patch_the_model_refuses_writes_nothing(tmp_path: Path):
    path = tmp_path / "lastword.toml"
    path.write_text("[retrieve]\nk = 5\n", encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"retrieve\.k"):
        patch(path, lambda d: table(d, "retrieve").update(k=0))
    assert path.read_bytes() == before
    validated = patch(path, lambda d: table(d, "scope").update(out_of_scope=["crypto"]))
    assert validated.retrieve.k == 5 and validated.scope.out_of_scope == ["crypto"]
    assert tomllib.loads(path.read_text()) == {
        "retrieve": {"k": 5},
        "scope": {"out_of_scope": ["crypto"]},
    }


def test_broken_files_are_one_error(tmp_path: Path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[gate\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_document(broken)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[scope]\nin_scope = ["caf\xe9"]\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_settings(latin)
    with pytest.raises(ConfigError, match="not a table"):
        table({"gate": 3}, "gate", "thresholds")
    assert read_document(tmp_path / "absent.toml") == {}


def test_precedence_option_then_variable_then_working_folder(tmp_path, monkeypatch):
    """As the README says: --config, else $LASTWORD_CONFIG, else ./lastword.toml."""
    monkeypatch.chdir(tmp_path)
    local, named, option = (tmp_path / n for n in ("lastword.toml", "env.toml", "opt.toml"))
    for path, k in ((local, 3), (named, 4), (option, 5)):
        path.write_text(f"[retrieve]\nk = {k}\n")
    monkeypatch.delenv("LASTWORD_CONFIG", raising=False)
    assert load_settings().retrieve.k == 3
    monkeypatch.setenv("LASTWORD_CONFIG", str(named))
    assert resolve_config_path(None) == named and load_settings().retrieve.k == 4
    assert load_settings(option).retrieve.k == 5
    monkeypatch.setenv("LASTWORD_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="not found"):
        load_settings()
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "`--config FILE`, `$LASTWORD_CONFIG`, `./lastword.toml` if present" in readme
