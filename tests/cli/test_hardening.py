"""What a careless operator met on the command line (issue 16): one clear error each."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.ingest.test_symlinks import TEXT


def test_the_cli_reports_a_broken_link_and_goes_on(cli, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "zinc.txt").write_text(TEXT, encoding="utf-8")
    os.symlink(tmp_path / "missing.txt", folder / "broken.txt")
    outcome = cli("ingest", folder, "--index", tmp_path / "index")
    assert outcome.code == 1, outcome  # one file failed: the exit code says so
    assert "added: 1" in outcome.out and "broken.txt" in outcome.err
    assert "Traceback" not in outcome.err and "AssertionError" not in outcome.err


def test_an_argument_that_is_not_utf8_is_one_clear_error(cli, tmp_path):
    # what Python makes of `lastword ask $'zinc \xff trial'`: the byte as a lone surrogate
    argument = b"zinc \xff trial".decode("utf-8", "surrogateescape")
    for command in (("ask", argument), ("inspect", argument), ("ingest", tmp_path / argument)):
        outcome = cli(*command, "--index", tmp_path / "index")
        assert outcome.code == 2, outcome
        assert "not valid Unicode" in outcome.err and "zinc \\xff trial" in outcome.err
        assert "Traceback" not in outcome.err
    assert not (tmp_path / "index").exists()  # nothing was done


def test_a_question_with_a_lone_surrogate_is_bad_input(demo_index):
    from lastword.errors import InputError
    from lastword.pipeline import Pipeline
    from lastword.settings import Settings

    with Pipeline.open(Settings(), demo_index) as pipeline:
        with pytest.raises(InputError, match="the question is not valid Unicode"):
            pipeline.ask("zinc \ud800 trial")
        with pytest.raises(InputError, match="not valid Unicode"):
            pipeline.inspect("zinc \udcff trial")


def test_files_with_invalid_unicode_are_one_error_each(cli, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "records.jsonl").write_text(
        '{"id": "bad", "text": "zinc \\ud800 trial"}\n{"id": "good", "text": "' + TEXT + '"}\n',
        encoding="utf-8",
    )
    bad_name = os.fsdecode(os.fsencode(folder) + b"/bad\xff.txt")
    with open(os.fsencode(bad_name), "w", encoding="utf-8") as handle:
        handle.write(TEXT)
    outcome = cli("ingest", folder, "--index", tmp_path / "index")
    assert outcome.code == 1, outcome
    assert "records.jsonl:1: a string is not valid Unicode" in outcome.err
    assert "bad\\xff.txt: the file name is not valid UTF-8" in outcome.err
    assert "added: 1" in outcome.out and "Traceback" not in outcome.err


def test_a_key_that_is_not_utf8_on_stdin_is_one_error(tmp_path):
    env = {**os.environ, "LASTWORD_STATE__DIR": str(tmp_path / "state")}
    process = subprocess.run(
        [sys.executable, "-c", "from lastword.cli import main; main()", "keys", "set", "brave"],
        input=b"\xff\xfe-not-a-key\n",
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    err = process.stderr.decode("utf-8", "replace")
    assert process.returncode == 2, err
    assert "not valid" in err and "Traceback" not in err
    assert not (tmp_path / "state" / "keys.json").exists()
