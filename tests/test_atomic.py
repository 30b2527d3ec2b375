"""Whole-file replacement (``lastword.atomic.replacing``), used for every file lastword rewrites."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lastword.atomic import replacing


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_gets_the_umask_default_and_an_old_one_keeps_its_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "results.json"
        with replacing(fresh) as handle:
            handle.write("{}\n")
        assert fresh.read_text() == "{}\n"
        assert mode(fresh) == 0o644  # what open(path, "w") would give, not mkstemp's 0o600
        fresh.chmod(0o640)
        with replacing(fresh, binary=True) as handle:
            handle.write(b"[]\n")
        assert fresh.read_bytes() == b"[]\n" and mode(fresh) == 0o640
    finally:
        os.umask(umask)


def test_an_error_part_way_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), replacing(path, prefix=".tmp-") as handle:
        handle.write("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["set.jsonl"]
