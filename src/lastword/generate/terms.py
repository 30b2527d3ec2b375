"""A question's and a sentence's words as the answer scorer reads them: content stems
(``terms``), codes and numbers (``is_rare_token``), the property a yes/no question asks about
(``attribute_terms``), the places a sentence names (``named_places``) and the question's words a
sentence states as a compound's parts (``compound_terms``)."""

from __future__ import annotations

import re

from lastword.generate.question_kinds import asked_attribute, asked_measured, asked_owner

_STEM = 6
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9\-']*[A-Za-z0-9]|[A-Za-z0-9]+(?:[\-/.][A-Za-z0-9]+)*")
STOP = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    may might more most much must my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these they
    this those through to too under until up upon very via was we were what when where which
    while who whom why will with within without would you your whether among versus vs per also
    many long often far large old high did does do use used using give gave given take took
    taken show showed shown according paper study studies trial experiment work article review
    reported report reports value values measured part total number
    cite cited cites citing""".split()
)


#: the plural of a short form ("MICs", "SNPs", "ESTs") is stemmed as the short form: six letters
#: keep "products" and "product" together but not "mics" and "mic"
PLURALS = True
_ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")


def stem(word: str) -> str:
    if PLURALS and _ACRONYM_PLURAL.match(word):
        word = word[:-1]
    return word.lower()[:_STEM]


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


#: the taxonomic abbreviations papers write for words a question spells out ("var. grubii" for
#: which variety)
_SPELLED_OUT = {
    "var": "variety",
    "sp": "species",
    "spp": "species",
    "subsp": "subspecies",
    "ssp": "subspecies",
    "cv": "cultivar",
    "cvs": "cultivar",
}


#: verbs made of stop words that stand for one content word: "took part" is "participated"
#: (its stem also meets "participants"). A closed class, like ``_SPELLED_OUT``
_PHRASAL = re.compile(r"\b(?:take|takes|took|taken|taking)\s+part\b", re.I)
PHRASAL = True


def terms(text: str) -> set[str]:
    """Content stems; a compound led by a number also stands for its rest ("280-day-old" for
    "day-old", "12-week" for "week"); "var." also stands for "variety" (``_SPELLED_OUT``);
    "took part" for "participated" (``_PHRASAL``)."""
    out = set()
    if PHRASAL and _PHRASAL.search(text):
        out.add(stem("participate"))
    for w in words(text):
        if w.lower() in STOP or len(w) < 2:
            continue
        out.add(stem(w))
        if (spelled := _SPELLED_OUT.get(w.lower())) is not None:
            out.add(stem(spelled))
        head, _, rest = w.partition("-")
        if rest and head.isdigit() and rest.lower() not in STOP and len(rest) > 1:
            out.add(stem(rest))
    return out


#: words that name a measure or an aspect of a property, not the property: "the protein
#: *content*", "the *quality* of discharge", "the *risk* of embolism", "treatment *outcome*"
MEASURE_WORDS = frozenset(
    stem(w)
    for w in """content contents level levels amount amounts concentration concentrations rate
    rates degree extent quantity size proportion percentage share count counts frequency
    incidence quality risk effect effects effectiveness efficacy impact outcome outcomes role
    way management severity occurrence use utilization performance result results function
    status parameter parameters course likelihood development accuracy response responses""".split()
)


def attribute_terms(question: str) -> frozenset[str]:
    """The content stems of the property a yes/no question asks about (``asked_attribute``):
    its words that are not measure words ("protein" of "the protein content"), with its head
    word ("content"; "management" of "surgical management", which "the intraoperative
    management" states). Empty when only measure words are left ("the quality of ..."): words
    cannot check a property named so generally."""
    attribute = asked_attribute(question)
    key = terms(attribute) - MEASURE_WORDS
    if not key:
        return frozenset()
    return frozenset(key | terms(attribute.split()[-1]))


#: words that say which value of an amount is asked, not what it is an amount of: "the
#: *maximum* level", "the *mean* concentration"
QUALIFIERS = frozenset(
    stem(w)
    for w in """maximum minimum mean average median total final initial basal peak highest lowest
    overall permitted permissible allowed recommended optimal optimum typical usual daily
    annual toxic non-toxic nontoxic lethal effective inhibitory safe tolerated minimal""".split()
)


def measured_terms(question: str) -> frozenset[str]:
    """The content stems of what a wh-question asks the amount of (``asked_measured``):
    "plasma", "cortisol" of "What plasma cortisol levels ...?"; empty when only qualifiers are
    left ("What maximum level for zearalenone ...?" names it elsewhere)."""
    return frozenset(terms(asked_measured(question)) - MEASURE_WORDS - QUALIFIERS)


def owner_terms(question: str) -> frozenset[str]:
    """The content stems of what a wh-question asks the amount of when it names it after "of"
    (``asked_owner``): "ocimum", "sanctu", "acacia", "arabic", "leaf", "extrac" of "What was
    the maximum non-toxic concentration of the Ocimum sanctum and Acacia arabica leaf extracts
    in ...?"; empty for other questions."""
    return frozenset(terms(asked_owner(question)) - MEASURE_WORDS - QUALIFIERS)


def is_rare_token(word: str) -> bool:
    """A code, a name with digits or capitals inside, or a number: "TLR7", "33RE", "H9N2"."""
    if any(ch.isdigit() for ch in word):
        return True
    inner = word[1:]
    return any(ch.isupper() for ch in inner) and any(ch.islower() for ch in word + "a")


#: a place a sentence names: "Maharashtra state", "Lake Victoria", "from India," / "in Iran."
_PLACE_RE = re.compile(
    r"\b([A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)?)\s+(?:state|province|region|district|county|"
    r"country|city|town|village|lake|river|island|valley|farm|reserve|preserve|park|coast)\b"
    r"|\b(?:lake|river|mount|island\s+of|province\s+of|state\s+of)\s+([A-Z][a-z]{2,})"
    r"|\b(?:from|in|at|near)\s+(?:the\s+)?([A-Z][a-z]{3,}(?:\s+[A-Z][a-z]+)?)\s*[,.;)]",
)
#: capitalised words that follow "in" / "from" without naming a place
_NOT_PLACES = frozenset(
    """figure fig table supplementary section appendix january february march april may june
    july august september october november december spring summer autumn winter""".split()
)


def named_places(text: str, question_terms: frozenset[str] | set[str]) -> set[str]:
    """The stems of the places ``text`` names that the question's terms do not: a capitalised
    name before a place noun ("Maharashtra state"), after one ("Lake Victoria"), or closing a
    phrase after from / in / at ("from Iran,")."""
    found = set()
    for match in _PLACE_RE.finditer(text):
        name = next(g for g in match.groups() if g)
        first = name.split()[0].lower()
        if first in _NOT_PLACES or first in STOP:
            continue
        stems = {stem(w) for w in name.split()}
        if not stems & question_terms:
            found |= stems
    return found


#: the shortest part of a compound that counts: "sero" of "seropositive", "water" of
#: "waterlogging" (shorter parts, "pre" / "non", match too many words)
COMPOUND_PART = 4


def _bare(word: str) -> str:
    return word.lower().replace("-", "")


def compound_terms(question_words: frozenset[str], text: str) -> set[str]:
    """The stems of the question's words that ``text`` states as parts of a compound, where the
    sentence's own stems miss them. A question word written whole is matched by its two parts
    in the sentence: "seropositive" by "positive" with a word opening "sero" ("positive
    serologically"); "non-toxic" by "nontoxic". A question's two words written as one compound
    in the sentence are matched by it: "water logging" by "waterlogging". Every part is attested
    where it is matched: the tail as a word of the sentence, the head as the opening of another
    of its words (or both as the question's own words). ``question_words`` are the question's
    content words in lower case."""
    sentence = [w for w in words(text) if len(w) >= 2]
    if not sentence or not question_words:
        return set()
    bare = {_bare(w) for w in sentence}
    tails = {stem(w) for w in sentence if len(w) >= COMPOUND_PART}
    found: set[str] = set()
    for q in question_words:
        joined = _bare(q)
        if joined != q and joined in bare:
            found.add(stem(q))  # "non-toxic" written "nontoxic"
            continue
        if len(joined) < 2 * COMPOUND_PART:
            continue
        for cut in range(COMPOUND_PART, len(joined) - COMPOUND_PART + 1):
            head, tail = joined[:cut], joined[cut:]
            if tail in STOP or stem(tail) not in tails:
                continue
            if any(w != joined and w.startswith(head) and not w.startswith(joined) for w in bare):
                found.add(stem(q))
                break
    # the question's two neighbouring words written as one in the sentence
    plain = sorted(question_words)
    for word in bare:
        if len(word) < 2 * COMPOUND_PART:
            continue
        for a in plain:
            if len(a) >= COMPOUND_PART and word.startswith(a) and word != a:
                rest = word[len(a) :]
                for b in plain:
                    if b != a and len(b) >= COMPOUND_PART and stem(rest) == stem(b):
                        found |= {stem(a), stem(b)}
    return found
