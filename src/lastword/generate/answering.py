"""Does a sentence answer the question that was asked? The extractive generator's scorer.

``QuestionProfile`` reads a question once: its content words, its rare terms and codes, and the
kind of thing it asks for (a number, a name, a place). ``candidate_features`` describes each
candidate sentence by the signals in ``FEATURES`` (meaning, the question's words in it and around
it, what it adds beyond the question, whether it states the kind of thing asked, whether it
reports a finding or only a method, and what makes a sentence only look like a statement:
headings, captions, table rows, author lists, bibliography entries, other studies).
``score_candidates`` turns them into the probability that the sentence states what was asked,
with the logistic ``ANSWER_MODEL``.

The model was fitted on the sentences of the odd-numbered (DEV) questions of the real-papers set
and is measured on both halves by ``bench/answer_scorer.py`` (which also refits it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from lastword.generate.abbreviations import Abbreviations, find_abbreviations
from lastword.generate.answer_model import FEATURES, answer_probability
from lastword.generate.protocol import GenerationRequest
from lastword.generate.quantities import (
    count_heads,
    kinds_asked,
    looks_like_year,
    number_words,
    numbers_of_kinds,
    stated_quantities,
)
from lastword.generate.question_kinds import (
    NUMBER_QUESTION,
    OTHER_WORK_QUESTION,
    PLACE_QUESTION,
    SECOND_ASK,
    asks_name,
)
from lastword.generate.superlative import extremes, states_superlative, superlative_of
from lastword.generate.terms import STOP as _STOP
from lastword.generate.terms import (
    attribute_terms,
    compound_terms,
    measured_terms,
    named_places,
    owner_terms,
)
from lastword.generate.terms import is_rare_token as _is_rare_token
from lastword.generate.terms import stem as _stem
from lastword.generate.terms import terms as _terms
from lastword.generate.terms import words as _words
from lastword.ingest.structure import word_list
from lastword.verify.numbers import extract_quantities

#: extra weight of a rare term, code or number written in the question
RARE_TERM_WEIGHT = 1.5

_CAPTION_RE = re.compile(r"^\s*(fig(ure)?s?\.?|table|supplementary|scheme|plate)\s*[\dS]", re.I)
_NUMBERED_HEADING_RE = re.compile(r"^\s*\d+(\.\d+)*\.?\s+[A-Z]")
_BIBLIOGRAPHY_RE = re.compile(
    r"(\b(19|20)\d{2}[a-z]?\s*[;:,.)]\s*\d+\s*[(:]|\bdoi\s*:|\bdoi\.org|\bvol\.\s*\d|\bpp\.\s*\d"
    r"|\b\d+\s*\(\d+\)\s*:\s*\d+|\bet\s+al\.\s*\(?(19|20)\d{2}\)?[.,]\s+[A-Z][a-z]+"
    r"|\b[A-Z][a-z]+\s+[A-Z]{1,2},\s+[A-Z][a-z]+\s+[A-Z]{1,2}\b)"
)
_OTHER_STUDY_RE = re.compile(
    r"\bet\s+al\.|\b(previous|earlier|prior|other|several|many|recent)\s+(studies|reports|"
    r"work|works|research|authors|investigators)\b|\b(has|have|had)\s+been\s+(reported|shown|"
    r"demonstrated|described|documented)\b|(?<!\w)\(refs?\.\s*\d|\breported\s+(by|that)\b",
    re.I,
)
_OWN_RESULT_RE = re.compile(
    r"\b(we|our)\b|\bin\s+(this|the\s+present|the\s+current)\s+(study|work|experiment|trial)\b"
    r"|\b(the\s+)?present\s+(study|results|findings)\b",
    re.I,
)


@dataclass(frozen=True)
class QuestionProfile:
    question: str
    terms: frozenset[str]
    rare: frozenset[str]
    wants_number: bool
    wants_name: bool
    wants_place: bool
    about_other_work: bool
    #: the kinds of number asked ("count", "time", "percent", "change"); empty: any number
    number_kinds: frozenset[str] = frozenset()
    #: the question asks two or more things (a later sentence may answer a later part)
    several: bool = False
    #: +1 the question asks which one is highest / most, -1 lowest / least, 0 neither
    superlative: int = 0
    #: the stems of the property a yes/no question asks about ("protein", "content" of "Did X
    #: change the protein content of Y?"; ``attribute_terms``); empty for other questions
    attribute: frozenset[str] = frozenset()
    #: the stems of what a count question counts ("children" of "How many of the children
    #: ...?"; ``quantities.count_heads``); empty when it does not say
    counted: frozenset[str] = frozenset()
    #: the stems of what a wh-question asks the amount of ("plasma", "cortisol" of "What
    #: plasma cortisol levels ...?"; ``terms.measured_terms``); empty for other questions
    measured: frozenset[str] = frozenset()
    #: ... or the stems of what it names after "of" ("the Ocimum sanctum and Acacia arabica
    #: leaf extracts" of "What was the maximum non-toxic concentration of ...?"; one must be
    #: stated: ``terms.owner_terms``)
    owner: frozenset[str] = frozenset()

    @classmethod
    def of(cls, question: str) -> QuestionProfile:
        words = _words(question)
        rare = {_stem(w) for w in words if _is_rare_token(w) and w.lower() not in _STOP}
        return cls(
            question=question,
            terms=frozenset(_terms(question)),
            rare=frozenset(rare),
            wants_number=bool(NUMBER_QUESTION.search(question)),
            wants_name=asks_name(question),
            wants_place=bool(PLACE_QUESTION.search(question)),
            about_other_work=bool(OTHER_WORK_QUESTION.search(question)),
            number_kinds=kinds_asked(question),
            several=bool(SECOND_ASK.search(question)),
            superlative=superlative_of(question),
            attribute=attribute_terms(question),
            counted=count_heads(question),
            measured=measured_terms(question),
            owner=owner_terms(question),
        )

    @cached_property
    def content_words(self) -> frozenset[str]:
        """The question's content words in lower case, whole (``terms`` holds their stems)."""
        return frozenset(
            w.lower() for w in _words(self.question) if len(w) >= 2 and w.lower() not in _STOP
        )

    @cached_property
    def written_terms(self) -> frozenset[str]:
        """The stems of the question's own content words (not what a phrase stands for: "took
        part" is read as "participate" in ``terms``, but names no thing the question counts)."""
        return frozenset(_stem(w) for w in self.content_words)

    @property
    def asks_specific(self) -> bool:
        """The question asks for a number, a name or a place: what ``ANSWER_MODEL`` was fitted
        on. A yes/no or why question has no specific, and any sentence on its topic scores as
        if it answered."""
        return self.wants_number or self.wants_name or self.wants_place

    def question_values(self) -> frozenset[str]:
        """The numbers the question itself writes (values, and spelled counts)."""
        return self._question_values

    @cached_property
    def _question_values(self) -> frozenset[str]:
        # read once per question: every candidate sentence is compared with it
        values = {format(q.value.normalize(), "f") for q in extract_quantities(self.question)}
        return frozenset(values | number_words(self.question))


