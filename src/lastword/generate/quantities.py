"""Numbers in a sentence as the answer side reads them: which are stated (not pointers to a
figure, table or reference), spelled counts, years, and the kind of number a question asks for.

``NUMBER_KINDS`` reads the kinds asked (a count for how many, a duration for how long / how
old, a length for how long was the product / root, a percentage for what percentage, a change
for how much did ... change; a question may ask several), and ``numbers_of_kinds`` finds a
sentence's numbers of those kinds.
"""

from __future__ import annotations

import re

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
    hundred thousand dozen twofold threefold fourfold""".split()
)


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
    return frozenset(kinds)


def numbers_of_kinds(text: str, number_kinds: frozenset[str]) -> set[str]:
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
    for q in stated_quantities(text):
        if looks_like_year(q.text):
            continue
        unit = q.unit or ""
        if (
            not kinds
            or "measure" in kinds
            or ("count" in kinds and not unit)
            or ("time" in kinds and unit in TIME_UNITS)
            or ("percent" in kinds and unit == "%")
            or ("change" in kinds and unit)
        ):
            out.add(format(q.value.normalize(), "f"))
    if not kinds or "count" in kinds:
        out |= number_words(text)
    return out
