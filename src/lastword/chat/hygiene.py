"""What leaves the machine: the member's own words after the trigger, trimmed. Nothing else.

No model rewrites the query. The member, the chat, earlier messages, the assistant's name and
the names of people mentioned never leave; Matrix user ids, @names and the names the platform
reports as mentions (the bot's localpart and display name, a colleague's pill) are removed.
Location is never sent.

The query is what the request asks to look up: the words after the trigger ("look up X"), or
the words before it when nothing follows ("X? look it up"). It is one stretch of the member's
words, so removing the trigger never joins the words around it. A name or mention inside that
stretch is different: removing it would join two words the member did not write together
("pipe Lastword bomb" -> "pipe bomb"), and keeping it would send a name. No boundary character
survives at a search provider (punctuation is ignored there), so such a query is refused, not
sent (``Query.joined``); a name next to punctuation the member wrote ("caffeine (ask @maria)")
is removed. Whatever is built, the assistant screens the final query with the pre-search gate
before it is sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lastword.chat.trigger import TriggerMatch, request_trigger

#: @name, and whole Matrix user ids (@name:server.org:8448) so no server name is left behind
_MENTION = re.compile(r"(?<!\w)@[\w.=/+-]+(?::[\w-]+(?:\.[\w-]+)*(?::\d+)?)?")
_EDGE_PUNCT = " \t\n,;:-–—"
#: punctuation the member wrote that separates the words on either side of it
_BREAK = re.compile(r"[,;:.!?()\[\]{}\"“”—–]")
#: what a trigger at the end points back at: "google it", "look that up"
_PRONOUN = re.compile(r"^\W*(?:it|that|this|them|for me|please|pls)?\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Query:
    """The query a message would send, and whether building it joined words (then refused)."""

    text: str
    #: the two words a removed name or mention would have joined, e.g. ("pipe", "bomb")
    joined: tuple[str, str] | None = None


def _name_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    cleaned = sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True)
    if not cleaned:
        return None
    alternatives = "|".join(r"\s+".join(map(re.escape, n.split())) for n in cleaned)
    return re.compile(rf"(?<![\w@])@?(?:{alternatives})(?!\w)", re.IGNORECASE)


def _removals(text: str, names: Sequence[str]) -> list[tuple[int, int]]:
    spans = [m.span() for m in _MENTION.finditer(text)]
    pattern = _name_pattern(names)
    if pattern is not None:
        spans += [m.span() for m in pattern.finditer(text)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def build_query(
    text: str,
    trigger: TriggerMatch | None,
    names: Sequence[str] = (),
    max_chars: int = 300,
    max_words: int = 50,
) -> Query:
    """The query to send for ``text`` (empty when nothing is left to search for)."""
    if trigger is not None:
        after = text[trigger.end :]
        text = text[: trigger.start] if _PRONOUN.match(after) else after
    pieces: list[str] = []
    joined: tuple[str, str] | None = None
    last = 0
    for start, end in _removals(text, names):
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    # a removal between two words with no break the member wrote would join them
    for i in range(len(pieces) - 1):
        before = "".join(pieces[: i + 1]).rstrip()
        after = "".join(pieces[i + 1 :]).lstrip()
        if not before.strip(_EDGE_PUNCT) or not after.strip(_EDGE_PUNCT):
            continue  # a name at either end of the query
        if _BREAK.match(before[-1]) or _BREAK.match(after[0]):
            continue
        joined = joined or (before.split()[-1], after.split()[0])
    words = " ".join(pieces).split()
    words = [w for w in words if w.strip(_EDGE_PUNCT)]
    query = " ".join(words[:max_words]).strip(_EDGE_PUNCT)
    if len(query) > max_chars:
        head = query[:max_chars]
        # cut at a word boundary when the next character does not continue a word
        if " " in head and query[max_chars] != " ":
            head = head.rsplit(" ", 1)[0]
        query = head.strip(_EDGE_PUNCT)
    return Query(query, joined)


def outbound_query(
    text: str,
    trigger: TriggerMatch | None,
    assistant_names: Sequence[str] = (),
    max_chars: int = 300,
    max_words: int = 50,
) -> str:
    """The words ``build_query`` would send (see there; a joined query is refused there)."""
    return build_query(text, trigger, assistant_names, max_chars, max_words).text


#: "can you", "could you please", "please" at the start of what is left of a request
_ASKING = re.compile(r"^(?:(?:can|could|would|will)\s+you\s+|please\s+)+", re.IGNORECASE)
#: a preposition before a corpus phrase: "in our papers" says where; "our papers say" is asked
_POINTING = r"(?:in|from|within|across|through|according\s+to)\s+"


def corpus_question(
    text: str,
    trigger_phrases: Sequence[str],
    corpus_phrases: Sequence[str],
    assistant_names: Sequence[str] = (),
) -> str:
    """What the corpus is asked for ``text``: the member's words minus the routing ones.

    "Lastword, can you look up in our papers how many seed sites TrustRank used?" asks the
    papers "how many seed sites TrustRank used": the assistant's name, the trigger ("look
    up"), the phrase pointing at the papers ("in our papers") and "can you" say where to look,
    not what, and the gate would count them as terms the passages fail to state. Nothing here
    leaves the machine; the assistant screens the result with the pre-search gate all the same.
    """
    for phrase in corpus_phrases:
        words = r"\s+".join(re.escape(w) for w in phrase.split())
        text = re.sub(rf"(?<!\w){_POINTING}{words}(?!\w)", " ", text, flags=re.IGNORECASE)
    trigger = request_trigger(text, trigger_phrases, assistant_names)
    query = build_query(text, trigger, assistant_names, 10_000, 10_000).text
    return _ASKING.sub("", query).strip(_EDGE_PUNCT)
