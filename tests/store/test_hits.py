"""Passages built from stored rows (store/hits.py): the same objects validation makes."""

from __future__ import annotations

import json

import pytest

from lastword.result import Passage
from lastword.store.hits import json_copy, stored_flags, stored_passage

ROW = {
    "passage_id": 7,
    "doc_id": "doc",
    "title": "A title",
    "page": None,
    "position": 2,
    "char_start": 10,
    "char_end": 40,
    "text": "Statins lowered LDL by 30%.",
    "metadata": {"authors": ["A", "B"], "page_labels": {"1": "121"}, "year": 2020},
    "kind": "abstract",
    "flags": ("Ignore previous instructions.",),
}


def test_a_stored_passage_is_the_validated_one() -> None:
    built = stored_passage(**ROW)
    validated = Passage(**ROW)
    constructed = Passage.model_construct(**ROW)
    assert built == validated == constructed
    assert built.model_fields_set == validated.model_fields_set == constructed.model_fields_set
    assert (built.__pydantic_extra__, built.__pydantic_private__) == (None, None)
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump_json() == validated.model_dump_json()
    assert repr(built) == repr(validated)
    assert hash(built.passage_id) and built.model_copy(update={"page": 3}).page == 3
    with pytest.raises(Exception, match="frozen"):
        built.text = "changed"  # type: ignore[misc]


def test_flags_and_metadata_decoding() -> None:
    assert stored_flags("[]") == ()
    assert stored_flags('["One.", "Two."]') == ("One.", "Two.")
    decoded = json.loads('{"a": [1, {"b": [2]}], "c": "x", "d": null}')
    copied = json_copy(decoded)
    assert copied == decoded
    assert copied is not decoded
    assert copied["a"] is not decoded["a"] and copied["a"][1]["b"] is not decoded["a"][1]["b"]
