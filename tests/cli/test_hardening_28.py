"""Issue 28's command-line rows, each tried as the attacker or the careless operator did: the
real ``lastword`` in its own process, its output read as a terminal would get it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import lastword
from tests.ingest.crafted_pdfs import dense_cells, flate_bomb, one_row
from tests.ingest.test_symlinks import TEXT

SRC = str(Path(lastword.__file__).resolve().parents[1])


@dataclass
class Ran:
    code: int
    out: str
    err: str
    seconds: float


def run_cli(*args: object, cwd: Path, env: dict[str, str] | None = None, stdin: str = "") -> Ran:
    """``lastword ARGS`` in its own process, from ``cwd``, with its state folder there."""
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LASTWORD_")},
        "PYTHONPATH": SRC,
        "COLUMNS": "200",
        "LASTWORD_STATE__DIR": str(cwd / "state"),
        **(env or {}),
    }
    command = [sys.executable, "-c", "from lastword.cli import main; main()", *map(str, args)]
    started = time.monotonic()
    done = subprocess.run(
        command,
        cwd=cwd,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return Ran(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


# ---------------------------------------------------------------- row 11: terminal escapes
ESCAPES = ("\x1b[2J", "\x1b[31m", "\x1b]0;owned\x07", "\x9b", "\u202e")


def test_file_names_and_ids_with_terminal_escapes_never_reach_the_terminal(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "\x1b[2J\x1b]0;owned\x07clear.txt").write_text(TEXT, encoding="utf-8")
    (folder / "\x1b[31mbroken\u202e.pdf").write_bytes(b"%PDF-1.4 not really")
    record = {"id": "\x1b[31mred\x1b[0m-record", "text": TEXT}
    (folder / "records.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    ran = run_cli("ingest", folder, "--index", tmp_path / "index", cwd=tmp_path)
    assert ran.code == 1, ran  # the broken PDF failed
    shown = ran.out + ran.err
    for escape in ESCAPES:
        assert escape not in shown, (escape, shown)
    # The names are still there to read, without their control characters.
    assert "added: 2" in ran.out and "clear.txt" in ran.out and "red[0m-record" in ran.out
    assert "failed:" in ran.err and "broken" in ran.err and "Traceback" not in ran.err


# ---------------------------------------------------------------- row 12: internal keys
def test_jsonl_records_giving_internal_metadata_keys_are_kept_apart(tmp_path):
    lines = [
        {"id": f"record-{n}", "text": f"{TEXT} Record {n}.", "metadata": {"paths": ["same.pdf"]}}
        for n in range(4)
    ]
    lines[1]["metadata"]["path"] = "/etc/passwd"
    (tmp_path / "records.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8"
    )
    index = tmp_path / "index"
    ran = run_cli("ingest", tmp_path / "records.jsonl", "--index", index, cwd=tmp_path)
    assert ran.code == 0, ran
    assert "added: 4" in ran.out, ran.out  # before: 4 records in, 1 kept
    warnings = [line for line in ran.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 4 and all("reserved" in w and "ignored" in w for w in warnings)
    assert '"path", "paths"' in ran.err  # the record that gave both
    with sqlite3.connect(index / "index.sqlite") as db:
        rows = db.execute("SELECT doc_id, metadata FROM documents ORDER BY doc_id").fetchall()
    assert [doc_id for doc_id, _ in rows] == [f"record-{n}" for n in range(4)]
    for _, metadata in rows:
        assert json.loads(metadata)["path"] == "records.jsonl"  # ingest's own record


# ---------------------------------------------------------------- row 5: crafted PDFs
def test_crafted_pdfs_are_read_quickly_or_refused_in_one_line_each(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "dense.pdf").write_bytes(dense_cells(20_000))  # > 240 s before
    (folder / "row.pdf").write_bytes(one_row(10_000))
    (folder / "bomb.pdf").write_bytes(flate_bomb(40))  # ~700 MB RSS before
    (folder / "notes.txt").write_text(TEXT, encoding="utf-8")
    config = tmp_path / "lastword.toml"
    config.write_text("[ingest]\nmax_page_chars = 30000\n")
    (folder / "over.pdf").write_bytes(dense_cells(26_000))  # PDFium counts 32,679 on its page
    ran = run_cli("--config", config, "ingest", folder, "--index", tmp_path / "index", cwd=tmp_path)
    print(f"\ningest of the crafted PDFs: {ran.seconds:.1f} s")
    assert ran.code == 1, ran
    assert "added: 3" in ran.out  # dense.pdf, row.pdf, notes.txt
    failed = [line for line in ran.err.splitlines() if line.startswith("failed:")]
    assert len(failed) == 2, ran.err
    assert any("bomb.pdf" in x and "[ingest] max_decoded_mb" in x for x in failed)
    assert any("over.pdf" in x and "holds 32679" in x and "max_page_chars" in x for x in failed)
    assert ran.seconds < 180  # about 5 s on an idle machine; > 330 s before


def test_a_file_over_its_time_is_one_error_and_the_rest_goes_on(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "slow.pdf").write_bytes(dense_cells(12_000))
    (folder / "notes.txt").write_text(TEXT, encoding="utf-8")
    config = tmp_path / "lastword.toml"
    config.write_text("[ingest]\nmax_seconds_per_file = 0.01\n")
    ran = run_cli("--config", config, "ingest", folder, "--index", tmp_path / "index", cwd=tmp_path)
    assert ran.code == 1, ran
    assert "added: 1" in ran.out and "notes.txt" in ran.out
    assert "slow.pdf: reading it took longer than 0.01 s" in ran.err
    assert "max_seconds_per_file" in ran.err and "Traceback" not in ran.err


# ---------------------------------------------------------------- row 9: a second master key
def test_matrix_login_refuses_to_store_the_token_under_a_second_master_key(tmp_path):
    from cryptography.fernet import Fernet

    from tests.servers.base import LocalServer, Reply

    key = Fernet.generate_key().decode()
    stored = run_cli(
        "keys", "set", "brave", cwd=tmp_path, env={"LASTWORD_MASTER_KEY": key}, stdin="bsa-1\n"
    )
    assert stored.code == 0, stored
    assert not (tmp_path / "state" / "master.key").exists()  # the key lives elsewhere
    login = {
        ("POST", "/_matrix/client/v3/login"): lambda _: Reply(
            body={"user_id": "@bot:lab.test", "access_token": "syt_x", "device_id": "DEV"}
        )
    }
    with LocalServer(routes=login) as homeserver:
        ran = run_cli(
            "matrix",
            "login",
            "--homeserver",
            homeserver.url,
            "--user",
            "@bot:lab.test",
            cwd=tmp_path,
            stdin="bot-password\n",
        )
        logins = len(homeserver.requests)
    assert ran.code == 2, ran
    assert "another master key" in ran.err and "Nothing was stored" in ran.err
    assert "LASTWORD_MASTER_KEY" in ran.err and "Traceback" not in ran.err
    assert logins == 0  # refused before logging in: no token was made
    assert not (tmp_path / "state" / "matrix.json").exists()
    assert not (tmp_path / "state" / "master.key").exists()


# ---------------------------------------------------------------- row 15: the DSN's password
def test_settings_never_prints_the_database_password(tmp_path):
    dsn = "postgresql://lab:s3cret-Pa55@db.lab.test:5432/lastword"
    ran = run_cli("settings", cwd=tmp_path, env={"LASTWORD_STORE__DSN": dsn})
    assert ran.code == 0, ran
    assert "s3cret-Pa55" not in ran.out + ran.err
    assert 'dsn = "postgresql://lab:***@db.lab.test:5432/lastword"' in ran.out


# ---------------------------------------------------------------- row 18: passages gone
def test_index_check_reports_documents_without_passages(tmp_path, demo_index):
    index = tmp_path / "index"
    shutil.copytree(demo_index, index)
    whole = run_cli("index", "check", "--index", index, cwd=tmp_path)
    assert whole.code == 0 and "index.sqlite ok" in whole.out, whole
    with sqlite3.connect(index / "index.sqlite") as db:
        db.execute("DROP TABLE passages")
    ran = run_cli("index", "check", "--index", index, cwd=tmp_path)
    assert ran.code == 1, ran  # before: "ok (N documents, 0 passages)", exit 0
    assert "index.sqlite ok" not in ran.out
    assert (
        "documents have no passages" in ran.err and "rebuild it with 'lastword ingest'" in ran.err
    )


# ---------------------------------------------------------------- row 17: disk full
@pytest.fixture
def small_disk(tmp_path):
    """A 3 MB tmpfs: a real disk that fills up (needs root; skipped elsewhere)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_during_ingest_says_disk_full_and_nothing_was_lost(tmp_path, small_disk):
    folder = tmp_path / "papers"
    folder.mkdir()
    for n in range(4):
        (folder / f"first-{n}.txt").write_text(f"{TEXT} First batch {n}.", encoding="utf-8")
    index = small_disk / "index"
    first = run_cli("ingest", folder, "--index", index, cwd=tmp_path)
    assert first.code == 0, first
    with sqlite3.connect(index / "index.sqlite") as db:
        (before,) = db.execute("SELECT COUNT(*) FROM documents").fetchone()
    # Fill the disk, then free about 32 KB: far less than the next ingest writes.
    filler = small_disk / "filler"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    os.truncate(filler, max(0, filler.stat().st_size - 32 * 1024))
    for n in range(16):
        words = " ".join(f"w{n}x{i}" for i in range(250))
        (folder / f"more-{n:02d}.txt").write_text(f"{TEXT} {words}.", encoding="utf-8")
    ran = run_cli("ingest", folder, "--index", index, cwd=tmp_path)
    assert ran.code != 0, ran
    assert "disk full" in ran.err and "Nothing was lost" in ran.err, ran.err
    assert "damaged" not in ran.err and "Traceback" not in ran.err
    filler.unlink()
    with sqlite3.connect(index / "index.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        (after,) = db.execute("SELECT COUNT(*) FROM documents").fetchone()
    assert after >= before  # what was committed is all there
    check = run_cli("index", "check", "--index", index, cwd=tmp_path)
    assert check.code == 0, check
