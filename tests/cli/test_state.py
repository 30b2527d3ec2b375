"""State in one place (issue 16): accounts, keys, master key, search log and uploads live in the
folder ``[state]`` chooses, the same from any working folder; an old ./.lastword is pointed at."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from lastword.settings import Settings
from lastword.statedir import state_dir


def in_folder(cli, monkeypatch, folder: Path, *args, stdin: str = ""):
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return cli(*args)


def test_an_account_made_in_one_folder_is_there_from_another(cli, tmp_path, monkeypatch):
    made = in_folder(cli, monkeypatch, tmp_path / "a", "users", "add", "ana", stdin="s3cret-pass\n")
    assert made.code == 0, made
    listed = in_folder(cli, monkeypatch, tmp_path / "b" / "deeper", "users", "list")
    assert listed.code == 0 and "ana" in listed.out, listed
    assert not (tmp_path / "a" / ".lastword").exists()  # nothing in the working folder
    data_home = Path(__import__("os").environ["XDG_DATA_HOME"])
    assert (data_home / "lastword" / "accounts.sqlite").is_file()


def test_settings_shows_the_state_folder(cli, tmp_path, monkeypatch):
    shown = in_folder(cli, monkeypatch, tmp_path, "settings")
    assert shown.code == 0
    first = shown.out.splitlines()[0]
    assert first.startswith("# state folder") and first.endswith(str(state_dir(Settings())))
    assert '[state]\nlocation = "user"' in shown.out

    monkeypatch.setenv("LASTWORD_STATE__LOCATION", "index")
    monkeypatch.setenv("LASTWORD_INDEX__PATH", str(tmp_path / "lab" / "index"))
    beside = in_folder(cli, monkeypatch, tmp_path / "elsewhere", "settings")
    assert beside.out.splitlines()[0].endswith(str(tmp_path / "lab" / ".lastword"))


def test_an_old_dot_lastword_is_pointed_at_and_migrated(cli, tmp_path, monkeypatch):
    old = tmp_path / "project" / ".lastword"
    old.mkdir(parents=True)
    (old / "keys.json").write_text("{}")
    (old / "master.key").write_text("x")
    (old / "corpus").mkdir()
    (old / "corpus" / "paper.txt").write_text("an upload")

    noted = in_folder(cli, monkeypatch, tmp_path / "project", "keys", "status")
    assert "./.lastword holds keys.json, master.key, corpus" in noted.err, noted
    assert "lastword state migrate" in noted.err

    moved = cli("state", "migrate")
    assert moved.code == 0, moved
    target = state_dir(Settings())
    assert (target / "corpus" / "paper.txt").read_text() == "an upload"
    assert (target / "keys.json").is_file() and not (old / "keys.json").exists()
    quiet = cli("state", "show")
    assert "note:" not in quiet.err and "keys.json" in quiet.out and str(target) in quiet.out
