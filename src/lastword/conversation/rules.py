"""The deterministic rewrite: whether a message leans on the earlier turn, and its standalone form.

A message leans on the earlier turn when it has no subject of its own:

- it *replaces* a part of the last question: "what about X?", "how about X?", "the same for X",
  "and in X?" / "and for X?" (a preposition: the last question's phrase with that preposition is
  swapped for X, or X is added), "and X?" (X takes the place of what was asked);
- it *refers* back (they, it, their, this, that, these, those, the study, ...) or opens with a
  connective ("and", "also", "so") and names fewer than two specific things of its own;
- it names no specific thing at all ("why?", "how many were there?").

Otherwise it stands alone, and a message opening with "new question:", "different topic:" and the
like always does. A carried message keeps its own words and gains the earlier turn's *subject
terms* (the specific words of its standalone question, less what it asked for); the documents
the earlier answer cited are carried beside them (``Rewrite.documents``). Nothing of an earlier
answer's text is ever carried.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lastword.conversation.history import Turn
from lastword.terms import STOPWORDS

#: words any question may hold without naming what it is about
GENERIC = frozenset(
    """what which who whom whose how many much long large high low often why when where big old
    far dose doses dosage amount amounts value values level levels number numbers rate rates ratio
    ratios percentage percentages percent proportion share total mean average maximum minimum
    result results finding findings find found show shown showed report reported reports conclude
    concluded conclusion conclusions main first second third last same different other others
    measure measured measurement measurements test tested tests testing method methods sample
    samples group groups treatment treatments condition conditions paper papers article review
    trial trials experiment experiments author authors researchers work data analysis analyses
    give gave given get got take took taken make made follow followed size time times day days
    week weeks month months year years period duration increase increased decrease decreased
    change changed changes reduce reduced raise raised improve improved compare compared
    comparison difference differences differ differed significant significantly cause caused
    reason reasons kind kinds type types part parts way ways thing things say said state stated
    mention mentioned describe described exactly approximately roughly there one ones else
    happen happened come came see seen look looked tell told know known whole overall
    longer go goes went
    does did do doing done was were is are been be has have had can could would will should
    yes any all each every lot lots best better worse worst most least more less giving
    control controls animals people participants subjects individuals cases causes run ran need
    needed include included including finally confirm confirmed set""".split()
)

#: pronouns that stand for something said before
_PRONOUNS = frozenset("they them their theirs it its he she his her him hers".split())
#: words that point back at something said before
_REFERRING = _PRONOUNS | frozenset("this that these those there then such former latter".split())
_CONNECTIVE = re.compile(r"^\s*(?:and|also|so|then|but|or|plus|ok(?:ay)?|thanks)\b[\s,]*", re.I)
_NEW_TOPIC = re.compile(
    r"^\s*(?:new\s+(?:question|topic|subject)|(?:a\s+)?different\s+(?:question|topic|subject)|"
    r"unrelated(?:\s+question)?|another\s+(?:question|topic)|separate\s+question|"
    r"switching\s+(?:topics?|subjects?|gears)|changing\s+(?:the\s+)?(?:topic|subject)|"
    r"on\s+(?:another|a\s+different)\s+(?:note|topic)|something\s+else|other\s+topic)"
    r"\s*[:,;.!\-–—]*\s*",
    re.I,
)
_PREPS = (
    "in|for|with|at|among|on|from|after|during|under|without|against|of|to|by|over|between|"
    "before|within|inside|across|near"
)
_PREP_WORDS = frozenset(_PREPS.split("|"))
_AUX = frozenset(
    "is are was were be been did do does has have had can could will would should may might "
    "shall must".split()
)
_WH = frozenset("what which who whom whose how where when why".split())
_HEAD_SKIP = frozenset("many much long large high often big old far the a an".split())
_ABOUT = re.compile(r"^\s*(?:(?:and|but|or|so)[\s,]+)?(?:what|how)\s+about\s+(?P<x>.+?)\s*$", re.I)
_SAME = re.compile(
    r"^\s*(?:(?:and|but|or|so)[\s,]+)?(?:(?:is|was|and)\s+(?:it|that)\s+)?(?:the\s+)?same\s+"
    rf"(?P<prep>{_PREPS})\s+(?P<x>.+?)\s*$",
    re.I,
)
_AND_PREP = re.compile(rf"^\s*(?:and|but|or|also)[\s,]+(?P<prep>{_PREPS})\s+(?P<x>.+?)\s*$", re.I)
_AND_X = re.compile(r"^\s*(?:and|but|or)[\s,]+(?P<x>.+?)\s*$", re.I)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-']*[A-Za-z0-9]|[A-Za-z0-9]")
_TRAILING = " \t?.!,;:"
#: a replaced part longer than this is a question of its own, not a follow-up
MAX_REPLACEMENT_WORDS = 8
#: subject terms a turn keeps at most
MAX_CARRIED = 10
#: subject terms a follow-up carries at most, the rarest in the corpus: more dilute what the
#: message itself asks
CARRIED_WORDS = 6
#: a message pointing back ("those", "there") naming at least this many specific things of its
#: own stands alone; with a pronoun standing for the subject ("it", "they") it needs more; one
#: more again when it opens with a connective ("And which OECD guideline did they follow?")
OWN_SUBJECT_WORDS = 2
OWN_SUBJECT_WORDS_PRONOUN = 4
#: a message with no pointer back at most this many specific words, none a name, all of them in
#: the documents the last answer cited, continues it ("How many animals gave serial samples?")
GROUNDED_WORDS = 3


@dataclass(frozen=True)
class Rewrite:
    """The standalone question for a message, and what was carried to make it."""

    message: str
    asked_as: str
    #: "standalone" (nothing carried), "new_topic", "replace", "refers", "elliptic"
    kind: str = "standalone"
    carried: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    #: the subject terms a later follow-up to this one carries
    subject: tuple[str, ...] = ()
    method: str = "rules"

    @property
    def followed_up(self) -> bool:
        return self.asked_as != self.message


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def specific_words(text: str) -> list[str]:
    """The words of ``text`` that name what it is about, in order, as written, once each."""
    seen: set[str] = set()
    found: list[str] = []
    for word in words(text):
        low = word.lower()
        if len(low) < 2 or low in STOPWORDS or low in GENERIC or low in seen or low.isdigit():
            continue
        seen.add(low)
        found.append(word)
    return found


def asked_head(question: str) -> list[str]:
    """The words naming what a wh-question asks for ("the MIC and MFC" in "What were the MIC and
    MFC of ..."), or [] when the question does not open that way."""
    tokens = words(question)
    if not tokens or tokens[0].lower() not in _WH:
        return []
    i = 1
    while i < len(tokens) and (tokens[i].lower() in _HEAD_SKIP or tokens[i].lower() in _AUX):
        i += 1
    head: list[str] = []
    while i < len(tokens):
        low = tokens[i].lower()
        if low in _AUX or low in _PREP_WORDS or low in _WH:
            break
        head.append(tokens[i])
        i += 1
    return head if len(head) <= 5 else []


def subject_of(question: str) -> tuple[str, ...]:
    """A standalone question's subject terms: its specific words less the property a "what" or
    "which" question asked for ("the MIC" of ...; kept when dropping it would leave fewer than
    two). What "how many / how much" counts is the subject ("how much caffeine")."""
    found = specific_words(question)
    opening = question.strip().split(" ", 1)[0].lower()
    head = {w.lower() for w in asked_head(question)} if opening in ("what", "which") else set()
    rest = [w for w in found if w.lower() not in head]
    return tuple((rest if len(rest) >= 2 else found)[:MAX_CARRIED])


def _limit(message: str) -> int:
    """How many specific words of its own make ``message`` stand alone despite pointing back;
    0 when it does not point back at all."""
    lowered = {w.lower() for w in words(message)}
    connective = 1 if _CONNECTIVE.match(message) else 0
    if lowered & _PRONOUNS:
        return OWN_SUBJECT_WORDS_PRONOUN + connective
    if connective or lowered & _REFERRING:
        return OWN_SUBJECT_WORDS + connective
    return 0


def named(word: str) -> bool:
    """A name, not a common word: an acronym (PCA), a code (day-2, H9N2), or a capitalised
    word inside the sentence (Efaw, Limnonectes)."""
    return (
        sum(c.isupper() for c in word) >= 2
        or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word))
        or word[:1].isupper()
    )


