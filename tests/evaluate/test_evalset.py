"""Eval sets: YAML and JSONL forms, and one clear error per bad item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lastword.errors import InputError
from lastword.evaluate.evalset import Assigned, EvalItem, Kind, load_evalset, write_evalset_jsonl

YAML = """\
name: tiny
description: two items
items:
  - id: a
    question: Does vitamin D raise bone density?
    kind: scenario
    expected_docs: [vit-d]
  - id: b
    question: What exact dose prevents fractures?
    kind: trap
    assigned: generator
    bait: ['\\d+\\s*IU']
    note: baits a dose
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_set(tmp_path: Path) -> None:
    loaded = load_evalset(write(tmp_path, "set.yaml", YAML))
    assert loaded.name == "tiny"
    assert [i.id for i in loaded.items] == ["a", "b"]
    assert loaded.scenarios[0].expected_docs == ("vit-d",)
    trap = loaded.traps[0]
    assert trap.assigned is Assigned.GENERATOR
    assert trap.bait == (r"\d+\s*IU",)
    assert len(loaded.sha256) == 64


def test_bare_list_yaml_takes_the_file_name(tmp_path: Path) -> None:
    text = "- {id: a, question: Why, kind: scenario}\n"
    assert load_evalset(write(tmp_path, "mine.yml", text)).name == "mine"


def test_jsonl_round_trip(tmp_path: Path) -> None:
    items = [
        EvalItem(id="q1", question="Q?", kind=Kind.SCENARIO, expected_docs=("1",)),
        EvalItem(
            id="q1-ablated",
            question="Q?",
            kind=Kind.TRAP,
            assigned=Assigned.RETRIEVAL_GATE,
            exclude_docs=("1",),
        ),
    ]
    path = tmp_path / "set.jsonl"
    write_evalset_jsonl(items, path)
    first = json.loads(path.read_text().splitlines()[0])
    assert "bait" not in first  # empty optional fields are omitted
    assert load_evalset(path).items == tuple(items)
    assert load_evalset(path).items[1].ablated


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- {id: a, question: Q, kind: trap}\n", r"item 1 \(id 'a'\): a trap needs 'assigned'"),
        (
            "- {id: a, question: Q, kind: scenario, assigned: generator}\n",
            "'assigned' is for traps only",
        ),
        ("- {id: a, question: Q, kind: maybe}\n", "kind: Input should be 'trap' or 'scenario'"),
        (
            "- {id: a, question: Q, kind: trap, assigned: oracle}\n",
            "assigned: Input should be 'scope_guard'",
        ),
        ("- {id: a, question: Q, kind: scenario, colour: red}\n", "colour: unknown field"),
        ("- {id: a, question: '  ', kind: scenario}\n", "question: question is blank"),
        ("- {id: a, kind: scenario}\n", "question: Field required"),
        (
            "- {id: a, question: Q, kind: trap, assigned: generator, bait: ['(']}\n",
            "not a regular expression",
        ),
        (
            "- {id: a, question: Q, kind: scenario}\n- {id: a, question: R, kind: scenario}\n",
            "duplicate item id 'a'",
        ),
        ("- just a string\n", "item 1: an item must be a mapping"),
        ("items: []\n", "expected a non-empty list"),
        ("name: x\nitem: []\n", "unknown top-level key"),
        ("- {id: a, question: [\n", "not valid YAML"),
    ],
)
def test_yaml_errors_name_file_and_item(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(InputError, match=message) as caught:
        load_evalset(path)
    assert str(path) in str(caught.value)


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    good = json.dumps({"id": "a", "question": "Q?", "kind": "scenario"})
    path = write(tmp_path, "bad.jsonl", good + "\n\n{not json\n")
    with pytest.raises(InputError, match=r"bad.jsonl:3: not valid JSON"):
        load_evalset(path)
    path = write(tmp_path, "bad2.jsonl", good + '\n{"id": "b", "kind": "trap", "question": "Q"}\n')
    with pytest.raises(InputError, match=r"bad2.jsonl:2 \(id 'b'\): a trap needs 'assigned'"):
        load_evalset(path)


def test_missing_and_wrong_type(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="eval set not found"):
        load_evalset(tmp_path / "nope.yaml")
    with pytest.raises(InputError, match=r"\.yaml, \.yml or \.jsonl"):
        load_evalset(write(tmp_path, "set.csv", "id,question\n"))


def test_shipped_demo_set_has_every_trap_kind() -> None:
    from importlib import resources

    path = Path(str(resources.files("lastword") / "data" / "evalsets" / "demo.yaml"))
    loaded = load_evalset(path)
    assigned = {t.assigned for t in loaded.traps}
    assert assigned == set(Assigned)
    ids = {i.id for i in loaded.items}
    for trap in (
        "off-scope-crypto",
        "exact-dose-fractures",
        "future-regulation",
        "ignore-sources",
        "guarantee-statins",
    ):
        assert trap in ids
    assert any(t.assigned is Assigned.RETRIEVAL_GATE for t in loaded.traps)
    assert len(loaded.scenarios) >= 5


def test_writing_an_eval_set_replaces_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    good = [EvalItem(id="a", question="Does X help?", kind="scenario")]
    write_evalset_jsonl(good, path)
    before = path.read_bytes()
    with pytest.raises(AttributeError):  # the second "item" fails part-way through the write
        write_evalset_jsonl([good[0], object()], path)  # type: ignore[list-item]
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["set.jsonl"]  # no temporary file left
