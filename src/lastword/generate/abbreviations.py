"""A document's own abbreviations, learned at answer time from the passages it retrieved.

Papers define a short form once ("feed conversion ratio (FCR)", "MNTC (maximum non-toxic
concentration)") and then use it alone: the sentence that answers "what was the feed
conversion ratio" says "FCR: 1.70". ``find_abbreviations`` reads such definitions out of the
passages with the Schwartz-Hearst rule (every character of the short form, in order, within
the long form, the first one starting a word; the long form no longer than it needs to be),
and ``Abbreviations.expand`` lets a sentence that writes one form count the other form's words.
Nothing is keyed to a subject: only what the passages themselves define is learned.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: a short form: 2-10 characters, starting with a letter, at least two capitals or digits
_SHORT = r"[A-Za-z][A-Za-z0-9\-]{1,9}"
_LONG_THEN_SHORT = re.compile(r"\((" + _SHORT + r")s?[;,)]")
_SHORT_THEN_LONG = re.compile(r"(?<![\w-])(" + _SHORT + r")\s+\(([^()]{4,80})\)")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-']*")
#: a glossary entry, as under a table or in a list of abbreviations: "ZEA, zearalenone.",
#: "ECE: Embryonated chicken egg; EID50: Egg infectious dose 50%;" (at the start of a text,
#: after "Abbreviations" or after the entry before it)
_GLOSSARY = re.compile(
    r"(?:^|[;.]\s+|\babbreviations?:?\s+)(" + _SHORT + r")\s*[,:=]\s+([^;.:()]{3,80}?)"
    r"(?=\s*(?:[;.]|$))",
    re.I,
)


def _singular(short: str) -> str:
    """ "TLRs" -> "TLR", "ECEs" -> "ECE"."""
    return short[:-1] if short.endswith("s") and short[:-1].isupper() else short


def _is_short_form(text: str) -> bool:
    capitals = sum(ch.isupper() or ch.isdigit() for ch in text)
    return 2 <= len(text) <= 10 and capitals >= 2 and capitals >= len(text) / 2


def long_form_for(short: str, text_before: str) -> str | None:
    """The long form that ``short`` abbreviates at the end of ``text_before`` (Schwartz-Hearst)."""
    letters = [ch.lower() for ch in short if ch.isalnum()]
    if len(letters) < 2:
        return None
    words = text_before.split()
    window = " ".join(words[-min(len(letters) + 5, 2 * len(letters)) :])
    s, i = len(letters) - 1, len(window) - 1
    while s >= 0:
        while i >= 0 and (
            window[i].lower() != letters[s] or (s == 0 and i > 0 and window[i - 1].isalnum())
        ):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    start = window.rfind(" ", 0, i + 1) + 1
    long = window[start:].strip(" ,;:")
    if long.lower() == short.lower() or len(long) < len(short) + 3:
        return None
    return long


@dataclass
class Abbreviations:
    """Short form -> long form, as the passages define them."""

    pairs: dict[str, str] = field(default_factory=dict)

    def expand(self, text: str, stem) -> set[str]:
        """The stems a sentence stands for through its abbreviations: a short form written in
        it brings its long form's words, a long form written in it brings its short form."""
        extra: set[str] = set()
        tokens = {_singular(w) for w in _WORD.findall(text)}
        lowered = " ".join(text.lower().split())
        for short, long in self.pairs.items():
            if short in tokens:
                extra |= {stem(w) for w in _WORD.findall(long)}
            if long.lower() in lowered:
                extra.add(stem(short))
        return extra


_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]{1,7}(?![\w-])")


def question_initials(question: str, texts: Iterable[str]) -> dict[str, str]:
    """Short forms in the texts whose letters are the initials of consecutive words of the
    question ("MNTC" for its "maximum non-toxic concentration"), each with those words."""
    parts = [(w, p) for w in question.split() for p in w.strip("?,.;:()").split("-") if p]
    initials = "".join(p[0].lower() for _, p in parts)
    found: dict[str, str] = {}
    for text in texts:
        for token in _TOKEN.findall(text):
            short = _singular(token)
            if short in found or not _is_short_form(short) or not short.isalpha():
                continue
            at = initials.find(short.lower())
            if len(short) >= 3 and at >= 0:
                words = dict.fromkeys(w.strip("?,.;:()") for w, _ in parts[at : at + len(short)])
                found[short] = " ".join(words)
    return found


def find_abbreviations(texts: Iterable[str], question: str | None = None) -> Abbreviations:
    """Every definition "long form (SF)", "SF (long form)" or, as a glossary entry, "SF, long
    form" / "SF: long form" in the texts; with ``question``,
    also the short forms in the texts that spell the initials of the question's words."""
    texts = list(texts)
    pairs: dict[str, str] = {}
    for text in texts:
        flat = " ".join(text.split())
        for match in _LONG_THEN_SHORT.finditer(flat):
            short = _singular(match.group(1))
            if not _is_short_form(short) or short in pairs:
                continue
            long = long_form_for(short, flat[: match.start()])
            if long:
                pairs[short] = long
        for match in _SHORT_THEN_LONG.finditer(flat):
            short, inside = _singular(match.group(1)), match.group(2).strip()
            if not _is_short_form(short) or short in pairs or len(inside.split()) < 2:
                continue
            # the long form must spell the short form from its first word on
            long = long_form_for(short, inside)
            if long and inside.lower().startswith(long.lower()):
                pairs[short] = long
        for match in _GLOSSARY.finditer(flat):
            short, entry = _singular(match.group(1)), match.group(2).strip()
            if not _is_short_form(short) or short in pairs:
                continue
            # the whole entry is the long form, spelling the short form from its first word
            long = long_form_for(short, entry)
            if long and long.lower() == entry.lower():
                pairs[short] = long
    if question:
        for short, long in question_initials(question, texts).items():
            pairs.setdefault(short, long)
    return Abbreviations(pairs)
