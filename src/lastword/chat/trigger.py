"""The deterministic trigger: the web path runs only when a member's words ask for it.

No model decides that a message "wants current information". A phrase from the settings list,
matched on whole words and case-insensitively, is the only way in, and only when it is a
request to look something up: it opens the message or one of its clauses, after the
assistant's name, a mention and polite words ("Lastword, can you please look up ...",
"... half-life? Google it"). A trigger word used in passing is not a request: "Did Google Flu
Trends overestimate ...?" or "how to kill look up myself" search nothing. A capitalised
trigger followed by a capitalised word ("Google Flu Trends", "Google Scholar") is a name.

A message that points at the lab's own material (``[chat] corpus_phrases``: "in our papers",
"in the corpus", "in our notes", ...) is a corpus question even when it holds a trigger: "Can
you look up in our papers how many seed sites TrustRank used?" is answered from the papers and
nothing leaves.

A generator that asks for a lookup on its own (a ``SEARCH:`` / ``LOOKUP:`` line in its draft)
is detected here so the assistant can refuse and log the request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TriggerMatch:
    phrase: str
    start: int
    end: int


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def find_trigger(text: str, phrases: Sequence[str]) -> TriggerMatch | None:
    """The earliest trigger phrase in ``text`` (the longest one when several start together)."""
    best: TriggerMatch | None = None
    for phrase in phrases:
        match = _phrase_pattern(phrase).search(text)
        if match is None:
            continue
        candidate = TriggerMatch(phrase, match.start(), match.end())
        if (
            best is None
            or candidate.start < best.start
            or (candidate.start == best.start and candidate.end > best.end)
        ):
            best = candidate
    return best


#: what may stand between the start of a clause and a trigger that is a request
_POLITE = re.compile(
    r"(?:\b(?:please|pls|plz|kindly|just|quickly|now|also|and|then|ok|okay|hey|hi|hello|so|"
    r"can|could|would|will|you|u|go|ahead|i|want|would like|'d|like|to|por favor|puedes|"
    r"podrias)\b[\s,]*)+$",
    re.IGNORECASE,
)
#: a clause boundary the member wrote: start of text, sentence end, colon, comma, dash, bracket
_CLAUSE_END = re.compile(r"(?:^|[.!?;:,\n(\[{—–-])\s*$")
#: a Matrix user id or an @name, which may address the assistant before the request
_ADDRESS = re.compile(r"(?<!\w)@[\w.=/+-]+(?::[\w-]+(?:\.[\w-]+)*(?::\d+)?)?")


def _is_request(text: str, match: TriggerMatch, names: Sequence[str]) -> bool:
    before = _ADDRESS.sub(" ", text[: match.start])
    for name in names:
        if name.strip():
            before = re.sub(rf"(?<!\w){re.escape(name.strip())}(?!\w)", " ", before, flags=re.I)
    before = _POLITE.sub("", before.rstrip())
    if not _CLAUSE_END.search(before):
        return False
    word = text[match.start : match.end]
    after = text[match.end :].lstrip()
    # "Google Flu Trends", "Google Scholar": a capitalised trigger then a capitalised word
    return not (" " not in match.phrase and word[:1].isupper() and re.match(r"[A-Z][a-z]", after))


def request_trigger(
    text: str, phrases: Sequence[str], names: Sequence[str] = ()
) -> TriggerMatch | None:
    """The earliest trigger phrase in ``text`` that is a request to look something up."""
    best: TriggerMatch | None = None
    for phrase in phrases:
        for match in _phrase_pattern(phrase).finditer(text):
            candidate = TriggerMatch(phrase, match.start(), match.end())
            if not _is_request(text, candidate, names):
                continue
            if (
                best is None
                or candidate.start < best.start
                or (candidate.start == best.start and candidate.end > best.end)
            ):
                best = candidate
            break
    return best


def points_at_corpus(text: str, phrases: Sequence[str]) -> str | None:
    """The first corpus phrase ``text`` contains ("our papers"), or None."""
    for phrase in phrases:
        if _phrase_pattern(phrase).search(text):
            return phrase
    return None


def web_trigger(
    text: str,
    triggers: Sequence[str],
    corpus_phrases: Sequence[str],
    names: Sequence[str] = (),
) -> TriggerMatch | None:
    """The trigger that sends ``text`` to the web, or None: no request, or a corpus question."""
    trigger = request_trigger(text, triggers, names)
    if trigger is None or points_at_corpus(text, corpus_phrases) is not None:
        return None
    return trigger


#: How a model's draft asks for a search nobody triggered (a tool-style line).
_LOOKUP_REQUEST = re.compile(
    r"^\s*(?:SEARCH|LOOKUP|LOOK UP|WEB[_ ]SEARCH|SEARCH[_ ]WEB|SEARCH[_ ]QUERY)\s*:\s*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)


def lookup_request(draft: str | None) -> str | None:
    """The query a draft asks to search for on its own, or None."""
    if not draft:
        return None
    match = _LOOKUP_REQUEST.search(draft)
    return match.group(1).strip() if match else None


_SPECIFIC_THING = re.compile(
    r"\"[^\"]{2,}\"|“[^”]{2,}”|'[^']{3,}'"  # quoted text
    r"|\b(?=\w*\d)(?=\w*[A-Za-z])[\w-]{3,}\b"  # a code mixing letters and digits: BRCA1, COVID-19
    r"|\b[A-Z]{3,}\b"  # an acronym: CRISPR, NIH
)


def names_specific_thing(text: str) -> bool:
    """Whether a question names a specific thing (quoted text, a code, an acronym).

    Used only by the widening switch (off by default): such a question with a weak corpus
    gate may search first instead of guessing.
    """
    return _SPECIFIC_THING.search(text) is not None