def _grounded(
    own: list[str], text: str, documents: Sequence[str], corpus: CorpusView | None
) -> bool:
    """Whether every specific word of a short message, none a name, is in the documents the
    last answer cited (its first word's capital is the sentence's, not a name's)."""
    if corpus is None or corpus.text is None or not documents or len(own) > GROUNDED_WORDS:
        return False
    first = words(text)[:1]
    if any(named(w) for w in own if not (first and w == first[0] and not w.isupper())):
        return False
    vocabulary: set[str] = set()
    for doc_id in documents:
        vocabulary |= {w.lower() for w in words(corpus.text(doc_id))}
    return all(_known(w.lower(), vocabulary) for w in own)


def _known(word: str, vocabulary: set[str]) -> bool:
    forms = {word, word.rstrip("s"), word + "s", word.removesuffix("es"), word.removesuffix("ing")}
    return bool(forms & vocabulary)


def _base(question: str) -> str:
    return question.strip().rstrip(_TRAILING)


def _swap_phrase(previous: str, prep: str, replacement: str) -> str:
    """``previous`` with its last ``prep ...`` phrase (up to punctuation, a verb or another
    preposition) replaced by ``prep replacement``; added at the end when it has none."""
    base = _base(previous)
    spans = list(re.finditer(rf"(?<!\w){re.escape(prep)}\s+", base, re.I))
    for match in reversed(spans):
        end = match.end()
        rest = base[end:]
        stop = len(rest)
        for token in re.finditer(r"[,;:()]|[A-Za-z0-9][A-Za-z0-9\-']*", rest):
            low = token.group().lower()
            if token.start() > 0 and (
                token.group() in ",;:()" or low in _PREP_WORDS or low in _AUX
            ):
                stop = token.start()
                break
        if not rest[:stop].strip():
            continue
        remaining = base[end + stop :].strip()
        tail = f" {remaining}" if remaining and remaining[0] not in ",;:)" else remaining
        return f"{base[: match.start()]}{prep} {replacement}{tail}?"
    return f"{base} {prep} {replacement}?"


