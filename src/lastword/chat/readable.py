"""What a person would read: the spellings the pre-search gate screens, not the raw characters.

A message can hide a screened phrase from a plain regular expression in ways a reader does not
even notice: compatibility characters (full-width letters), invisible characters (zero-width
space, soft hyphen), look-alike letters from other scripts (Cyrillic "о"), digits for letters
("p0rn", "k1ll"), letters spaced or dotted apart ("p o r n", "p.o.r.n"), and loose spellings
("kill my self", "how 2"). ``readings(text)`` returns every reading the gate must screen; a
match in any one of them refuses.

The steps, in order:

1. NFKC (full-width and styled letters become plain ones), then invisible characters removed;
2. look-alike letters from Cyrillic and Greek mapped to the Latin letter they show;
3. case folded, accents removed, punctuation turned into spaces (``normalise``);
4. runs of three or more one-character words joined ("p o r n" -> "porn");
5. digits inside words that also hold letters read as letters (0->o, 1->i or l, 3->e, 4->a,
   5->s, 7->t; "1" gives two readings);
6. loose spellings rewritten ("my self" -> "myself", "how 2" -> "how to", "u" -> "you").

Only words mixing letters and digits are re-read in step 5, so "5 mg", "COVID 19" or "p53 in
1999" keep their numbers (measured: bench/chat_gate_false_refusals.py, 0 of 1,000 PubMedQA
questions refused).
"""

from __future__ import annotations

import re
import unicodedata

#: zero-width and other invisible characters a reader never sees
INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e"
        "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
        "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d"
        "\u206e\u206f\u3164\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07\ufe08\ufe09"
        "\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f\ufeff\uffa0",
    )
)

#: Cyrillic and Greek letters that look like Latin ones (lower and upper case)
CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i",
        "ї": "i", "ј": "j", "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p",
        "ԛ": "q", "г": "r", "ѕ": "s", "т": "t", "у": "y", "ѡ": "w", "х": "x", "ү": "y",
        "А": "a", "В": "b", "С": "c", "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k",
        "М": "m", "О": "o", "Р": "p", "Ѕ": "s", "Т": "t", "У": "y", "Х": "x", "Ү": "y",
        "Ԁ": "d", "Ԛ": "q", "Ԝ": "w", "ԝ": "w", "Ӏ": "l",
        # Greek
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "Α": "a", "Β": "b", "Ε": "e",
        "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p",
        "Τ": "t", "Υ": "y", "Χ": "x",
        # other look-alikes NFKC leaves alone
        "ı": "i", "ȷ": "j", "ℓ": "l", "ß": "ss",
    }
)  # fmt: skip

_LEET_I = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
_LEET_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
_MIXED = re.compile(r"\b(?=[a-z]*\d)(?=\d*[a-z])[a-z\d]+\b")
_SPACED = re.compile(r"(?<!\S)(?:[a-z013457] ){2,}[a-z013457](?!\S)")
_LOOSE = (
    (re.compile(r"\b(my|your|him|her|them|one|it) ?(self|selves)\b"), r"\1\2"),
    (re.compile(r"\bhow (?:2|too)\b"), "how to"),
    (re.compile(r"\bhow2\b"), "how to"),
    (re.compile(r"\bways? (?:2|too)\b"), "ways to"),
    (re.compile(r"\b(?:u|ya)\b"), "you"),
    (re.compile(r"\bi'?m\b"), "i am"),
    (re.compile(r"\b(?:gonna|wanna)\b"), "going to"),
)


def fold(text: str) -> str:
    """NFKC, invisible characters removed, look-alike letters mapped (case kept)."""
    return unicodedata.normalize("NFKC", text).translate(INVISIBLE).translate(CONFUSABLES)


def normalise(text: str) -> str:
    """Lower case, accents removed, punctuation to spaces (apostrophes kept), one space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = re.sub(r"[^\w']+", " ", plain).replace("_", " ")
    return " ".join(plain.split())


def collapse_spaced(text: str) -> str:
    """Runs of three or more one-character words joined: "p o r n videos" -> "porn videos"."""
    return _SPACED.sub(lambda m: m.group(0).replace(" ", ""), text)


def _loose(text: str) -> str:
    for pattern, replacement in _LOOSE:
        text = pattern.sub(replacement, text)
    return text


def readings(text: str) -> tuple[str, ...]:
    """Every normalised reading of ``text`` the gate screens (the plain one first)."""
    base = normalise(fold(text))
    out = [base]
    collapsed = collapse_spaced(base)
    for candidate in (base, collapsed):
        for table in (_LEET_I, _LEET_L):
            read = _MIXED.sub(lambda m, t=table: m.group(0).translate(t), candidate)  # type: ignore[misc]
            out.append(_loose(read))
    seen: dict[str, None] = {}
    for reading in out:
        seen.setdefault(reading, None)
    return tuple(seen)
