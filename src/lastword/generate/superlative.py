"""Which one is highest? Comparing the values of a table column, or reading a stated superlative.

A question such as "which dietary group had the highest body weight gain" is answered by the
row that holds the extreme value of the asked column, not by the row that merely repeats the
question's words. ``superlative_of`` reads the direction asked (highest / most / largest ... or
lowest / least / fewest ...) from a which/who question or a "what was the highest ..." one;
"what was the maximum non-toxic concentration" names a quantity and is not a comparison.
``extremes`` then marks, for each table among the candidates, the row whose value in the column
named by the question's words (at least one question term in the column's header, the most
IDF weight winning) is the extreme one in the direction asked, and every sentence that itself
states a superlative of that direction ("significantly highest body weight gain was observed
in T6"). The generator quotes the row or sentence as written: the comparison is made to choose,
never written as a claim the verifier could not check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation

_HIGH = (
    r"highest|most|largest|greatest|strongest|best|longest|heaviest|fastest|biggest|top"
    r"|maximum|maximal|peak"
)
_LOW = r"lowest|least|smallest|fewest|weakest|shortest|lightest|slowest|minimum|minimal|worst"
#: "what was the highest ..." compares; "what was the maximum ..." names a quantity
_NAMED_QUANTITY = r"maximum|maximal|minimum|minimal|peak|top"
_COMPARATIVE_QUESTION = re.compile(
    r"^\s*(which|who|whom|whose)\b|\b(which|who)\b|\bwhat\s+(?:was|were|is|are)\s+the\s+"
    r"(?!(?:" + _NAMED_QUANTITY + r")\b)(?=(?:" + _HIGH + "|" + _LOW + r")\b)",
    re.I,
)
_HIGH_RE = re.compile(r"\b(" + _HIGH + r")\b", re.I)
_LOW_RE = re.compile(r"\b(" + _LOW + r")\b", re.I)
#: the value a cell leads with: "2129.25c ±22.83" is 2129.25, "1,801.75" is 1801.75
_LEADING_NUMBER = re.compile(r"^\s*[<>≤≥~]?\s*(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d*\.?\d+)")


def superlative_of(question: str) -> int:
    """+1 when the question asks which one is highest / most, -1 lowest / least, else 0."""
    if not _COMPARATIVE_QUESTION.search(question):
        return 0
    high, low = _HIGH_RE.search(question), _LOW_RE.search(question)
    if high and not low:
        return 1
    if low and not high:
        return -1
    return 0


#: in a sentence, "most" and "least" are mostly quantifiers ("most widely distributed")
_SENTENCE_HIGH = re.compile(r"\b(?!most\b|best\b|top\b)(" + _HIGH + r")\b", re.I)
_SENTENCE_LOW = re.compile(r"\b(?!least\b|worst\b)(" + _LOW + r")\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-']*")


def states_superlative(
    text: str, direction: int, on_question: Callable[[str], bool] = lambda _: True
) -> bool:
    """The sentence itself says highest (direction +1) or lowest (-1) of something the question
    asks about: one of the next four words is a question term (``on_question``), as in
    "the highest mean body weight gain was observed in T6"."""
    if direction == 0:
        return False
    pattern = _SENTENCE_HIGH if direction > 0 else _SENTENCE_LOW
    for match in pattern.finditer(text):
        following = _WORD.findall(text[match.end() :])[:4]
        if any(on_question(word) for word in following):
            return True
    return False


def leading_value(cell: str) -> Decimal | None:
    match = _LEADING_NUMBER.match(cell)
    if match is None:
        return None
    try:
        return Decimal(match.group(1).replace(",", ""))
    except InvalidOperation:
        return None


def extremes(
    direction: int,
    cells: Sequence[tuple[tuple[str, str], ...]],
    tables: Sequence[object],
    header_weight: Callable[[str], float],
) -> set[int]:
    """The candidates (by index) that hold the extreme value of the asked column of their table.

    ``cells[i]`` is candidate i's (column name, cell) pairs (empty for a sentence), ``tables[i]``
    names the table it is a row of (rows of one table share it), ``header_weight`` weighs a
    column name by the question terms it states. Each table's column is the one with the most
    weight (none when no column states a question term); its rows' leading numbers are compared
    and the row with the extreme one is marked, when at least two rows hold a number and the
    extreme is not shared.
    """
    if direction == 0:
        return set()
    groups: dict[object, list[int]] = {}
    for i, row in enumerate(cells):
        if row:
            groups.setdefault(tables[i], []).append(i)
    out: set[int] = set()
    for rows in groups.values():
        if len(rows) < 2:
            continue
        names = {name for i in rows for name, _ in cells[i]}
        weights = {name: header_weight(name) for name in names}
        column = max(sorted(names), key=lambda name: weights[name], default=None)
        if column is None or weights[column] <= 0:
            continue
        values = {}
        for i in rows:
            for name, cell in cells[i]:
                if name == column and (value := leading_value(cell)) is not None:
                    values[i] = value
        if len(values) < 2:
            continue
        best = max(values.values()) if direction > 0 else min(values.values())
        winners = [i for i, v in values.items() if v == best]
        if len(winners) == 1:
            out.add(winners[0])
    return out
