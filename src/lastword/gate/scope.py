"""The scope guard: operator-set keyword lists, checked before anything else runs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from lastword.refusals import refusal
from lastword.result import Refusal
from lastword.settings import ScopeSettings


@lru_cache(maxsize=64)
def _pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    cleaned = [t.strip() for t in terms if t.strip()]
    if not cleaned:
        return None
    # Whole words only: "art" must not match "artery". Inner spaces match any whitespace.
    alternatives = sorted((r"\s+".join(map(re.escape, t.split())) for t in cleaned), key=len)
    return re.compile(r"(?<!\w)(?:" + "|".join(reversed(alternatives)) + r")(?!\w)", re.I)


def find_term(text: str, terms: Sequence[str]) -> str | None:
    pattern = _pattern(tuple(terms))
    if pattern is None:
        return None
    match = pattern.search(text)
    return match.group(0) if match else None


def scope_refusal(question: str, settings: ScopeSettings) -> Refusal | None:
    hit = find_term(question, settings.out_of_scope)
    if hit is not None:
        return refusal("out_of_scope", detail=f"the question mentions '{hit}'")
    if settings.in_scope and find_term(question, settings.in_scope) is None:
        return refusal("not_in_scope", detail="the question names none of the corpus's topics")
    return None
