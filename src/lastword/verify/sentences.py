"""Splitting a draft into sentences, and telling claims from the few things that are not.

Splitting keeps a sentence's trailing markers with it ("... in mice. [3] Next" gives
"... in mice. [3]"), does not break after common abbreviations ("e.g.", "et al.", "vs.",
"(ref. 3)") or inside decimals, and treats each line of a list as its own unit.

A claim is anything that is not clearly one of: a short lead-in ending in a colon ("Based on the
passages:"), a heading or bullet without content, or a statement that the passages do not answer.
When in doubt it is a claim, and a claim must cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lastword.sentences import is_abbreviation
from lastword.verify.citations import MARKER_RE, strip_markers
from lastword.verify.declines import is_decline_statement
from lastword.verify.support import content_words

_LIST_PREFIX_RE = re.compile(r"^(\s*(?:#{1,6}|[-*•+>]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+)")
_SENTENCE_END_RE = re.compile(r"[.!?]+[\"'”’)]*")
_TRAILING_MARKERS_RE = re.compile(r"(?:\s*" + MARKER_RE.pattern + r")*")
_LAST_TOKEN_RE = re.compile(r"(\S+)$")
_LEAD_IN_MAX_WORDS = 14
_HEADING_MAX_WORDS = 6


@dataclass(frozen=True)
class DraftSentence:
    """One sentence of a draft: its text as written, which line it came from, and that line's
    bullet or heading prefix when it is the first sentence on the line."""

    text: str
    line: int
    prefix: str = ""
    heading: bool = False


def _ends_sentence(line: str, dot_start: int, after: str) -> bool:
    stripped = after.lstrip()
    if not stripped or stripped == after:
        return False  # no space after: "0.5", "e.g.," or the end of the line
    first = stripped[0]
    if not (first.isupper() or first.isdigit() or first in "\"'“‘(*•-"):
        return False
    token = _LAST_TOKEN_RE.search(line[:dot_start])
    if token:
        # the word after an opening bracket inside the token: "t(ref." is "ref."
        word = token.group(1).rsplit("(", 1)[-1].lstrip("\"'“‘").rstrip(".").lower()
        if is_abbreviation(word, initials=False):  # a draft's "group A." ends one
            return False
    return True


def split_line(line: str) -> list[str]:
    """Sentences of one line, each keeping the markers that follow its full stop."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(line):
        end = match.end()
        end += _TRAILING_MARKERS_RE.match(line, end).end() - end  # type: ignore[union-attr]
        if not _ends_sentence(line, match.start(), line[end:]):
            continue
        piece = line[start:end].strip()
        if piece:
            sentences.append(piece)
        start = end
    tail = line[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def split_draft(text: str) -> list[DraftSentence]:
    """Every sentence of the draft in order, with list prefixes set aside."""
    out: list[DraftSentence] = []
    for number, raw in enumerate(text.splitlines()):
        if not raw.strip():
            continue
        prefix_match = _LIST_PREFIX_RE.match(raw)
        prefix = prefix_match.group(1) if prefix_match else ""
        heading = prefix.strip().startswith("#")
        body = raw[len(prefix) :]
        for i, sentence in enumerate(split_line(body)):
            if out and not re.search(r"\w", MARKER_RE.sub("", sentence)) and has_markers(sentence):
                # markers on their own ("...in mice.\n[3]") belong to the sentence before them
                last = out[-1]
                out[-1] = DraftSentence(
                    f"{last.text} {sentence}", last.line, last.prefix, last.heading
                )
                continue
            out.append(DraftSentence(sentence, number, prefix if i == 0 else "", heading))
    return out


def _plain(text: str) -> str:
    """Markers, emphasis and list marks removed: the words a reader sees."""
    text = strip_markers(text)
    return re.sub(r"[*_`#>]+", "", text).strip()


def is_claim(sentence: DraftSentence) -> bool:
    """Whether the sentence asserts something that needs a citation. Conservative."""
    plain = _plain(sentence.text)
    word_list = re.findall(r"\w+", plain)
    if not word_list:
        return False  # a bare bullet, a rule, stray punctuation
    has_digit = any(ch.isdigit() for ch in plain)
    if has_digit:
        return True
    if plain.endswith(":") and len(word_list) <= _LEAD_IN_MAX_WORDS:
        return False  # "Based on the passages:", "Key findings:"
    if len(word_list) <= _HEADING_MAX_WORDS and not re.search(r"[.!?;,]$", plain):
        if sentence.heading or _is_emphasised_line(sentence.text):
            return False  # "## Summary", "**Answer**"
        if len(word_list) <= 2:
            return False  # "Summary", "In short"
    return not is_decline_statement(plain)


def _is_emphasised_line(text: str) -> bool:
    text = text.strip()
    return bool(re.fullmatch(r"(\*\*|__).+(\*\*|__):?", text))


def has_markers(text: str) -> bool:
    return MARKER_RE.search(text) is not None


#: a claim needs at least this many content words of its own (stop words, numbers and the words
#: of the prompt's own vocabulary left out)
MIN_CONTENT_WORDS = 2
_PROMPT_WORDS = frozenset(
    "passage passages source sources cite cited citation marker markers number numbers answer "
    "question two one given provided".split()
)


def has_own_content(text: str) -> bool:
    """False for a fragment or a prompt echo ("for two passages. [1].", "as follows [2].").

    A sentence with a number has content; otherwise it needs ``MIN_CONTENT_WORDS`` words that
    are neither stop words nor the prompt's vocabulary, and a fragment that starts in lower case
    needs one more.
    """
    plain = _plain(text)
    if any(ch.isdigit() for ch in plain):
        return True
    words = {w for w in re.findall(r"[^\W\d_][\w\-]*", plain.lower()) if w not in _PROMPT_WORDS}
    own = content_words(" ".join(words))
    needed = MIN_CONTENT_WORDS + (1 if plain[:1].islower() else 0)
    return len(own) >= needed
