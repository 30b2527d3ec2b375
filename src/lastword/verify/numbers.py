"""Numbers in a sentence, and whether a cited passage holds each of them.

A quantity is a value with an optional unit: "5 mg", "10mg/kg", "50 %", "12-week", "1,000"
(== 1000), ".05" (== 0.05), "2.50" (== 2.5). In a range, a list or a mean with its spread the
unit written at the end belongs to every member ("10-20 mg", "5, 10 and 20 mg/kg",
"113 +/- 56.3 mg/dL"). An answer's quantity is found in a
passage when the passage holds the same value with the same unit; a quantity written without a
unit matches the value with any unit. An answer may round: "33%" matches "33.3%" when the answer
keeps at least two significant digits ("2" does not match "1.8").

Not numbers to check: citation markers (removed before), digits glued to letters on their left
("CD4", "H1N1", "p53", "β2"), and spelled numbers ("five"), which are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

_NUMBER = r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])|(?<![\w.])\.\d+"
_UNIT_WORDS = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "percentage": "%",
    "mg": "mg",
    "milligram": "mg",
    "milligrams": "mg",
    "g": "g",
    "gram": "g",
    "grams": "g",
    "kg": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "µg": "ug",
    "μg": "ug",
    "ug": "ug",
    "mcg": "ug",
    "microgram": "ug",
    "micrograms": "ug",
    "ng": "ng",
    "pg": "pg",
    "ml": "ml",
    "millilitre": "ml",
    "milliliter": "ml",
    "millilitres": "ml",
    "milliliters": "ml",
    "l": "l",
    "litre": "l",
    "liter": "l",
    "litres": "l",
    "liters": "l",
    "dl": "dl",
    "mmol": "mmol",
    "µmol": "umol",
    "μmol": "umol",
    "umol": "umol",
    "nmol": "nmol",
    "mol": "mol",
    "meq": "meq",
    "iu": "iu",
    "u": "u",
    "units": "u",
    "mmhg": "mmhg",
    "cm": "cm",
    "mm": "mm",
    "km": "km",
    "kcal": "kcal",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "s": "s",
    "sec": "s",
    "second": "s",
    "seconds": "s",
    "d": "d",
    "day": "d",
    "days": "d",
    "wk": "wk",
    "wks": "wk",
    "week": "wk",
    "weeks": "wk",
    "mo": "mo",
    "month": "mo",
    "months": "mo",
    "y": "y",
    "yr": "y",
    "yrs": "y",
    "year": "y",
    "years": "y",
    "fold": "fold",
}
_UNIT_ALTERNATION = "|".join(
    re.escape(u) for u in sorted(_UNIT_WORDS, key=len, reverse=True) if u != "%"
)
#: a unit right after a number: "5 mg", "5mg", "5-year", "50 %", "10 mg/kg", "20 kg/m2"
_UNIT_RE = re.compile(
    r"\s?(?:(%)|-?\s?(" + _UNIT_ALTERNATION + r")(?![\w%]))((?:\s?/\s?[a-zµμ]+[0-9²]?)*)", re.I
)
#: what joins the members of a range or list that share one unit
_JOIN_RE = re.compile(
    r"\s*(?:-|–|—|to|and|or|,|,\s*and|,\s*or|/|±|\+/-|\+-|plus\s+(?:or\s+)?minus)\s*$", re.I
)
_NUMBER_RE = re.compile(_NUMBER)
_MIN_ROUNDED_DIGITS = 2


@dataclass(frozen=True)
class Quantity:
    value: Decimal
    unit: str | None
    text: str  # as written, with its unit

    def describe(self) -> str:
        return self.text


def _canonical_unit(main: str, per: str) -> str:
    unit = _UNIT_WORDS.get(main.lower(), main.lower())
    for part in re.findall(r"[a-zµμ]+[0-9²]?", per, re.I):
        unit += "/" + _UNIT_WORDS.get(part.lower(), part.lower()).replace("²", "2")
    return unit


def extract_quantities(text: str) -> list[Quantity]:
    """Every number in the text, with its unit when one follows (or ends its range/list)."""
    found: list[tuple[int, int, Decimal, str | None]] = []
    for match in _NUMBER_RE.finditer(text):
        try:
            value = Decimal(match.group(0).replace(",", ""))
        except InvalidOperation:
            continue
        unit = None
        end = match.end()
        unit_match = _UNIT_RE.match(text, end)
        if unit_match:
            main = unit_match.group(1) or unit_match.group(2)
            unit = _canonical_unit(main, unit_match.group(3) or "")
            end = unit_match.end()
        found.append((match.start(), end, value, unit))
    # A range or list shares the unit written after its last member. A bare comma joins only
    # inside a longer list ("5, 10 and 20 mg"), not "in 2011, 5%"; a year never takes a unit.
    inherited = [False] * len(found)
    for i in range(len(found) - 2, -1, -1):
        start, end, value, unit = found[i]
        following = found[i + 1]
        gap = text[end : following[0]]
        if unit is not None or following[3] is None or _looks_like_year(value):
            continue
        if not _JOIN_RE.match(gap) or (gap.strip() == "," and not inherited[i + 1]):
            continue
        found[i] = (start, end, value, following[3])
        inherited[i] = True
    return [Quantity(value, unit, text[start:end].strip()) for start, end, value, unit in found]


def _looks_like_year(value: Decimal) -> bool:
    return value == value.to_integral_value() and 1800 <= value <= 2100


def _decimals(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _significant_digits(value: Decimal) -> int:
    return len(value.normalize().as_tuple().digits)


def _same_value(answer: Decimal, passage: Decimal) -> bool:
    if answer == passage:
        return True
    places = _decimals(answer)
    if _decimals(passage) <= places or _significant_digits(answer) < _MIN_ROUNDED_DIGITS:
        return False
    rounded = passage.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return rounded == answer


def quantity_in(quantity: Quantity, candidates: Iterable[Quantity]) -> bool:
    for candidate in candidates:
        if quantity.unit is not None and candidate.unit != quantity.unit:
            continue
        if _same_value(quantity.value, candidate.value):
            return True
    return False


def missing_quantities(sentence: str, passages: Iterable[str]) -> list[Quantity]:
    """The sentence's quantities that none of the given passages hold."""
    held = [q for text in passages for q in extract_quantities(text)]
    return [q for q in extract_quantities(sentence) if not quantity_in(q, held)]