@dataclass
class Candidate:
    """A whole sentence of a retrieved passage that the generator may quote."""

    n: int
    text: str
    passage_score: float
    kind: str = "body"
    terms: set[str] = field(default_factory=set)
    #: the sentence's place in its passage (0 first): sentences one apart are neighbours
    position: int = 0
    #: a table row's (column name, cell) pairs; empty for a sentence
    cells: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        self.terms = _terms(self.text)

    @property
    def has_quantity(self) -> bool:
        return bool(number_words(self.text)) or any(
            not looks_like_year(q.text) for q in stated_quantities(self.text)
        )


def _title_case_share(text: str) -> float:
    words = [w for w in re.findall(r"[A-Za-z][a-z]+", text) if len(w) > 3]
    if not words:
        return 0.0
    return sum(w[0].isupper() for w in words) / len(words)


def _number_share(text: str) -> float:
    tokens = text.split()
    if not tokens:
        return 0.0
    return sum(any(ch.isdigit() for ch in t) for t in tokens) / len(tokens)


def penalties(candidate: Candidate, profile: QuestionProfile) -> list[str]:
    """What makes a sentence only look like a statement (each weighed by ``ANSWER_MODEL``)."""
    text = candidate.text
    why: list[str] = []
    if _NUMBERED_HEADING_RE.match(text) or _title_case_share(text) > 0.7:
        why.append("heading")
    if candidate.kind == "caption" or _CAPTION_RE.match(text):
        why.append("caption")
    if candidate.kind == "table" or _number_share(text) > 0.4:
        why.append("table")
    if text.count(",") >= 4 and _title_case_share(text) > 0.6:
        why.append("authors")
    if _BIBLIOGRAPHY_RE.search(text):
        why.append("bibliography")
    if not profile.about_other_work and _OTHER_STUDY_RE.search(text):
        why.append("other study")
    return why