def _swap_head(previous: str, replacement: str) -> str | None:
    head = asked_head(previous)
    if not head:
        return None
    pattern = r"\s+".join(re.escape(w) for w in head)
    found = re.search(rf"(?<!\w){pattern}(?!\w)", previous)
    if found is None:
        return None
    before = previous[: found.start()]
    if re.search(r"(?i)\b(?:the|a|an|many|much)\s*$", before):
        replacement = re.sub(r"(?i)^(?:the|a|an)\s+", "", replacement)
    return f"{before}{replacement}{previous[found.end() :].rstrip(_TRAILING)}?"


def _previous_subject(turn: Turn) -> tuple[str, ...]:
    return turn.subject or subject_of(turn.asked_as)


def _choose(groups: Sequence[Sequence[str]], titles: Sequence[str], most: int) -> tuple[str, ...]:
    """The words of whole phrases until ``most`` are chosen, in their own order: first the
    phrases with a word of the cited documents' titles (what the paper is about), then the
    others as they came."""
    flat = [w for group in groups for w in group]
    if len(flat) <= most:
        return tuple(flat)
    title = {w.lower() for t in titles for w in words(t)}
    order = sorted(range(len(groups)), key=lambda i: not any(w.lower() in title for w in groups[i]))
    chosen: set[int] = set()
    taken = 0
    for i in order:
        if taken >= most:
            break
        chosen.add(i)
        taken += len(groups[i])
    return tuple(w for i, group in enumerate(groups) if i in chosen for w in group)


def _verb_form(word: str) -> bool:
    """A participle or gerund as written in lower case ("inoculated", "feeding")."""
    return word.islower() and len(word) > 5 and word.endswith(("ed", "ing"))


def phrases(question: str, subject: Sequence[str]) -> list[list[str]]:
    """The subject words of ``question`` grouped as they stand together in it ("holy basil",
    "feeding"), in order; a subject word not in the question is a phrase of its own."""
    wanted = {w.lower() for w in subject}
    groups: list[list[str]] = []
    current: list[str] = []
    seen: set[str] = set()
    for word in words(question):
        low = word.lower()
        if low in wanted and low not in seen:
            current.append(word)
            seen.add(low)
        elif current:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    groups += [[w] for w in subject if w.lower() not in seen]
    return groups


