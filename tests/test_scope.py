"""The Scope value every face builds: years, names, readers, chat rooms."""

from __future__ import annotations

import pytest

from lastword.errors import InputError
from lastword.scope import Reader, Scope, chat_scope, make_scope, parse_years, principal


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("2020..2024", (2020, 2024)),
        ("2020..", (2020, None)),
        ("..2024", (None, 2024)),
        ("2021", (2021, 2021)),
        (" 2019 - 2020 ", (2019, 2020)),
        ("", None),
        (None, None),
    ],
)
def test_year_ranges(text, years):
    assert parse_years(text) == years


@pytest.mark.parametrize("text", ["2024..2020", "last year", "..", "20..21", "2020...2021"])
def test_bad_year_ranges_are_one_clear_error(text):
    with pytest.raises(InputError, match="not a year range"):
        parse_years(text)


def test_scope_from_raw_input():
    scope = make_scope(collections=["A,B", " C "], authors=["kumar"], years="2020..")
    assert scope.collections == {"A", "B", "C"} and scope.authors == {"kumar"}
    assert scope.filtered and scope.restricted
    assert "the A, B, C collections" in scope.describe()
    assert not Scope(reader=Reader("x", admin=True)).restricted
    assert Scope(reader=Reader("x")).restricted and not Scope(reader=Reader("x")).filtered
    assert make_scope(collections=["A"], reader=Reader("x")).unfiltered() == Scope(
        reader=Reader("x")
    )


def test_readers_and_principals():
    reader = Reader("ana", groups=frozenset({"lab"}), room="!r:hs")
    assert reader.principals() == {"user:ana", "group:lab", "room:!r:hs"}
    assert principal("ana") == "user:ana" and principal("group:lab") == "group:lab"
    with pytest.raises(InputError, match="not a reader"):
        principal("group:two words")


def test_chat_scope_binds_rooms_and_reads_a_named_collection():
    bound = {"!a:hs": ["Salmonella"]}
    scope, question = chat_scope("!a:hs", "what was found?", bound)
    assert scope.collections == {"Salmonella"} and question == "what was found?"
    assert scope.reader is not None and scope.reader.principals() == {"user:", "room:!a:hs"}
    scope, question = chat_scope("!b:hs", "In the Poultry collection: what was fed?", bound)
    assert scope.collections == {"Poultry"} and question == "what was fed?"
    # a bound room cannot name its way out of its binding
    scope, _ = chat_scope("!a:hs", "in collection Poultry, what was fed?", bound)
    assert scope.collections == {"\u0000"}
