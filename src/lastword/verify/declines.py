"""Refusal language: how a model says the passages do not answer.

``has_refusal_language`` looks anywhere in a draft; ``is_decline_statement`` decides whether one
sentence is nothing but such a statement (so it may stand without a citation). A sentence that
declines and then asserts something ("The passages do not say, but X cures Y") is not a decline
statement: it is a claim and must cite.
"""

from __future__ import annotations

import re

_SUBJECT = r"(?:the\s+)?(?:provided\s+|given\s+|retrieved\s+|available\s+|above\s+)?"
_SOURCES = (
    r"(?:passages?|sources?|context|documents?|excerpts?|texts?|corpus|information|"
    r"(?:search\s+)?results?|previews?|snippets?)"
)
_NEGATED_VERB = (
    r"(?:do|does|did)\s*(?:not|n't)\s+(?:appear\s+to\s+)?"
    r"(?:contain|provide|mention|address|answer|include|say|state|discuss|report|describe|cover|"
    r"specify|indicate|give|offer|support|hold)"
)

REFUSAL_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.I)
    for p in (
        _SUBJECT + _SOURCES + r"\s+" + _NEGATED_VERB,
        r"\b(?:i|we)\s+(?:cannot|can't|can\s+not|am\s+unable\s+to|are\s+unable\s+to|"
        r"am\s+not\s+able\s+to)\s+(?:answer|determine|say|provide|find|tell|confirm)",
        r"\bunable\s+to\s+(?:answer|determine)",
        r"\b(?:not\s+enough|insufficient)\s+(?:information|evidence|data|detail)",
        r"\bno\s+(?:relevant\s+)?information\s+(?:about|on|regarding|concerning)",
        r"\b(?:no|not\s+any)\s+(?:relevant\s+)?(?:information|evidence|data|mention)\s+"
        r"(?:in|from|within)\s+" + _SUBJECT + _SOURCES,
        r"\b(?:cannot|can't|can\s+not)\s+be\s+(?:answered|determined)",
        r"\bnot\s+possible\s+to\s+(?:answer|determine|say)",
        r"\bi\s+(?:do\s+not|don't)\s+know\b",
        r"\b(?:is|are)\s+not\s+(?:mentioned|addressed|covered|discussed|answered)\s+"
        r"(?:in|by)\s+" + _SUBJECT + _SOURCES,
    )
)

#: words that turn a decline into "decline, then claim"
_CONTRAST_RE = re.compile(r"\b(?:but|however|although|though|yet|whereas|instead)\b", re.I)
_DECLINE_MAX_WORDS = 30
#: a decline statement talks about the sources or the asker, not about the world
_ABOUT_US_RE = re.compile(
    r"\b(?:passages?|sources?|context|documents?|excerpts?|corpus|provided|given|retrieved|"
    r"i|we|question|answer)\b",
    re.I,
)


def has_refusal_language(text: str) -> bool:
    return any(p.search(text) for p in REFUSAL_PATTERNS)


def is_decline_statement(sentence: str) -> bool:
    """True for a sentence that only says the passages do not answer."""
    if not has_refusal_language(sentence):
        return False
    if any(ch.isdigit() for ch in sentence) or _CONTRAST_RE.search(sentence):
        return False
    if not _ABOUT_US_RE.search(sentence):
        return False  # "There is insufficient evidence that X works" is a claim about the world
    return len(re.findall(r"\w+", sentence)) <= _DECLINE_MAX_WORDS
