"""Whole-file replacement: the one way lastword rewrites a file it owns.

A file appears under its final name only complete: written beside it under a temporary name,
fsynced, then renamed over it. A crash or an error part-way leaves the old file as it was (a
killed process may leave the temporary file; the index removes its own on the next write).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def replacing(path: Path, *, binary: bool = False, prefix: str = ".") -> Iterator[IO[Any]]:
    """A handle (text, or bytes with ``binary``) whose contents replace ``path`` when the block
    ends without an error. The temporary file's name starts with ``prefix``.

    The file gets the mode writing it in place would give: an existing file keeps its mode, a
    new one gets the umask's default (``tempfile.mkstemp`` would make every file owner-only).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{prefix}{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as handle:
            if path.exists():
                os.fchmod(handle.fileno(), stat.S_IMODE(path.stat().st_mode))
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
