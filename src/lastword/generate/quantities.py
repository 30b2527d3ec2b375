"""Numbers in a sentence as the answer side reads them: which are stated (not pointers to a
figure, table or reference), spelled counts, years, and the kind of number a question asks for.

``NUMBER_KINDS`` reads the kinds asked (a count for how many, a duration for how long / how
old, a length for how long was the product / root, a percentage for what percentage, a change
for how much did ... change, a factor for by what factor / how many times, a mass for what
was the minimum body mass; a question may ask several), and ``numbers_of_kinds`` finds a
sentence's numbers of those kinds.

A count is a count *of* something: "how many of the adenovirus-positive children" counts
children (``count_heads``), and a sentence's count says what it counts in the words after it
("280-day-old commercial broiler chicks", "13 (4.2%) isolates", "15 of the children") or
before it ("participants (men, n = 12)": ``counted``). A count of another thing the question
names ("at least 15 species" for how many specimens), a percentage ("10% of all hospital
admissions") or a label ("types 40 and 41", "day 2") is not the count asked.
"""

from __future__ import annotations

import re

from lastword.generate.terms import STOP, stem
from lastword.verify.numbers import Quantity, extract_quantities

#: the kind of number asked, when the question says (else any number of its own will do)
NUMBER_KINDS = (
    ("count", re.compile(r"\bhow\s+many\b|\bwhat\s+(?:[\w\-]+\s+){0,2}?number\s+of\b", re.I)),
    (
        "time",
        re.compile(
            r"\bhow\s+(long|old)\b|\bwhat\s+(?:[\w\-]+\s+){0,3}?(duration|age|period)\b", re.I
        ),
    ),
    (
        # "how long was the PCR product": a length, not a duration (``kinds_asked`` drops "time")
        "length",
        re.compile(
            r"\bhow\s+long\s+(?:is|was|are|were)\s+(?:the|its|their|each|this|that)\s+"
            r"(?:[\w\-]+\s+){0,2}?(products?|fragments?|amplicons?|sequences?|genes?|genomes?|"
            r"reads?|inserts?|bands?|chains?|peptides?|proteins?|segments?|roots?|shoots?|stems?|"
            r"leaves|leaf|tails?|spikes?|panicles?|ears?|fibres?|fibers?|cells?|larvae)\b",
            re.I,
        ),
    ),
    (
        # a measured amount: written in figures, never a spelled count ("two herbal plants")
        "measure",
        re.compile(
            r"\bwhat\s+(?:[\w\-]+\s+){0,4}?(concentrations?|doses?|mics?|mfcs?|titres?|titers?|"
            r"ic50|ec50|ld50|noael|km|ki)\b",
            re.I,
        ),
    ),
    (
        # a ratio of two values: "2-4-fold", "three times", not the percentage of a change
        "factor",
        re.compile(
            r"\bby\s+(?:roughly\s+|about\s+|approximately\s+)?what\s+(?:factor|fold)\b"
            r"|\bhow\s+many\s+(?:times|fold)\b|\bwhat\s+(?:[\w\-]+\s+){0,2}?(?:factor|fold)\b",
            re.I,
        ),
    ),
    (
        # a mass's own value ("the minimum body mass"), not its change or a share of it
        "mass",
        re.compile(
            r"\bwhat\s+(?:is|was|are|were)\s+(?:the|its|their)\s+(?:[\w\-]+\s+){0,2}?"
            r"(?:body\s+)?(?:mass|weight)(?!\s+(?:gain|loss|change|ratio|index|fraction|"
            r"percentage|of\s+evidence))\b",
            re.I,
        ),
    ),
    (
        "percent",
        re.compile(r"\bwhat\s+(?:[\w\-]+\s+){0,3}?(percentages?|proportion|share)\b", re.I),
    ),
    (
        "change",
        re.compile(
            r"\bhow\s+much\s+(?:[\w\-/]+\s+){0,8}?(change|increase|decrease|reduce|improve|raise|"
            r"rise|fall|lower|differ|cut|boost)\w*\b|\bby\s+how\s+much\b|\bby\s+(roughly\s+)?what\b",
            re.I,
        ),
    ),
)
#: a length as written: "261 bp", "1.2-kb", "12.5 cm", "40 amino acids" (mM is a concentration)
LENGTH = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*-?\s*(?:bp|kbp|kb|Mb|nt|bases?|base\s+pairs?|aa|amino\s+acids|"
    r"residues|cm|mm|µm|μm|nm|m)\b"
)
#: a length that names a size standard run beside the samples, not a size measured: "100 bp
#: molecular size DNA ladder", "1 kb marker"
SIZE_STANDARD = re.compile(r"\s*(?:[\w\-+]+\s+){0,3}?(?:ladders?|markers?)\b", re.I)
SIZE_STANDARDS = True
TIME_UNITS = frozenset({"h", "min", "s", "d", "wk", "mo", "y"})
MASS_UNITS = frozenset({"kg", "g", "mg", "ug", "ng", "pg"})
#: "three times higher", "2 times", "×3": a factor written without "fold"
TIMES_AFTER = re.compile(r"\s*-?\s*times\b", re.I)
CHANGE_WORDS = re.compile(
    r"\b(rose|fell|increas\w*|decreas\w*|reduc\w*|improv\w*|rais\w*|declin\w*|drop\w*|"
    r"differ\w*|change\w*|gain\w*|loss\w*|lost|more|less|higher|lower|greater|fewer|"
    r"fold|percentage\s+points?)\b",
    re.I,
)
#: spelled counts ("fifteen participants, seven from ..."); "one" is too common to count
NUMBER_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety
    hundred thousand dozen twofold threefold fourfold fivefold tenfold""".split()
)
#: count questions read their head noun (``count_heads``); a count must count it
COUNT_HEADS = True
#: "how many (of the) <modifiers> <head>"
_HOW_MANY = re.compile(
    r"\bhow\s+many\s+(?:of\s+(?:the|these|those|its|their|all)\s+)?(?=((?:[\w\-]+[\s,]*){1,6}))",
    re.I,
)
#: plurals that do not end in "s"; words ending in "s" that are no plural noun
_PLURALS = frozenset(
    "children people men women mice feet teeth geese species data fish sheep cattle deer".split()
)
_NOT_PLURAL = frozenset("was has is does this its times thus us yes less ss".split())
#: a number that names rather than counts: "types 40 and 41", "day 2", "group 3", "HAdV-40"
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:types?|serotypes?|genotypes?|groups?|days?|weeks?|months?|years?|phases?|steps?|"
    r"stages?|grades?|class|classes|clusters?|lanes?|rounds?|versions?|no|nos|numbers?|"
    r"chapters?|sections?|lines?|passages?|generations?|instars?)\.?\s+"
    r"(?:\d+(?:\s*(?:,|and|or|to|–|-)\s*)?)*|[A-Za-z]-)$",
    re.I,
)
_COUNT_NUMBER = re.compile(
    r"(?<![\w.,/])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d])|\b("
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    + r")\b",
    re.I,
)
_AFTER_BRACKET = re.compile(r"\s*\([^()]{0,40}\)")
_WINDOW_WORDS = re.compile(r"[A-Za-z][\w\-']*")
_STOP_AT = re.compile(r"[,;:.()?!]")
#: "participants (men, n = 12)": the count names its thing before it
_N_EQUALS = re.compile(r"\bn\s*=\s*$", re.I)
_AGE_AFTER = re.compile(r"-?\s*old\b", re.I)


def count_heads(question: str) -> frozenset[str]:
    """The stems of what a count question counts: the first plural noun after each "how many"
    ("children" of "How many of the adenovirus-positive children needed ...?", "specimens" and
    "localities" of "How many specimens, from how many localities, ...?"); none when "how
    many" is followed by a verb ("how many carried HAdV-40") or a unit ("how many days")."""
    if not COUNT_HEADS:
        return frozenset()
    heads = set()
    for match in _HOW_MANY.finditer(question):
        words = [w.lower() for w in _WINDOW_WORDS.findall(match.group(1))]
        head = _first_plural(words[:4])
        if head is None:
            continue
        heads.add(stem(words[head]))
        # a second head joined by "and": "how many accessions and EST-SSR markers"
        if words[head + 1 : head + 2] in (["and"], ["or"]):
            second = _first_plural(words[head + 2 : head + 5])
            if second is not None:
                heads.add(stem(words[head + 2 + second]))
    return frozenset(heads)


