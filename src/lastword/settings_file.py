"""The one place that reads, patches and writes a TOML settings file.

``load_settings`` reads through ``read_document``; ``lastword eval calibrate --write`` and the
Admin page change a file through ``patch``: read it (an absent file is empty), change the
document, validate the whole of it with the ``Settings`` model, and only then replace the file
whole (``lastword.atomic``). A change the model refuses writes nothing. Comments are not kept:
``tomllib`` reads values only.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lastword.atomic import replacing
from lastword.errors import ConfigError

Document = dict[str, Any]


def read_document(path: Path, *, missing_ok: bool = True) -> Document:
    """The file's TOML as a dict; {} for an absent file (when ``missing_ok``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise ConfigError(f"settings file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: not UTF-8 text ({exc.reason})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def table(document: Document, *keys: str) -> Document:
    """The nested table ``document[keys[0]][keys[1]]...``, made when absent."""
    current = document
    for key in keys:
        current = current.setdefault(key, {})
        if not isinstance(current, dict):
            raise ConfigError(f"'{'.'.join(keys)}' in the settings file is not a table")
    return current


def write_document(path: Path, document: Document) -> None:
    """Replace the file whole with ``document`` as TOML."""
    import tomli_w

    with replacing(path) as handle:
        handle.write(tomli_w.dumps(document))


def patch(path: Path, change: Callable[[Document], None]) -> Any:
    """Read ``path``, apply ``change`` to its document, validate, write; the validated Settings."""
    from lastword.settings import Settings, describe_validation_error

    document = read_document(path)
    change(document)
    try:
        validated = Settings(**document)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, path)) from None
    write_document(path, document)
    return validated
