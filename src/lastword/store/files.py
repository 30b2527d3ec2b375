"""Durable file writes for the derived parts of an index (matrix, ids, lexicon).

A derived file appears under its final name only whole (``lastword.atomic.replacing``), so a
reader never sees half of one, and a killed writer leaves at most a ``.tmp-*`` file behind,
which the next writer removes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from lastword.atomic import replacing

TMP_PREFIX = ".tmp-"


def write_atomically(path: Path, payload: np.ndarray | dict[str, Any]) -> None:
    """Write ``payload`` (.npy for an array, compact JSON for a dict) to ``path``, atomically."""
    with replacing(path, binary=True, prefix=TMP_PREFIX) as handle:
        if isinstance(payload, np.ndarray):
            np.save(handle, payload)
        else:
            handle.write(json.dumps(payload, separators=(",", ":")).encode())


@contextlib.contextmanager
def written_whole(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` for a writer that needs a file name (hnswlib, a memory
    map): once the block has written it, it is fsynced and renamed to ``path``; on any error
    it is removed, so ``path`` is whole or untouched."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def newest_below(directory: Path, pattern: re.Pattern[str], generation: int) -> int | None:
    """The newest generation older than ``generation`` of a derived file whose name matches
    ``pattern`` (its one group: the generation) still in ``directory``, if any."""
    found = [
        int(match.group(1))
        for path in directory.iterdir()
        if (match := pattern.match(path.name)) and int(match.group(1)) < generation
    ]
    return max(found) if found else None


def fsync_directory(directory: Path) -> None:
    """Make the renames inside ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
