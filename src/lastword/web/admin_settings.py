"""The settings the Admin page edits, written to the TOML settings file.

A change is validated by the ``Settings`` model before anything is written; the file is then
replaced atomically (comments are not kept: ``tomllib`` reads values only) and the server's
Pipeline is rebuilt with the new values on the same loaded model.
"""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lastword.atomic import replacing
from lastword.errors import ConfigError
from lastword.settings import ChatSettings, Settings, describe_validation_error

#: the persona's lines (failure and refusal lines) editable on the page, in model order
LINE_FIELDS = tuple(
    name for name in ChatSettings.model_fields if name.endswith("_line") or name == "number_warning"
)


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_document(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def _table(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    table = document
    for key in keys:
        table = table.setdefault(key, {})
        if not isinstance(table, dict):
            raise ConfigError(f"'{'.'.join(keys)}' in the settings file is not a table")
    return table


def apply_form(
    current: Settings, path: Path, embedder: str, form: dict[str, str], who: str
) -> Settings:
    """Validate the form against the model, write the file, return the effective settings."""
    document = read_document(path)
    try:
        strong, weak = float(form["strong"]), float(form["weak"])
    except (KeyError, ValueError):
        raise ConfigError("thresholds must be numbers, e.g. 0.60 and 0.45") from None
    date = datetime.now(UTC).date().isoformat()
    existing = current.gate.thresholds.get(embedder)
    kept = existing.model_dump(mode="json", exclude_none=True) if existing else {}
    # Keep whatever else the thresholds carry (e.g. which gate model they belong to).
    _table(document, "gate", "thresholds")[embedder] = {
        **kept,
        "strong": strong,
        "weak": weak,
        "evidence": f"set on the admin page by {who} on {date}",
    }
    scope = _table(document, "scope")
    scope["in_scope"] = lines(form.get("in_scope", ""))
    scope["out_of_scope"] = lines(form.get("out_of_scope", ""))
    chat = _table(document, "chat")
    chat["persona_name"] = form.get("persona_name", "").strip()
    chat["persona_tone"] = form.get("persona_tone", "").strip()
    chat["trigger_phrases"] = lines(form.get("trigger_phrases", ""))
    for name in LINE_FIELDS:
        if name in form:
            chat[name] = form[name].strip()
    try:
        validated = Settings(**document)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, path)) from None
    write_document(path, document)
    return current.model_copy(
        update={"gate": validated.gate, "scope": validated.scope, "chat": validated.chat}
    )


def write_document(path: Path, document: dict[str, Any]) -> None:
    import tomli_w

    with replacing(path) as handle:
        handle.write(tomli_w.dumps(document))