_UNIT_WORDS_PLURAL = frozenset("days hours minutes seconds weeks months years times folds".split())


def _first_plural(words: list[str]) -> int | None:
    """Where the first plural noun is among ``words`` (None at "how" / "many", a unit, or
    none)."""
    for i, low in enumerate(words):
        if low in ("how", "many", "and", "or") or low in _UNIT_WORDS_PLURAL:
            return None
        if low in _PLURALS or (
            low.endswith("s") and len(low) > 3 and low not in _NOT_PLURAL and not low.endswith("ss")
        ):
            return i
    return None


_VERB_AFTER = re.compile(r"\s*(?:were|was|had|have|has|are|is|did|\w+ed)\b", re.I)


def _before(before: str, rest: str) -> list[str]:
    """What a count followed by its verb counts ("Of the adenovirus-positive children, 9
    needed ..."): the words of its clause before it, or ``ELIDED`` when none."""
    if not _VERB_AFTER.match(rest):
        return []
    clause = re.split(r"[;:.()]", before)[-1]
    found = [stem(w) for w in _WINDOW_WORDS.findall(clause)[-4:] if w.lower() not in STOP]
    return [*found, ELIDED]


def _window(words: str) -> list[str]:
    """The stems of the words a count names (up to five, to the next punctuation or a
    preposition other than "of"). A count whose noun is left out ("seven from the rural
    hospital") names ``ELIDED``: the words after the preposition are where, not what."""
    cut = _STOP_AT.search(words)
    found = re.findall(r"[\w\-']+", words[: cut.start()] if cut else words)[:5]
    if (
        found
        and _VERB_AFTER.fullmatch(found[0])
        and found[0].lower() not in STOP
        and _first_plural([w.lower() for w in found[1:2]]) is None  # "12 infected children"
    ):
        return []  # "9 needed intensive care": the thing counted is before (``_before``)
    out = []
    for i, word in enumerate(found):
        if word.lower() in _PREPOSITIONS:
            return out or ([ELIDED] if i == 0 else out)
        if word.lower() in NUMBER_WORDS or word.lower() == "one" or word[:1].isdigit():
            if [w.lower() for w in found[max(i - 2, 0) : i]] in (["of", "the"], ["of"]):
                continue  # "twelve of the 20 pens": a part of a counted whole
            break  # another count begins
        if word.lower() not in STOP:
            out.append(stem(word))
    return out


