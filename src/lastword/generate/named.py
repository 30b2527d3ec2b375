"""The specific things a question names, and sentences that name another of the same kind in
their place.

A question about "the MIC of Ocimum micranthum oil against *Salmonella Typhimurium*" is not
answered by a sentence giving the MIC against *C. albicans*; one about the *German* accuracy not
by the *English* one; one about *H9N2* not by *H5N1*; one about yields at *Efaw* not by those
at *Lake Carl Blackwell*. ``named_things`` reads the question's specific names in four shapes:

- ``binomial``: a Latin binomial, written out ("Ocimum micranthum", "Salmonella Typhimurium")
  or with the genus abbreviated ("O. sanctum"); it is known by its epithet, so "S.
  typhimurium" and "the micranthum species" name it;
- ``code``: a code of letters and digits ("H9N2", "33RE", "TLR7"); a different code of the
  same pattern (letters as A, digits as 9: "H5N1" for "H9N2") is another member;
- ``language``: a natural language's name ("German");
- ``place``: a place the question names ("in Iran", "at Efaw", "Maharashtra state").

``substituted(text, things)`` returns the asked things ``text`` replaces: it names none of the
asked members of a shape and names a different member of that shape. A sentence that names
neither (it may say "the oil", "the strain") is not judged here: only a named substitute
counts, so the rule declines little and what it declines is about something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lastword.generate.terms import STOP, named_places, stem

#: endings of a Latin species epithet ("neoformans", "sanctum", "tularensis", "poae", "coli")
_LATIN = r"(?:um|us|a|ae|is|ii|i|ans|ens|oides|ata|atum|ica|icum|ensis|ella|ia|or)"
_ABBREVIATED = re.compile(r"\b([A-Z])\.\s?([a-z]{3,})\b")
_WRITTEN_OUT = re.compile(
    rf"\b([A-Z][a-z]{{2,}}(?:{_LATIN}|es|on|er))\s+([a-z]{{2,}}{_LATIN}|[A-Z][a-z]{{3,}}{_LATIN})\b"
)
_CODE = re.compile(
    r"(?<![\w\-])([A-Za-z]*\d[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*|[A-Za-z]+\d+)(?![\w\-])"
)
#: words that close a written-out "binomial" without being an epithet ("Figura", "Tabula" aside)
_NOT_EPITHETS = frozenset(
    """data area media criteria formula via idea era extra ultra camera agenda vista
    bonus plus minus thus versus status census focus corpus virus genus campus radius basis
    axis analysis thesis crisis emphasis hypothesis synthesis diagnosis prognosis
    minimum maximum medium optimum spectrum forum album premium sum""".split()
)
LANGUAGES = frozenset(
    """english german french spanish italian portuguese dutch swedish danish norwegian
    finnish polish czech russian ukrainian greek turkish arabic hebrew persian farsi hindi
    urdu bengali tamil telugu chinese mandarin cantonese japanese korean vietnamese thai
    indonesian malay swahili hungarian romanian bulgarian serbian croatian catalan basque
    latin estonian latvian lithuanian""".split()
)
_LANGUAGE = re.compile(r"\b(" + "|".join(sorted(LANGUAGES)) + r")\b", re.I)


#: nouns a "which / what ..." question asks a member of a shape with: its answer names a new
#: member of that shape by design ("Which test organism was most susceptible to the Ocimum
#: micranthum extracts?" is answered by "Candida albicans")
_ASKED_NOUNS = {
    "binomial": r"organisms?|species|strains?|bacteri(?:um|a)|fung(?:us|i)|pathogens?|"
    r"microbes?|micro-?organisms?|yeasts?|moulds?|molds?|plants?|genus|genera|isolates?|hosts?|"
    r"insects?|pests?|animals?|vectors?|name",
    "code": r"strains?|compounds?|isolates?|genes?|residues?|variants?|accessions?|codes?|"
    r"inhibitors?|serotypes?|genotypes?|lines?|markers?|primers?|alleles?|mutants?|name",
    "language": r"languages?",
    "place": r"places?|countr(?:y|ies)|regions?|sites?|locations?|provinces?|states?|cit(?:y|ies)",
}


def _asked_shapes(question: str) -> set[str]:
    """The shapes whose new member the question asks for ("which test organism", "where")."""
    out = set()
    for shape, nouns in _ASKED_NOUNS.items():
        pattern = rf"\b(?:which|what|whose)\s+(?:[\w\-]+\s+){{0,2}}?(?:{nouns})\b"
        if re.search(pattern, question, re.I):
            out.add(shape)
    if re.search(
        r"^\s*where\b|\bfrom\s+where\b|\bwhere\s+(?:was|were|is|are|did)\b", question, re.I
    ):
        out.add("place")
    return out


@dataclass(frozen=True)
class Named:
    """One specific thing a question names: its shape and the key other texts name it by."""

    shape: str  # "binomial", "code", "language", "place"
    key: str  # the epithet, the code's pattern, the language, the place's stem
    text: str  # as the question writes it


def _code_pattern(code: str) -> str:
    return re.sub(r"[A-Za-z]+", "A", re.sub(r"\d+", "9", code))


def _binomials(text: str) -> dict[str, str]:
    """epithet (lower-case) -> as written."""
    out: dict[str, str] = {}
    for match in _ABBREVIATED.finditer(text):
        epithet = match.group(2)
        if epithet not in STOP and epithet not in _NOT_EPITHETS:
            out.setdefault(epithet, match.group(0))
    for match in _WRITTEN_OUT.finditer(text):
        genus, epithet = match.group(1), match.group(2).lower()
        if genus.lower() in STOP or epithet in STOP or epithet in _NOT_EPITHETS:
            continue
        out.setdefault(epithet, match.group(0))
    return out


def _codes(text: str) -> dict[str, str]:
    """code (lower-case) -> its pattern; a code has a digit and a letter and is not a unit
    or a number with a unit ("10mg", "5h"): at least two letters or a letter between digits."""
    out = {}
    for match in _CODE.finditer(text):
        code = match.group(1)
        letters = sum(ch.isalpha() for ch in code)
        if letters < 2 and not re.search(r"\d[A-Za-z]\d", code):
            continue
        if re.fullmatch(r"log\d+|\d+(?:st|nd|rd|th)", code, re.I):
            continue
        if re.fullmatch(r"\d+(?:mg|ml|kg|mm|cm|nm|kb|bp|h|d|s|min|g|l|m)", code, re.I):
            continue
        out[code.lower()] = _code_pattern(code)
    return out


def named_things(question: str) -> tuple[Named, ...]:
    """The question's specific names (binomials, codes, languages, places), except of a shape
    whose new member the question asks for (``_ASKED_NOUNS``)."""
    out = [Named("binomial", k, v) for k, v in _binomials(question).items()]
    out += [Named("code", k, p) for k, p in _codes(question).items()]
    out += [
        Named("language", m.lower(), m) for m in {m.group(1) for m in _LANGUAGE.finditer(question)}
    ]
    out += [Named("place", s, s) for s in sorted(named_places(question, frozenset()))]
    asked = _asked_shapes(question)
    return tuple(t for t in out if t.shape not in asked)


def _names(text: str, thing: Named, lowered: str) -> bool:
    """Does ``text`` name ``thing`` (its epithet, its code, its language, its place)?"""
    if thing.shape == "code":
        return re.search(rf"(?<![\w]){re.escape(thing.key)}(?![\w])", lowered) is not None
    if thing.shape == "place":
        return any(stem(w) == thing.key for w in re.findall(r"[A-Za-z]+", text))
    return re.search(rf"\b{re.escape(thing.key)}\b", lowered) is not None


def thing_named(text: str, thing: Named) -> bool:
    """Does ``text`` name ``thing`` (its epithet, its code, its language, its place)?"""
    return _names(text, thing, text.lower())


def _others(text: str, shape: str, things: list[Named]) -> set[str]:
    """The members of ``shape`` that ``text`` names and the question does not."""
    keys = {t.key for t in things}
    if shape == "binomial":
        return set(_binomials(text)) - keys
    if shape == "code":
        patterns = {t.text for t in things}
        return {c for c, p in _codes(text).items() if p in patterns and c not in keys}
    if shape == "language":
        return {m.group(1).lower() for m in _LANGUAGE.finditer(text)} - keys
    return named_places(text, frozenset(keys))


#: "thing": an asked thing is replaced when the text does not name it and names another
#: member of its shape; "shape": only when the text names no asked member of that shape
#: (``bench/named_things.py`` measures both)
MODE = "thing"


def substituted(text: str, things: tuple[Named, ...]) -> list[Named]:
    """The asked things ``text`` names another member of their shape in place of: it does not
    name the thing (nor, in ``MODE`` "shape", any asked member of its shape), and names a
    member of that shape the question does not."""
    if not things:
        return []
    lowered = text.lower()
    out: list[Named] = []
    shapes: dict[str, list[Named]] = {}
    for thing in things:
        shapes.setdefault(thing.shape, []).append(thing)
    for shape, members in shapes.items():
        named = [t for t in members if _names(text, t, lowered)]
        if named and MODE == "shape":
            continue
        missing = [t for t in members if t not in named]
        if missing and _others(text, shape, members):
            out += missing
    return out
