"""A capital PDFium sets apart from its word ("T he", "T hirteen") is joined back only when the
joined word is a word; "T cells", "B cells" and "S phase" stay as written."""

from __future__ import annotations

import pytest

from lastword.ingest.structure import join_lines


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("T he present study", "The present study"),
        ("T hirteen isolates were recovered", "Thirteen isolates were recovered"),
        ("In T his case", "In This case"),
        ("T cells and B cells", "T cells and B cells"),
        ("cells in S phase", "cells in S phase"),
        ("A his-tagged protein", "A his-tagged protein"),
    ],
)
def test_a_split_capital_is_joined_only_into_a_word(line: str, read: str) -> None:
    assert join_lines([line], set()) == read
