"""What leaves the machine: the member's own words, minus the trigger, trimmed. Nothing else.

No model rewrites the query. The member, the chat, earlier messages and the assistant's name
never leave; @mentions are removed because they name people. Location is never sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lastword.chat.trigger import TriggerMatch, find_trigger

#: @name, and whole Matrix user ids (@name:server.org:8448) so no server name is left behind
_MENTION = re.compile(r"(?<!\w)@[\w.=/+-]+(?::[\w-]+(?:\.[\w-]+)*(?::\d+)?)?")
_EDGE_PUNCT = " \t\n,;:-–—"


def outbound_query(
    text: str,
    trigger: TriggerMatch | None,
    assistant_names: Sequence[str] = (),
    max_chars: int = 300,
    max_words: int = 50,
) -> str:
    """The query to send for ``text``; empty when nothing is left to search for."""
    if trigger is not None:
        text = text[: trigger.start] + " " + text[trigger.end :]
    text = _MENTION.sub(" ", text)
    for name in assistant_names:
        if name.strip():
            text = re.sub(rf"(?<!\w){re.escape(name.strip())}(?!\w)", " ", text, flags=re.I)
    words = text.split()
    words = [w for w in words if w.strip(_EDGE_PUNCT)]
    query = " ".join(words[:max_words]).strip(_EDGE_PUNCT)
    if len(query) > max_chars:
        head = query[:max_chars]
        # cut at a word boundary when the next character does not continue a word
        if " " in head and query[max_chars] != " ":
            head = head.rsplit(" ", 1)[0]
        query = head.strip(_EDGE_PUNCT)
    return query


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
    not what, and the gate would count them as terms the passages fail to state.
    """
    for phrase in corpus_phrases:
        words = r"\s+".join(re.escape(w) for w in phrase.split())
        text = re.sub(rf"(?<!\w){_POINTING}{words}(?!\w)", " ", text, flags=re.IGNORECASE)
    query = outbound_query(
        text, find_trigger(text, trigger_phrases), assistant_names, 10_000, 10_000
    )
    return _ASKING.sub("", query).strip(_EDGE_PUNCT)
