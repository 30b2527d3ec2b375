"""What a careless operator met on the command line (issue 16): one clear error each."""

from __future__ import annotations

import os

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
