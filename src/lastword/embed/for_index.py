"""One rule for which embedder reads or writes an index, used by ingest, ask and the web app.

An index records the embedder that built it (name, model, dimension). Whatever the command:

- an existing index is used with its own embedder; asking for another one explicitly (the
  ``--embedder`` option, or ``embed.embedder`` set in a settings file or the environment) is an
  error, never a silent mix of two vector spaces;
- a new index gets the explicit choice, else the settings default;
- the embedder built must then describe itself exactly as the index does (same model and
  dimension: a configured ``voyage_model`` or ``openai_model`` can differ from the index's).

Before this, ``ingest`` demanded ``--embedder voyage`` for a voyage index while ``ask`` did not.
"""

from __future__ import annotations

from pathlib import Path

from lastword.embed.protocol import Embedder, EmbedderInfo
from lastword.embed.registry import make_embedder
from lastword.errors import IndexMismatchError
from lastword.settings import EmbedSettings


def explicit_choice(settings: EmbedSettings, name: str | None = None) -> str | None:
    """The embedder asked for on purpose: the option, else a configured ``embed.embedder``."""
    if name:
        return name
    return settings.embedder if "embedder" in settings.model_fields_set else None


def embedder_name_for(
    index: EmbedderInfo | None, settings: EmbedSettings, name: str | None, where: Path | str
) -> str:
    """The embedder to build for the index at ``where`` (``index`` None: a new index)."""
    explicit = explicit_choice(settings, name)
    if index is None:
        return explicit or settings.embedder
    if explicit is not None and explicit != index.name:
        raise IndexMismatchError(
            f"the index at {where} was built with {index.describe()}, but the embedder "
            f"'{explicit}' was asked for; vectors of two models cannot be compared. Leave "
            f"--embedder out (or use --embedder {index.name}), or use a new --index directory."
        )
    return index.name


def check_matches(index: EmbedderInfo, embedder: EmbedderInfo, where: Path | str) -> None:
    """An ``IndexMismatchError`` unless ``embedder`` is the one that built the index."""
    if embedder != index:
        raise IndexMismatchError(
            f"the index at {where} was built with {index.describe()}; the embedder configured "
            f"is {embedder.describe()}. Configure the same model, or rebuild the index in a "
            "new --index directory."
        )


def embedder_for_index(
    settings: EmbedSettings,
    index: EmbedderInfo | None,
    name: str | None = None,
    where: Path | str = "this path",
) -> Embedder:
    """Build the embedder for the index (``index`` None: a new one) and check it fits."""
    embedder = make_embedder(settings, embedder_name_for(index, settings, name, where))
    if index is not None:
        check_matches(index, embedder.info, where)
    return embedder
