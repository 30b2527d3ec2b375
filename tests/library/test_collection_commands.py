"""``lastword collection add|remove|list|readers`` and the filter options of ``ask`` and
``inspect``, through the real entry point over a copy of the demo index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lastword.scope import make_scope
from lastword.settings import StoreSettings
from lastword.store import open_store


@pytest.fixture
def index(demo_index: Path, tmp_path: Path) -> Path:
    target = tmp_path / "index"
    shutil.copytree(demo_index, target, ignore=shutil.ignore_patterns("index.lock"))
    return target


def _names(index: Path) -> list[str]:
    with open_store(StoreSettings(), index) as store:
        return sorted(str(r.metadata.get("path") or r.doc_id) for r in store.documents())


def test_collections_from_the_command_line(cli, index: Path):
    names = _names(index)
    first, second = names[0], names[1]
    added = cli("collection", "add", "Trials", first, second, "--index", index)
    assert added.code == 0, added.err
    assert "2 document(s) added to Trials" in added.out
    readers = cli(
        "collection", "readers", "Trials", "--add", "ana", "--add", "group:lab", "--index", index
    )
    assert readers.code == 0, readers.err
    assert "group:lab, user:ana" in readers.out
    listed = cli("collection", "list", "--index", index)
    assert "Trials" in listed.out and "2" in listed.out and "user:ana" in listed.out
    removed = cli("collection", "remove", "Trials", first, "--index", index)
    assert removed.code == 0 and "1 document(s) taken out of Trials" in removed.out
    with open_store(StoreSettings(), index) as store:
        assert [(c.name, c.documents) for c in store.collections()] == [("Trials", 1)]
    gone = cli("collection", "remove", "Trials", "--index", index)
    assert gone.code == 0 and "collection Trials deleted" in gone.out
    assert "no collections yet" in cli("collection", "list", "--index", index).out


def test_bad_collection_input_is_one_clear_error(cli, index: Path):
    missing = cli("collection", "add", "Trials", "no-such-paper.pdf", "--index", index)
    assert missing.code != 0 and "no document named 'no-such-paper.pdf'" in missing.err
    reader = cli("collection", "readers", "Nope", "--add", "user:ana", "--index", index)
    assert reader.code != 0 and "no collection named 'Nope'" in reader.err
    bad = cli("collection", "readers", "Nope", "--add", "team:x y", "--index", index)
    assert bad.code != 0 and "not a reader" in bad.err
    with open_store(StoreSettings(), index) as store:
        assert store.collections() == []


def test_inspect_and_ask_take_filters(cli, index: Path):
    names = _names(index)
    assert cli("collection", "add", "One", names[0], "--index", index).code == 0
    found = cli("inspect", "what did the trial find", "--index", index, "-C", "One", "--json")
    assert found.code == 0, found.err
    docs = {p["doc_id"] for p in json.loads(found.out)["passages"]}
    with open_store(StoreSettings(), index) as store:
        allowed = set(store.scope_documents(make_scope(collections=["One"])))
    assert docs and docs <= allowed
    unknown = cli("ask", "what did the trial find", "--index", index, "--collection", "Nope")
    assert (
        unknown.code != 0 and "no collection named Nope in this index (it has: One)" in unknown.err
    )
    years = cli("ask", "what did the trial find", "--index", index, "--year", "2024..2020")
    assert years.code != 0 and "not a year range" in years.err
    nothing = cli(
        "ask", "what did the trial find", "--index", index, "--year", "1700..1701", "--json"
    )
    assert nothing.code == 0, nothing.err
    refused = json.loads(nothing.out)
    assert refused["status"] == "refused" and not refused["passages"]
