"""What a person would read: the text behind compatibility, invisible and look-alike characters.

One reading module for everything that screens text for meaning: the chat's pre-search gate
(``lastword.chat.safety``) and the instruction detector (``lastword.injection``). A message or a
source can hide words from a plain regular expression in ways a reader never notices:
compatibility characters (full-width and styled letters), invisible characters (zero-width
space, soft hyphen, tag characters), odd spaces inside a word (hair space), look-alike letters
from other scripts (Cyrillic "о", small capital "ᴏ", "ł", "ø"), digits and symbols for letters
("p0rn", "k!ll", capital "I" for "l"), markup inside a word ("p**or**n"), letters spaced apart
("p o r n") and loose spellings ("kill my self", "how 2").

``fold(text)`` is the person's reading that keeps case and punctuation (what
``lastword.injection`` reads); ``readings(text)`` gives every normalised reading the gate must
screen, a match in any one of them refusing:

1. NFKC (full-width and styled letters become plain ones), then format characters (Unicode
   category Cf: zero-width, bidi, tags) and other invisible characters removed;
2. look-alike letters from Cyrillic, Greek, small capitals and a few Latin letters with strokes
   mapped to the Latin letter they show;
3. case folded, accents removed, punctuation turned into spaces (``normalise``);
4. runs of three or more one-character words joined ("p o r n" -> "porn");
5. digits inside words that also hold letters read as letters (0->o, 1->i or l, 3->e, 4->a,
   5->s, 7->t; "1" gives two readings);
6. loose spellings rewritten ("my self" -> "myself", "how 2" -> "how to", "u" -> "you").

A second, "undone" reading of the raw text first removes odd spaces inside words (U+2000 to
U+200A, no-break spaces), reads a capital "I" after a letter as "l", symbols between letters
as the letters they stand for ("!" and "|" -> i, "@" -> a, "$" -> s) and drops markup inside a
word ("*", "_", "~", ".", "-"), then takes the same steps.

Only words mixing letters and digits are re-read in step 5, so "5 mg", "COVID 19" or "p53 in
1999" keep their numbers (measured: bench/chat_gate_false_refusals.py).
"""

from __future__ import annotations

import re
import unicodedata

#: invisible characters a reader never sees that are not in category Cf (fillers, selectors)
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
#: spaces a reader does not see inside a word (NFKC turns most into a plain space)
ODD_SPACES = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")

#: letters that look like Latin ones (lower and upper case)
_LOOKALIKES = {
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
    # small capitals
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h",
    "ɪ": "i", "ᴊ": "j", "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p",
    "ǫ": "q", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ʏ": "y",
    "ᴢ": "z",
    # Latin letters with strokes and others NFKC leaves alone
    "ı": "i", "ȷ": "j", "ℓ": "l", "ß": "ss", "ł": "l", "Ł": "l", "ø": "o", "Ø": "o",
    "đ": "d", "Đ": "d", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ƀ": "b", "ɨ": "i",
    "ʉ": "u", "ɵ": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe",
}  # fmt: skip
CONFUSABLES = str.maketrans(_LOOKALIKES)
_WORD = re.compile(r"[^\W\d_]+")

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
# the "undone" reading: a capital I after a letter is an l ("kiII"), symbols between letters
# stand for letters, markup inside a word is dropped
_CAPITAL_I = re.compile(r"(?<=[^\W\d_])I")
_SYMBOL_LETTERS = (
    (re.compile(r"(?<=[^\W\d_])[!|](?=[^\W\d_])"), "i"),
    (re.compile(r"(?<=[^\W\d_])@(?=[^\W\d_])"), "a"),
    (re.compile(r"(?<=[^\W\d_])\$(?=[^\W\d_]|\b)"), "s"),
)
_INWORD_MARKUP = re.compile(r"(?<=\w)[*_~`^.·•\-]+(?=\w)")


def _is_invisible(ch: str) -> bool:
    return ord(ch) in INVISIBLE or unicodedata.category(ch) == "Cf"


def _latin(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith("LATIN")


def _lookalikes(word: re.Match[str]) -> str:
    text = word.group(0)
    latin = [_latin(ch) for ch in text]
    if all(latin) or any(latin):
        return text.translate(CONFUSABLES)  # Latin (strokes, small capitals) or mixed scripts
    if all(ch in _LOOKALIKES for ch in text):
        return text.translate(CONFUSABLES)  # only look-alikes: shaped to pass as Latin
    return text  # a word of another script ("инструкции") stays as written


def fold(text: str) -> str:
    """NFKC, invisible characters removed, look-alike letters mapped (case and punctuation kept).

    Letters from another script are mapped only in a word that mixes scripts or is made of
    look-alikes alone: "Іgnore" reads "Ignore", a Russian word stays Russian.
    """
    if text.isascii():
        return text  # nothing to fold (the common case: most prose is ASCII)
    plain = unicodedata.normalize("NFKC", text)
    plain = "".join(ch for ch in plain if not _is_invisible(ch))
    return _WORD.sub(_lookalikes, plain)


def normalise(text: str) -> str:
    """Lower case, accents removed, punctuation to spaces (apostrophes kept), one space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = re.sub(r"[^\w']+", " ", plain).replace("_", " ")
    return " ".join(plain.split())


def collapse_spaced(text: str) -> str:
    """Runs of three or more one-character words joined: "p o r n videos" -> "porn videos"."""
    return _SPACED.sub(lambda m: m.group(0).replace(" ", ""), text)


def undone(text: str) -> str:
    """The raw text with word-level disguises undone (odd spaces, "kiII", "k!ll", "p**or**n")."""
    text = "".join(ch for ch in text if not _is_invisible(ch))
    text = ODD_SPACES.sub("", text)
    text = _CAPITAL_I.sub("l", text)
    for pattern, letter in _SYMBOL_LETTERS:
        text = pattern.sub(letter, text)
    return _INWORD_MARKUP.sub("", text)


def _loose(text: str) -> str:
    for pattern, replacement in _LOOSE:
        text = pattern.sub(replacement, text)
    return text


def spaced_readings(text: str) -> tuple[str, ...]:
    """The readings of ``text`` in which spaced-apart letters were joined ("k i l l" -> "kill").

    A joined run has lost its word breaks ("killmyself"); the gate screens these with the
    spaces of its phrases made optional.
    """
    return tuple(r for r in readings(text) if r not in _plain_readings(text))


def _plain_readings(text: str) -> tuple[str, ...]:
    out = []
    for source in (text, undone(text)):
        base = normalise(fold(source))
        out.append(base)
        for table in (_LEET_I, _LEET_L):
            read = _MIXED.sub(lambda m, t=table: m.group(0).translate(t), base)  # type: ignore[misc]
            out.append(_loose(read))
    return tuple(dict.fromkeys(out))


def readings(text: str) -> tuple[str, ...]:
    """Every normalised reading of ``text`` the gate screens (the plain one first)."""
    out = list(_plain_readings(text))
    for source in (text, undone(text)):
        collapsed = collapse_spaced(normalise(fold(source)))
        for table in (_LEET_I, _LEET_L):
            read = _MIXED.sub(lambda m, t=table: m.group(0).translate(t), collapsed)  # type: ignore[misc]
            out.append(_loose(read))
    return tuple(dict.fromkeys(out))
