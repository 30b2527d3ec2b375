"""Where a sentence ends, and which blocks of a page are one paragraph cut apart.

A PDF page's blocks come from its layout, so one paragraph set across two columns, or broken
by a figure, a caption or a table set in its middle, arrives as two blocks. A block that ends
without an end mark, followed (after nothing, or only figures, captions and tables) by a block
of its kind that opens mid-sentence, is the same paragraph: ``join_continued`` joins the two and
puts what stood between them after it, so passages are cut at sentence ends, not at the column
break. Sentence ends (``sentence_ends``) skip abbreviations ("et al.", "Fig. 2", "e.g.", "sp."),
initials ("J. Smith") and decimals.

A sentence that runs from the foot of one page onto the next belongs to the page it starts on:
``carry_over`` moves the next page's opening words, up to the sentence's end, onto the page
before, so neither half is left as a fragment on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lastword.sentences import is_abbreviation

#: an end mark, then closing quotes or brackets, then space before a capital, a digit or an
#: opening bracket or quote
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9(\[\"'])")
#: a block's text that ends a sentence (an end mark or a colon, then closers)
_ENDED = re.compile(r"[.!?:][\"'’”)\]]*\s*$")
#: a block that ends on an initial ("distributed in L."): ended only if what follows opens
#: in upper case
_INITIAL_END = re.compile(r"(?<![\w.])[A-Z]\.$")
#: the last word of a clause that cannot end one
_OPEN_END = re.compile(
    r"(,|;|\b(the|of|and|or|in|into|to|a|an|for|with|by|from|at|on|as|is|are|was|were|be|"
    r"been|that|which|than|between|its|their|this|these|those|both|not|no))$"
)
#: a block that opens with a footnote mark glued to its first word ("a,b,cMean values",
#: "aCompounds are", "NSnot significant"), a label ("Abbreviations:"), a DOI or a web address:
#: not a sentence's second half
_NOT_CONTINUATION = re.compile(
    r"^([a-z](,[a-z])*[A-Z*]|[A-Z]{2,}[a-z]{3,}|[A-Z][a-z]*:|doi:|https?:|www\.)"
)
#: kinds that may sit inside a paragraph without ending it (set in the column's middle)
INSIDE_PARAGRAPH = frozenset({"figure", "caption", "table"})
#: kinds whose blocks are prose and are joined when continued
PROSE = frozenset({"body", "abstract"})
#: kinds set after a page's last paragraph that do not end it (front matter: a licence box)
_AFTER_PARAGRAPH = INSIDE_PARAGRAPH | {"front"}
#: the most words carried over a page break: a longer "sentence" is a list or a misread block
MAX_CARRIED_WORDS = 150


def sentence_ends(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """Sentence ends in ``text[start:end]`` (matches spanning the closers and the space); a
    period after an abbreviation or a single capital (an initial) is none."""
    end = len(text) if end is None else end
    for match in _SENTENCE_END.finditer(text, start, end):
        if text[match.start() - 1] == ".":
            before = text[max(start, match.start() - 40) : match.start() - 1].split()
            word = before[-1].lstrip("([\"'").lower() if before else ""
            if is_abbreviation(word):
                continue
        yield match


def continues(previous: str, following: str) -> bool:
    """``following`` carries on the sentence ``previous`` leaves open: ``previous`` ends with
    no end mark (or with an initial, "in L.") and ``following`` opens in lower case, or
    ``previous`` ends on a comma or a word that cannot end a clause and ``following`` opens
    with a word or number."""
    previous, following = previous.rstrip(), following.lstrip()
    if not previous or not following:
        return False
    if _ENDED.search(previous) and not (_INITIAL_END.search(previous) and following[0].islower()):
        return False
    if len(previous.split()) < 3 or len(following.split()) < 2:
        return False  # a footnote mark or a stray label on its own
    if _NOT_CONTINUATION.match(following):
        return False
    if following[0].islower():
        return True
    return bool(_OPEN_END.search(previous)) and following[0].isalnum()


def join_continued(
    blocks: list[tuple[str, str]], join: Callable[[list[str]], str]
) -> list[tuple[str, str]]:
    """A page's (kind, text) blocks with each paragraph cut by a column break or by figures,
    captions or tables set in it joined into one block; what stood between follows it.
    ``join`` joins two texts as lines (a line-end hyphen handled as within a block)."""
    out = list(blocks)
    i = 0
    while i < len(out):
        kind, text = out[i]
        if kind not in PROSE:
            i += 1
            continue
        j = i + 1
        while j < len(out) and out[j][0] in INSIDE_PARAGRAPH:
            j += 1
        if j < len(out) and out[j][0] == kind and continues(text, out[j][1]):
            between = out[i + 1 : j]
            out[i : j + 1] = [(kind, join([text, out[j][1]])), *between]
            continue  # the joined block may be continued again
        i += 1
    return out


def carry_over(
    pages: list[list[tuple[str, str]]], join: Callable[[list[str]], str]
) -> list[list[tuple[str, str]]]:
    """Each page's (kind, text) blocks, with a sentence cut by a page break made whole on the
    page it starts on: when the last prose block of a page (figures, captions, tables and front
    matter set after it skipped) is continued (``continues``) by the first prose block of the
    next page that has any (figures, captions and tables set before it skipped; a page of
    tables only is passed over) of the same kind, that block's words up to its first sentence
    end (the whole block when it has none) are joined to the first with ``join`` (a line-end
    hyphen decided as within a block); the rest stays where it was."""
    out = [list(blocks) for blocks in pages]
    for number, here in enumerate(out):
        last = len(here) - 1
        while last >= 0 and here[last][0] in _AFTER_PARAGRAPH:
            last -= 1
        there = next(
            (p for p in out[number + 1 :] if any(k not in INSIDE_PARAGRAPH for k, _ in p)), []
        )
        first = next((i for i, (k, _) in enumerate(there) if k not in INSIDE_PARAGRAPH), None)
        if last < 0 or first is None:
            continue
        (kind, text), (next_kind, following) = here[last], there[first]
        if kind not in PROSE or next_kind != kind or not continues(text, following):
            continue
        head, rest = _first_sentence(following.strip())
        if not head:
            continue
        here[last] = (kind, join([text, head]))
        if rest:
            there[first] = (kind, rest)
        else:
            del there[first]
    return out


def _first_sentence(text: str) -> tuple[str, str]:
    """``text`` cut after its first sentence end outside brackets ("(syn. O. citriodorum)" is
    none; the first of any when every one is inside): (head, rest); ("", text) when the head
    would be longer than ``MAX_CARRIED_WORDS``; the whole text when it has no sentence end."""
    ends = list(sentence_ends(text))
    match = next(
        (m for m in ends if text.count("(", 0, m.start()) <= text.count(")", 0, m.start())),
        ends[0] if ends else None,
    )
    end = match.start() + len(match.group(0).rstrip()) if match else len(text)
    if len(text[:end].split()) > MAX_CARRIED_WORDS:
        return "", text
    return text[:end], text[match.end() :] if match else ""