#: what a count whose noun is left out names ("seven from the rural hospital")
ELIDED = "<elided>"
_PREPOSITIONS = frozenset(
    "from in at with per on for among across between during after before to into within by "
    "under over".split()
)


def counted(text: str) -> list[tuple[str, list[str]]]:
    """A sentence's counts, each with the stems of what it counts: the words after it (past a
    bracket: "13 (4.2%) isolates"; past "-day-old": "280-day-old broiler chicks"), or, for "n =
    12", the words before its bracket. Percentages, amounts with units, decimals, years, labels
    ("types 40 and 41", "HAdV-40") and figure or reference numbers are not counts."""
    plain = POINTER.sub(" ", text)
    out = []
    for match in _COUNT_NUMBER.finditer(plain):
        value, end = match.group(0), match.end()
        before = plain[: match.start()]
        spelled = match.group(1) is not None
        if spelled:
            if value.lower().endswith("fold") or TIMES_AFTER.match(plain, end):
                continue
            out.append((value.lower(), _window(plain[end:])))
            continue
        if "." in value or looks_like_year(value) or _LABEL_BEFORE.search(before):
            continue
        unit = (extract_quantities(plain[match.start() :])[:1] or [None])[0]
        if unit is not None and unit.unit:
            # "280-day-old chicks": an age in front of the thing counted
            rest = plain[match.start() + len(unit.text) :]
            if unit.unit in TIME_UNITS and (age := _AGE_AFTER.match(rest)):
                out.append((value.replace(",", ""), _window(rest[age.end() :])))
            continue
        if _N_EQUALS.search(before):
            opening = before.rfind("(")
            words = _WINDOW_WORDS.findall(before[:opening] if opening >= 0 else before)[-2:]
            out.append((value.replace(",", ""), [stem(w) for w in words]))
            continue
        rest = plain[end:]
        if (bracket := _AFTER_BRACKET.match(rest)) is not None:
            rest = rest[bracket.end() :]
        if TIMES_AFTER.match(rest):  # "three times higher": a factor
            continue
        out.append((value.replace(",", ""), _window(rest) or _before(before, rest)))
    return out


