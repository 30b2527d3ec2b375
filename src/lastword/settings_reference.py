"""The settings reference, generated from the settings model itself (docs/settings.md).

A test regenerates it and compares, so the documentation cannot fall behind the code.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from lastword.settings import Settings


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: Any = field.default_factory()  # type: ignore[call-arg]
    else:
        value = field.default
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    elif isinstance(value, dict):
        value = {
            k: v.model_dump(mode="json", exclude_none=True) if isinstance(v, BaseModel) else v
            for k, v in value.items()
        }
    return json.dumps(value, default=str)


def _type_name(field: FieldInfo) -> str:
    annotation = field.annotation
    if isinstance(annotation, type):
        return annotation.__name__
    return (
        str(annotation)
        .replace("typing.", "")
        .replace("pathlib.", "")
        .replace("lastword.settings.", "")
    )


def settings_reference() -> str:
    lines = [
        "# Settings reference",
        "",
        "Generated from `lastword.settings` by `lastword settings --reference`; do not edit.",
        "Each key can be set in the TOML file under its `[section]`, or in the environment as",
        "`LASTWORD_<SECTION>__<KEY>` (e.g. `LASTWORD_GENERATE__TIMEOUT_S=30`).",
        "",
    ]
    for section_name, section_field in Settings.model_fields.items():
        model = section_field.default_factory  # each section is a model class
        assert isinstance(model, type) and issubclass(model, BaseModel)
        lines += [f"## [{section_name}]", ""]
        if model.__doc__ and not model.__doc__.startswith("!!!"):
            lines += [model.__doc__.strip().splitlines()[0], ""]
        if not model.model_fields:
            lines += ["(no settings yet)", ""]
            continue
        lines += ["| key | type | default | description |", "|---|---|---|---|"]
        for name, field in model.model_fields.items():
            description = (field.description or "").replace("|", "\\|")
            default = _default(field).replace("|", "\\|")
            kind = _type_name(field).replace("|", "\\|")
            lines.append(f"| `{name}` | `{kind}` | `{default}` | {description} |")
        lines.append("")
    return "\n".join(lines)