_METHOD_RE = re.compile(
    r"\b(the\s+)?(aim|aims|objective|objectives|purpose|goal)\s+(of|was|were|is)\b"
    r"|\b(?:was|were)\s+(?:(?:again|also|then|first|further|subsequently|\w+ly)\s+)?"
    r"(estimated|determined|assessed|evaluated|investigated|analy[sz]ed|examined|"
    r"studied|measured|tested|calculated|performed|conducted|carried\s+out|undertaken)\b"
    r"|\b(we|this\s+study)\s+(aimed|sought|set\s+out|investigated|evaluated|examined)\b"
    r"|\bhas\s+not\s+been\s+(studied|investigated|reported)\b"
    r"|\b(primary|secondary|main|principal)\s+(outcome|end-?point)s?\s+(was|were|is|are)\b",
    re.I,
)
_RESULT_RE = re.compile(
    r"\b(was|were)\s+(found|observed|recovered|detected|identified|obtained|recorded|"
    r"highest|lowest|greater|higher|lower|increased|decreased|reduced|significantly)\b"
    r"|\b(showed|shows|revealed|resulted|yielded|exhibited|displayed|contained|consisted|"
    r"ranged|reached|produced|induced|inhibited|ranging)\b"
    r"|\b(highest|lowest|maximum|minimum|most|least)\b",
    re.I,
)


#: the sentence reports a control of the experiment, not the treatment asked about: "The
#: positive controls, amikacin, and nystatin showed an antimicrobial effect at 4 mg/L ..."
_CONTROL_RE = re.compile(
    r"\b(positive|negative|vehicle|solvent|untreated|reference)\s+controls?\b", re.I
)


def reports_control(candidate: Candidate, profile: QuestionProfile) -> bool:
    """The sentence reports a positive, negative or vehicle control, and the question does not
    ask about controls."""
    return bool(_CONTROL_RE.search(candidate.text)) and not re.search(
        r"\bcontrols?\b", profile.question, re.I
    )


def defined_in(
    request: GenerationRequest, candidates: list[Candidate], profile: QuestionProfile
) -> Abbreviations:
    """The short forms the retrieved passages define: in the sentences that may be quoted and
    in the rest of the passages' text too (a table's legend, "ZEA, zearalenone.", is no
    candidate sentence but defines what a sentence writing "ZEA" speaks of)."""
    texts = [c.text for c in candidates] + [p.text for p in request.passages]
    return find_abbreviations(texts, profile.question)


def reports_method(candidate: Candidate) -> bool:
    """The sentence says what was done or aimed at ("... was determined", "the aim was")."""
    return bool(_METHOD_RE.search(candidate.text))


#: a sentence naming a place answers a "where" question as a name answers "which" (the
#: ``asked_name`` feature): one DEV question (a09) asks "where", too few to fit a feature of its own
PLACE_AS_NAME = True
#: a question's word counts as stated by its compound's parts, and its two words by their
#: compound ("seropositive" by "positive serologically"; ``terms.compound_terms``)
COMPOUNDS = True
#: novel content words beyond this many add nothing more
NOVEL_CAP = 12


def _new_quantities(candidate: Candidate, question_values: frozenset[str]) -> bool:
    if number_words(candidate.text) - question_values:
        return True
    for q in stated_quantities(candidate.text):
        if looks_like_year(q.text):
            continue
        if format(q.value.normalize(), "f") not in question_values:
            return True
    return False