def counts_of(text: str, heads: frozenset[str], others: frozenset[str] | set[str]) -> set[str]:
    """The sentence's counts that may count what was asked: each names one of ``heads`` in
    its words, or names words and none of ``others`` (the question's other words: "at least 15
    species" does not count the specimens of "How many specimens ... of the new species?"). A
    number that names nothing after it ("(Daudin, 1801)") counts nothing."""
    found = set()
    for value, window in counted(text):
        named = set(window)
        if named & heads or (named and not named & set(others)):
            found.add(value if not value.isdigit() else format(int(value), "d"))
    return found


#: numbers that only point somewhere: "Figure 5A", "Table-3", "Fig. 2b", "(ref. 12, 14)"
POINTER = re.compile(
    r"\b(?:supplementary\s+)?(?:fig(?:ure)?s?|tables?|eq(?:uation)?s?|refs?)\.?[\s\-]*S?\d+[A-Za-z]?"
    r"(?:\s*(?:,|and|–|-)\s*S?\d+[A-Za-z]?\b)*",
    re.I,
)


def stated_quantities(text: str) -> list[Quantity]:
    """The quantities a sentence states, leaving out figure, table and reference numbers."""
    return extract_quantities(POINTER.sub(" ", text))


def number_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text) if w.lower() in NUMBER_WORDS}


def looks_like_year(text: str) -> bool:
    return bool(re.fullmatch(r"(19|20)\d{2}", text.strip()))


def kinds_asked(question: str) -> frozenset[str]:
    """The kinds of number ``NUMBER_KINDS`` reads in a question; a length asked with "how long"
    is not also a duration."""
    kinds = {k for k, rx in NUMBER_KINDS if rx.search(question)}
    if "length" in kinds:
        kinds.discard("time")
    if "factor" in kinds:
        # "by what factor" is a ratio, not the change itself ("by 60–90%")
        kinds.discard("change")
        kinds.discard("count")
    return frozenset(kinds)


def numbers_of_kinds(
    text: str,
    number_kinds: frozenset[str],
    heads: frozenset[str] = frozenset(),
    others: frozenset[str] = frozenset(),
) -> set[str]:
    """The sentence's numbers of the kind the question asks for (not years): a count ("412
    adults", "fifteen") for how many, a duration for how long / how old, a percentage for what
    percentage, a value stated as a change ("rose by 1.8%", "0.9 percentage points", "70% more")
    for how much did ... change; any number when the question does not say."""
    kinds = set(number_kinds)
    if "change" in kinds and not CHANGE_WORDS.search(text):
        kinds.discard("change")
        if not kinds:
            return set()
    out = set()
    if "length" in kinds:
        plain = POINTER.sub(" ", text)
        out |= {
            m.group(1).replace(",", ".")
            for m in LENGTH.finditer(plain)
            if not (SIZE_STANDARDS and SIZE_STANDARD.match(plain, m.end()))
        }
        kinds.discard("length")
        if not kinds:
            return out
    headed = "count" in kinds and bool(heads)
    if headed:
        # what "how many <head>" asks: a count of the head (or of a thing the question does
        # not name), never a percentage, an amount or a label
        out |= counts_of(text, heads, others - heads)
    for q in stated_quantities(text):
        if looks_like_year(q.text):
            continue
        unit = q.unit or ""
        if (
            not kinds
            or "measure" in kinds
            or ("count" in kinds and not unit and not headed)
            or ("time" in kinds and unit in TIME_UNITS)
            or ("percent" in kinds and unit == "%")
            or ("change" in kinds and unit)
            or ("factor" in kinds and (unit == "fold" or _times_after(text, q.text)))
            or ("mass" in kinds and unit in MASS_UNITS)
        ):
            out.add(format(q.value.normalize(), "f"))
    if not kinds or ("count" in kinds and not headed):
        out |= number_words(text)
    if "factor" in kinds:
        out |= {w for w in number_words(text) if w.endswith("fold")}
    return out


def _times_after(text: str, written: str) -> bool:
    """The number is written as a factor: "three times", "2-times" ("2 times" after it;
    pointers such as "Figure 2" read as spaces, as everywhere here)."""
    plain = POINTER.sub(" ", text)
    return any(TIMES_AFTER.match(plain, m.end()) for m in re.finditer(re.escape(written), plain))
