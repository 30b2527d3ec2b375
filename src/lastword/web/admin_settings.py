"""The settings the Admin page edits, written to the TOML settings file.

A change is validated by the ``Settings`` model before anything is written; the file is then
replaced atomically by ``lastword.settings_file.patch`` (comments are not kept) and the server's
Pipeline is rebuilt with the new values on the same loaded model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lastword import settings_file
from lastword.errors import ConfigError
from lastword.settings import ChatSettings, Settings, Thresholds
from lastword.settings_file import table

#: the persona's lines (failure and refusal lines) editable on the page, in model order
LINE_FIELDS = tuple(
    name for name in ChatSettings.model_fields if name.endswith("_line") or name == "number_warning"
)


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def apply_form(
    current: Settings, path: Path, embedder: str, form: dict[str, str], who: str
) -> Settings:
    """Validate the form against the model, write the file, return the effective settings."""
    try:
        strong, weak = float(form["strong"]), float(form["weak"])
    except (KeyError, ValueError):
        raise ConfigError("thresholds must be numbers, e.g. 0.60 and 0.45") from None
    validated = settings_file.patch(
        path, lambda document: _apply(document, current, embedder, form, who, (strong, weak))
    )
    return current.model_copy(
        update={"gate": validated.gate, "scope": validated.scope, "chat": validated.chat}
    )


def shown_thresholds(settings: Settings, embedder: str) -> Thresholds | None:
    """The thresholds the gate uses for ``embedder`` under the configured ranking; None if none."""
    try:
        return settings.thresholds_for(embedder)
    except ConfigError:
        return None


def _apply(
    document: dict[str, Any],
    current: Settings,
    embedder: str,
    form: dict[str, str],
    who: str,
    bands: tuple[float, float],
) -> None:
    strong, weak = bands
    date = datetime.now(UTC).date().isoformat()
    # The thresholds in use for the ranking in use (hybrid has its own model), not the table's.
    existing = shown_thresholds(current, embedder)
    kept = existing.model_dump(mode="json", exclude_none=True) if existing else {}
    # Keep whatever else the thresholds carry (e.g. which gate model they belong to).
    table(document, "gate", "thresholds")[embedder] = {
        **kept,
        "strong": strong,
        "weak": weak,
        "evidence": f"set on the admin page by {who} on {date}",
    }
    scope = table(document, "scope")
    scope["in_scope"] = lines(form.get("in_scope", ""))
    scope["out_of_scope"] = lines(form.get("out_of_scope", ""))
    chat = table(document, "chat")
    chat["persona_name"] = form.get("persona_name", "").strip()
    chat["persona_tone"] = form.get("persona_tone", "").strip()
    chat["trigger_phrases"] = lines(form.get("trigger_phrases", ""))
    for name in LINE_FIELDS:
        if name in form:
            chat[name] = form[name].strip()