def _new_names(candidate: Candidate, profile: QuestionProfile) -> bool:
    for word in _words(candidate.text):
        if (_is_rare_token(word) or word[:1].isupper()) and _stem(word) not in profile.terms:
            if word.lower() in _STOP or len(word) < 2:
                continue
            return True
    return False


def places(candidate: Candidate, profile: QuestionProfile) -> set[str]:
    """The places a sentence names that the question does not ("Maharashtra" for "Where was
    the isolate obtained?"; ``terms.named_places``)."""
    return named_places(candidate.text, profile.terms)


def specifics(candidate: Candidate, profile: QuestionProfile) -> set[str]:
    """What the sentence states of the kind asked, beyond the question: its numbers (values and
    spelled counts, not years) for how many / what level, its names and codes for which / who
    (not the word that opens the sentence). A second sentence that adds one adds an answer."""
    found: set[str] = set()
    if profile.wants_number:
        found |= asked_numbers(candidate, profile) - profile.question_values()
    if profile.wants_place:
        found |= places(candidate, profile)
    if profile.wants_name:
        words = _words(candidate.text)
        # a sentence's first word is capitalised anyway: a name only when not a common word
        if words and (_is_rare_token(words[0]) or words[0].lower() not in word_list()):
            words[0] = words[0].capitalize() if not _is_rare_token(words[0]) else words[0]
        elif words:
            words = words[1:]
        for word in words:
            named = _is_rare_token(word) or word[:1].isupper()
            if named and _stem(word) not in profile.terms and word.lower() not in _STOP:
                found.add(_stem(word))
        # the species of a binomial is written in lower case: "Limnonectes larvaepartus"
        known = word_list()
        for genus, species in _BINOMIAL.findall(candidate.text):
            if genus.lower() not in known and species not in known:
                found.add(_stem(species))
        found -= profile.terms
    return found


_BINOMIAL = re.compile(r"\b([A-Z](?:[a-z]{2,}|\.))\s+([a-z]{4,})\b")


def asked_numbers(candidate: Candidate, profile: QuestionProfile) -> set[str]:
    """The sentence's numbers of the kinds the question asks for (``quantities.py``); for
    "how many <head>", its counts of the head or of a thing the question does not name."""
    return numbers_of_kinds(
        candidate.text, profile.number_kinds, profile.counted, profile.written_terms
    )


def states_new_number(candidate: Candidate, profile: QuestionProfile) -> bool:
    """The sentence states a number (not a year) that the question does not write itself."""
    return _new_quantities(candidate, profile.question_values())


@dataclass(frozen=True)
class Coverage:
    """Which of the question's terms each candidate states (itself or through an abbreviation
    the passages define), and how much each term weighs (IDF over the candidates; rare terms
    and codes extra), normalised so that the whole question weighs 1."""

    matched: list[set[str]]
    weights: dict[str, float]

    @classmethod
    def of(
        cls,
        profile: QuestionProfile,
        candidates: Sequence[Candidate],
        abbreviations: Abbreviations | None = None,
    ) -> Coverage:
        if abbreviations is None:
            abbreviations = find_abbreviations((c.text for c in candidates), profile.question)
        matched = []
        plain = profile.content_words if COMPOUNDS else frozenset()
        for c in candidates:
            own = c.terms & profile.terms
            if abbreviations.pairs:
                own |= abbreviations.expand(c.text, _stem) & profile.terms
            if plain and len(own) < len(profile.terms):
                own |= compound_terms(plain, c.text) & profile.terms
            matched.append(own)
        frequency: dict[str, int] = {}
        for own in matched:
            for t in own:
                frequency[t] = frequency.get(t, 0) + 1
        count = len(candidates)
        raw = {
            t: math.log((count + 1) / (frequency.get(t, 0) + 0.5))
            * (RARE_TERM_WEIGHT if t in profile.rare else 1.0)
            for t in profile.terms
        }
        # fsum: exact, so the same whatever order the (hash-ordered) terms come in
        total = math.fsum(raw.values()) or 1.0
        return cls(matched, {t: w / total for t, w in raw.items()})

    def share(self, terms: set[str]) -> float:
        # fsum: a plain sum over a set differs in the last bit from one process to the next
        # (string hashing orders it), enough to flip a near tie between two sentences
        return math.fsum(self.weights.get(t, 0.0) for t in terms)


