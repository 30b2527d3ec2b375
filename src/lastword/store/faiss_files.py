"""faiss at the store's edge: importing it (an optional extra) and reading its index files.

Two approximate searches are faiss indexes kept beside the matrix: inverted lists of 4-bit
codes (``ivfpq``) and the hnswlib graph walked over codes of its rows (``graph_codes``). Both
import faiss only when the setting that needs it is on, and read their file the same way: a
missing or unreadable file is no index (the store searches another way and the next writer
writes it again), never an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lastword.errors import ConfigError


def faiss_module(setting: str, instead: str) -> Any:
    """The faiss module; a ConfigError naming ``setting`` and what to set ``instead`` when the
    faiss extra is not installed."""
    try:
        import faiss
    except ImportError:
        raise ConfigError(
            f"[store] {setting} needs faiss: pip install 'lastword[faiss]' ({instead})"
        ) from None
    return faiss


def read_index(faiss: Any, target: Path) -> Any | None:
    """The faiss index saved at ``target``, or None when it is missing or unreadable."""
    if not target.is_file():
        return None
    try:
        return faiss.read_index(str(target))
    except RuntimeError:
        return None