@dataclass(frozen=True)
class CorpusView:
    """What the rewrite may read of the corpus: a document's text by id (only the documents
    the last answer cited are read)."""

    text: Callable[[str], str] | None = None

    @classmethod
    def of(cls, store: Any) -> CorpusView:
        return cls(store.document_text)


#: a document's text by its id, alone (``Store.document_text``)
Corpus = CorpusView | Callable[[str], str]


def _view(corpus: Corpus | None) -> CorpusView | None:
    if corpus is None or isinstance(corpus, CorpusView):
        return corpus
    return CorpusView(corpus)


def standalone(message: str, history: Sequence[Turn], corpus: Corpus | None = None) -> Rewrite:
    """The standalone form of ``message`` after the turns ``history`` (oldest first);
    ``corpus`` reads the documents the last answer cited (without it, a message that does not
    point back continues the last turn only when it names nothing at all)."""
    text = " ".join(message.split())
    if not history or not text:
        return Rewrite(text, text, subject=subject_of(text))
    new_topic = _NEW_TOPIC.match(text)
    if new_topic:
        rest = text[new_topic.end() :].strip() or text
        return Rewrite(text, rest, "new_topic", subject=subject_of(rest))
    last = history[-1]
    previous = last.asked_as

    replaced = _replace(text, previous)
    if replaced is not None:
        return Rewrite(
            text,
            replaced,
            "replace",
            carried=tuple(w for w in specific_words(replaced) if w.lower() not in text.lower()),
            documents=last.documents,
            subject=subject_of(replaced),
        )

    own = specific_words(_CONNECTIVE.sub("", text))
    if len(own) < _limit(text):
        kind = "refers"
    elif not own or _grounded(own, text, last.documents, _view(corpus)):
        kind = "elliptic"
    else:
        return Rewrite(text, text, subject=subject_of(text))
    have = {w.lower() for w in words(text)}
    candidates = [w for w in _previous_subject(last) if w.lower() not in have]
    # a subject is named by nouns: "inoculated", "detected", "feeding" say what was done to it
    nouns = [w for w in candidates if not _verb_form(w)]
    candidates = nouns or candidates
    carried = _choose(phrases(last.asked_as, candidates), last.titles, CARRIED_WORDS)
    if not carried:
        return Rewrite(text, text, kind, documents=last.documents, subject=tuple(own))
    asked = f"{_base(text)} ({' '.join(carried)})?"
    subject = tuple(dict.fromkeys([*carried, *own]))[:MAX_CARRIED]
    return Rewrite(text, asked, kind, carried, last.documents, subject)


def _replace(text: str, previous: str) -> str | None:
    """The last question with a part replaced, when ``text`` is "what about X?" and the like."""
    for pattern in (_SAME, _AND_PREP):
        match = pattern.match(text)
        if match and _short(match.group("x")) and not _asks(match.group("x")):
            return _swap_phrase(previous, match.group("prep").lower(), _base(match.group("x")))
    about = _ABOUT.match(text)
    if about and _short(about.group("x")):
        x = _base(about.group("x"))
        prep = re.match(rf"(?i)({_PREPS})\s+(.+)$", x)
        if prep:
            return _swap_phrase(previous, prep.group(1).lower(), prep.group(2))
        head = _swap_head(previous, x) if len(words(x)) <= 4 and not _named(x) else None
        return head or _append(previous, x)
    bare = _AND_X.match(text)
    if bare and _short(bare.group("x"), max_words=4):
        x = _base(bare.group("x"))
        if _asks(x):
            return None  # "and how many were there?": a question of its own words
        return (None if _named(x) else _swap_head(previous, x)) or _append(previous, x)
    return None


def _asks(x: str) -> bool:
    """Whether ``x`` holds a question word, a verb or a pointer back: a question of its own."""
    return any(w in _AUX or w in _WH or w in _REFERRING for w in (t.lower() for t in words(x)))


def _named(x: str) -> bool:
    """Whether ``x`` names a thing with a capital (Acacia arabica, Morrison): a new subject to
    ask the last question about, not a new property to ask of it (an acronym like MFC)."""
    return any(w[0].isupper() and not w.isupper() for w in words(x))


def _append(previous: str, x: str) -> str:
    return f"{_base(previous)}, and {x}?"


def _short(x: str, max_words: int = MAX_REPLACEMENT_WORDS) -> bool:
    return 0 < len(words(x)) <= max_words and "?" not in x.rstrip(_TRAILING)