def extreme_rows(
    profile: QuestionProfile, candidates: Sequence[Candidate], coverage: Coverage
) -> set[int]:
    """The table rows (candidate indices) holding the extreme value of the column the question
    asks about, in the direction it asks (``superlative.extremes``); empty for other questions."""
    return extremes(
        profile.superlative,
        [c.cells for c in candidates],
        [c.n for c in candidates],
        lambda name: coverage.share(_terms(name) & profile.terms),
    )


def candidate_features(
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    coverage: Coverage | None = None,
    only: Sequence[int] | None = None,
) -> np.ndarray:
    """One row of ``FEATURES`` per candidate (or per candidate of ``only``, each read among
    all of them: its passage's other terms, its table's extremes)."""
    count = len(candidates)
    which = range(count) if only is None else only
    if coverage is None:
        coverage = Coverage.of(profile, candidates)
    matched = coverage.matched
    passage_terms: dict[int, set[str]] = {}
    for c, own in zip(candidates, matched, strict=True):
        passage_terms.setdefault(c.n, set()).update(own)
    question_values = profile.question_values()
    extreme = extreme_rows(profile, candidates, coverage)
    rows = np.zeros((len(which), len(FEATURES)), dtype=np.float64)
    for row, i in enumerate(which):
        c = candidates[i]
        own = matched[i]
        around = (passage_terms[c.n] & profile.terms) - own
        why = penalties(c, profile)
        new_number = _new_quantities(c, question_values)
        values = {
            "words": coverage.share(own),
            "around": coverage.share(around),
            "passage": c.passage_score,
            "echo": len(c.terms & profile.terms) / max(len(c.terms), 1),
            "novel": min(len(c.terms - profile.terms), NOVEL_CAP) / NOVEL_CAP,
            "asked_number": float(profile.wants_number and new_number),
            "missing_number": float(profile.wants_number and not new_number),
            # a place is a name: "where" asks for one (``places``)
            "asked_name": float(
                (profile.wants_name and _new_names(c, profile))
                or (PLACE_AS_NAME and profile.wants_place and bool(places(c, profile)))
            ),
            "method": float(bool(_METHOD_RE.search(c.text))),
            "result": float(bool(_RESULT_RE.search(c.text))),
            "own_result": float(
                not profile.about_other_work and bool(_OWN_RESULT_RE.search(c.text))
            ),
            "other_study": float("other study" in why),
            "heading": float("heading" in why),
            "caption": float("caption" in why),
            "table": float("table" in why),
            "authors": float("authors" in why),
            "bibliography": float("bibliography" in why),
            "superlative": float(
                i in extreme
                or (
                    not c.cells
                    and states_superlative(
                        c.text, profile.superlative, lambda w: _stem(w) in profile.terms
                    )
                )
            ),
        }
        rows[row] = [values[name] for name in FEATURES]
    return rows


def score_candidates(
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    coverage: Coverage | None = None,
    only: Sequence[int] | None = None,
) -> np.ndarray:
    """One relevance value per candidate (or per candidate of ``only``): the probability that
    it answers (see the module doc)."""
    if not candidates or (only is not None and not len(only)):
        return np.zeros(0, dtype=np.float64)
    return answer_probability(candidate_features(profile, candidates, coverage, only))


def names_attribute(profile: QuestionProfile, coverage: Coverage, chosen: list[int]) -> bool:
    """A yes/no question's answer states the property it asks about: one of its words
    ("protein" of "Did X change the protein content of Y?"). A sentence on the question's
    subject that reports another property ("grain yield and quality") does not answer it. True
    for questions that name no such property."""
    if not profile.attribute:
        return True
    return any(profile.attribute & coverage.matched[i] for i in chosen)
