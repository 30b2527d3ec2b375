"""Whole passages on top of ids and scores: the part of searching every store shares.

A store answers ``search_ids`` and ``search_lexical_ids`` (ids and scores, best first) and
``passages_by_id``; ``search`` and ``search_lexical`` are those searches with the passages
built, the same on every backend. Mixed into ``LocalSearch`` and ``PostgresSearch``.

``stored_passage`` builds a ``Passage`` from a stored row without validating it again (the
row was validated when it was written): at 1M passages building the 8 passages of a search
cost more than the SQL that read them (``docs/scale.md``).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import numpy as np

from lastword.result import Passage
from lastword.scope import Scope
from lastword.store.protocol import Hit

_set = object.__setattr__
_FIELDS = tuple(Passage.model_fields)
#: Passage has nothing ``model_construct`` does beyond setting these four attributes (no
#: private attributes, no post-init hook, no extra fields kept): set them directly, 3x faster
_PLAIN = (
    not Passage.__pydantic_post_init__
    and not Passage.__private_attributes__
    and Passage.model_config.get("extra") != "allow"
    and _FIELDS
    == (
        "passage_id",
        "doc_id",
        "title",
        "page",
        "position",
        "char_start",
        "char_end",
        "text",
        "metadata",
        "kind",
        "flags",
    )
)


def stored_passage(
    passage_id: int,
    doc_id: str,
    title: str,
    page: int | None,
    position: int,
    char_start: int,
    char_end: int,
    text: str,
    metadata: dict[str, Any],
    kind: str,
    flags: tuple[str, ...],
) -> Passage:
    """A stored row as a Passage, as ``Passage.model_construct`` makes it (every field set,
    nothing validated), without its per-field loop."""
    values = {
        "passage_id": passage_id,
        "doc_id": doc_id,
        "title": title,
        "page": page,
        "position": position,
        "char_start": char_start,
        "char_end": char_end,
        "text": text,
        "metadata": metadata,
        "kind": kind,
        "flags": flags,
    }
    if not _PLAIN:  # pragma: no cover - a Passage that grew private state or a hook
        return Passage.model_construct(**values)
    passage = Passage.__new__(Passage)
    _set(passage, "__dict__", values)
    _set(passage, "__pydantic_fields_set__", set(_FIELDS))
    _set(passage, "__pydantic_extra__", None)
    _set(passage, "__pydantic_private__", None)
    return passage


def stored_flags(text: str) -> tuple[str, ...]:
    """A passage's flags column (a JSON list) as a tuple; nearly every passage has none."""
    return () if text == "[]" else tuple(json.loads(text))


def json_copy(value: Any) -> Any:
    """A copy of a decoded JSON value (dicts and lists copied, the rest immutable), so each
    passage gets its own metadata from one decoding per document: half json.loads's cost."""
    kind = type(value)
    if kind is dict:
        return {key: json_copy(item) for key, item in value.items()}
    if kind is list:
        return [json_copy(item) for item in value]
    return value


class HitsFromIds:
    """``search`` and ``search_lexical`` from the store's id searches and ``passages_by_id``."""

    def search(
        self,
        query: np.ndarray,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k passages by cosine to a unit-norm query vector, best first: the ids and their
        passages within one ``reading`` (the local store reads its generation once)."""
        with self.reading():  # type: ignore[attr-defined]
            found = self.search_ids(query, k, exclude_doc_ids, kinds, scope)  # type: ignore[attr-defined]
            return self._hits(*found)

    def search_lexical(
        self,
        text: str,
        k: int,
        exclude_doc_ids: Collection[str] = (),
        kinds: Collection[str] | None = None,
        scope: Scope | None = None,
    ) -> list[Hit]:
        """Top-k passages by the backend's lexical score (higher is better), best first, within
        one ``reading``."""
        with self.reading():  # type: ignore[attr-defined]
            found = self.search_lexical_ids(text, k, exclude_doc_ids, kinds, scope)  # type: ignore[attr-defined]
            return self._hits(*found)

    def _hits(self, ids: np.ndarray, scores: np.ndarray) -> list[Hit]:
        wanted = ids.tolist()
        passages = self.passages_by_id(wanted)  # type: ignore[attr-defined]
        return [
            Hit(passage=passages[pid], score=score)
            for pid, score in zip(wanted, scores.tolist(), strict=True)
        ]
