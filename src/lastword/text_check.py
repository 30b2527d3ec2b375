"""Text that is not valid Unicode: found once, named in one clear ``InputError``.

Python carries bytes that are not UTF-8 (a command-line argument, a file name) as lone
surrogates (``\\udcff``), and JSON can spell one (``"\\ud800"``). Neither can be encoded, stored
in SQLite or tokenized: left alone they surface as a traceback deep inside a library. Each edge
that takes text from outside (CLI arguments, questions, JSONL records, extracted pages) checks it
here first.
"""

from __future__ import annotations

import re

from lastword.errors import InputError

_SURROGATE = re.compile("[\ud800-\udfff]")
#: C0/C1 controls (ESC starts terminal escape sequences) except tab and newline, DEL, and the
#: bidirectional overrides that reorder what a terminal shows
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def printable(text: str) -> str:
    """Untrusted text (file names, record ids, papers, snippets, answers) safe to print on a
    terminal: control characters removed, so no escape sequence reaches it. The one filter
    every face uses for text it did not write itself."""
    return _UNPRINTABLE.sub("", text)


def invalid_unicode_at(text: str) -> int | None:
    """The position of the first character that cannot be UTF-8 encoded, or None."""
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def shown(text: str, limit: int = 80) -> str:
    """``text`` safe to print: undecodable bytes as ``\\xff``, surrogates as ``\\ud800``."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    if _only_escapes(cut):  # bytes smuggled in by surrogateescape: show the bytes
        return cut.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


def _only_escapes(text: str) -> bool:
    return all("\udc80" <= ch <= "\udcff" for ch in _SURROGATE.findall(text))


def check_text(text: str, what: str) -> str:
    """``text`` unchanged, or ``InputError`` naming ``what`` and where the bad character is."""
    position = invalid_unicode_at(text)
    if position is not None:
        raise InputError(
            f"{what} is not valid Unicode text (character {position + 1} is a byte that is not "
            f"UTF-8 or an unpaired surrogate): '{shown(text)}'; nothing was done"
        )
    return text
