"""The default generator: no model. It quotes the retrieved sentences that answer the question.

Every whole sentence of the retrieved passages is a candidate, except those that cannot be
evidence: instructions addressed to a reader or a model (``lastword.injection``), fragments,
headings, and passages of a kind that is not evidence (references, front matter). A ``table``
passage offers its rows instead, each stated under the table's column names ("Table 3 — Group:
T6; FCR: 1.70"). Each candidate gets the probability that it states what was asked
(``answering.py``): the question's words (IDF-weighted, rare terms and codes weighing extra;
a short form the passages define, or one spelling the question's initials, counts as its
words: ``abbreviations.py``) in the sentence and around it, what the sentence adds beyond the
question, the kind of thing asked (a number for how many / how much / what temperature, a name
for which / who), findings over methods, and penalties for headings, captions, table rows,
author lists, bibliography entries and sentences that report *other* studies when the question
is about the paper's own result.

An answer to a yes/no question about a change ("Did X change the protein content of Y?") must
state the property asked about (one of its words, ``names_attribute``); one that only matches
the subject ("grain yield and quality") is declined.

A sentence that names another member of the kind of a thing the question names, in its place
("C. albicans" for "Salmonella Typhimurium", "H5N1" for "H9N2", "English" for "German":
``named.py``), is neither the first sentence nor a follower (``NAMED_THINGS``).

The first sentence is the most probable one that clears ``RELEVANCE_FLOOR`` (and, when a number
is asked, states one the question does not write itself); when none does, the generator
declines. The asked specific often sits in the sentence next to the one that says what it is
about ("In 2010/11, at Morrison grain yield increased due to Nutri-phite." / "Nutri-phite
resulted in 70% more grain yield than the nontreated."), so two neighbouring sentences of one
passage are also scored as one (``neighbour_pairs``) when each adds to the other: one states
question terms the other lacks (at least ``PAIR_MIN_SUBJECT`` of the question), the other a
number or name of the kind asked (when the question asks two things, both halves may state
one: "separation from Day 2" / "explained 81.2%"); a pair that wins is quoted as its two
sentences, each cited.
A later sentence that opens by referring back ("These results were in agreement with ...")
comments on the finding before it rather than setting it, and makes no pair.
A question often asks for two or three things ("how many patients, and how were they split
between the hospitals"), so up to two more sentences follow, each one that adds something asked:
a number or name of the kind asked that the answer does not hold yet (a count for how many, a
duration for how long, a percentage, a change for how much did ... change: ``SPECIFIC_WEIGHT``),
or, when the question asks two or more things, a term of the question the answer does not
state yet (IDF-weighted: ``COVER_WEIGHT``). A sentence that only adds context ("The trial
enrolled 412 adults aged 65 to 84" for how much bone density changed) does not follow. A
follower needs only ``FOLLOW_FLOOR`` (it cannot make an answer by itself), and one that says
the same as a chosen sentence (cosine over ``MAX_REDUNDANCY``) is passed over. The floors were
chosen on the odd-numbered questions of the real-papers set (``bench/answer_scorer.py`` prints
both halves). Neighbouring sentences are written in the passage's order.
"Which one is highest, and what were its values?" is answered by an opening that names the one
(often a sentence: "highest ... gain was observed in T6 and T7") followed by the table row that
holds the asked column's extreme when the opening names its label ("Treatments: T6; Body weight
gain (g/bird): 2129.25; FCR: 1.70": ``row_of_the_answer``).
For a question that asks several things, a follower's new number counts only in a sentence
that also states a question term the opening does not (``UNCOVERED_SPECIFIC``: "men, n = 12"
restates the answered part). An age, a length, a percentage or a measured amount asked
(``TYPED``) must be stated by a number of that kind ("100 bp ... DNA ladder" is a size standard,
"two herbal plants" no concentration), as must a factor ("2–4-fold", not "by 60–90%") and a body
mass ("30 kg", not "40 % of their body mass"); "how many <head>" must be stated by a count of
the head (``COUNTED``: not "10% of all hospital admissions", nor "15 species" for specimens).
"What <X> levels / content / concentration ...?" must be opened by a sentence stating every
word of X ("plasma cortisol"), and "the <amount> of X" by one stating a word of X
(``MEASURED``); a sentence reporting a positive, negative or vehicle control does not open an
answer about the treatment (``CONTROLS``).
``admits_weak`` is the gate's weak-band evidence check.
Sentences are written verbatim (table rows under their header), each followed by the ``[N]`` of
its passage; the source's own bracketed reference numbers are neutralised first so they can
never pass for ours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from lastword.embed.protocol import Embedder
from lastword.generate.answering import (
    Candidate,
    Coverage,
    QuestionProfile,
    asked_numbers,
    defined_in,
    extreme_rows,
    names_attribute,
    reports_control,
    score_candidates,
    specifics,
    states_new_number,
)
from lastword.generate.named import Named, named_things, substituted
from lastword.generate.neighbours import Pair, neighbour_pairs
from lastword.generate.prompt import UNANSWERABLE, neutralise_reference_markers
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.generate.table_rows import table_row_cells
from lastword.injection import is_instruction
from lastword.sentences import split_sentences
from lastword.settings import EVIDENCE_FLOOR
from lastword.verify.sentences import split_line

#: sentences shorter than this are fragments (labels) rather than statements; a candidate
#: must also end like a sentence, which leaves out headings
MIN_WORDS = 5
#: longer "sentences" are table bodies or run-together text, never quoted whole
MAX_WORDS = 90
#: MMR trade-off: 1.0 is pure relevance, 0.0 pure diversity
RELEVANCE_WEIGHT = 0.7
#: the probability of answering the first quoted sentence must reach. Behind the gate it meets
#: only questions the gate let through; there, on DEV, every floor from 0.08 to 0.20 answers
#: the same 20 questions with no false accept (``bench/answer_cv.py --sweep``). The floor is
#: the middle, in log-odds, of DEV's gap between the highest such unanswerable question (u09,
#: 0.058) and the lowest right answer (a07, 0.219): 0.12. On all 27 unanswerable questions it
#: lets 1 through (u08, 0.149), within the 1/27 target. (0.15 was the same rule's middle for
#: the previous ``ANSWER_MODEL``.)
RELEVANCE_FLOOR = 0.12
#: the kinds of number whose unit says what they are (``quantities.NUMBER_KINDS``): when one
#: is asked, the opening sentence must state a number of that kind, not just any number
#: ("What was the mean age ...?" is not answered by "fifteen participants (men, n = 12)")
TYPED = frozenset({"time", "length", "percent", "measure", "factor", "mass"})
TYPED_KINDS = True
#: "how many <head>" asks a count of its head (``QuestionProfile.counted``): the opening must
#: state a count that counts it, or counts a thing the question does not name; a percentage
#: ("10% of all hospital admissions"), a label ("types 40 and 41") or a count of another thing
#: the question names ("at least 15 species" for how many specimens) does not answer
COUNTED = True
#: the weak band's evidence check: a question asking a specific whose every word some sentence
#: of the passages states needs only ``RELEVANCE_FLOOR``, not ``[gate] evidence_floor``. Every
#: unanswerable question of the papers set in the weak band leaves a word unstated (the thing it
#: asks about: "cortisol", "fluconazole", "net economic return"; ``admits_weak``)
ALL_STATED = True
#: "What plasma cortisol levels / fat content (%) / nivalenol concentration ...?": the opening
#: sentence must state every word that names what the amount is of (``QuestionProfile.measured``),
#: or the sentence gives an amount of something else ("oxytocin concentrations" for cortisol);
#: named after "of" ("the maximum non-toxic concentration of the O. sanctum and A. arabica leaf
#: extracts"), at least one of its words ("The MNTCs of amantadine and oseltamivir ..." names
#: none: the drugs' value, not the extracts')
MEASURED = True
#: a sentence reporting a control of the experiment ("The positive controls, amikacin, and
#: nystatin showed an antimicrobial effect at 4 mg/L and 2 mg/L") does not open an answer about
#: the treatment, unless the question asks about controls (``answering.reports_control``)
CONTROLS = True
#: a follower that adds a term of the question not yet covered needs only this probability
FOLLOW_FLOOR = 0.05
#: weight of the question's not-yet-covered terms a follower states (IDF share of the question)
COVER_WEIGHT = 1.0
#: bonus of a follower that states a new number (or name) of the kind the question asks for
SPECIFIC_WEIGHT = 0.2
#: a question that asks several things: a follower's new number or name counts only when the
#: sentence also states a term of the question the opening sentence does not (another figure
#: about what the opening already answers, "men, n = 12", is not the missing part)
UNCOVERED_SPECIFIC = True
#: followers are looked for among this many best-scored sentences
FOLLOW_POOL = 12
#: a follower this close (cosine) to a chosen sentence says the same thing again
MAX_REDUNDANCY = 0.9
#: a follower that adds only terms of a one-part question must add this share of it (the
#: first sentence left a real part unstated: "oxytocin in post-trial plasma", not "adults")
#: Chosen on DEV among 0.15 / 0.2 / 0.3 / never (no gate, hybrid: 17 / 17 / 17 / 16 DEV correct;
#: of the tied, the one that keeps "The authors conclude ... in older adults" out of the demo)
TERMS_GAIN = 0.3
#: score neighbouring sentences as one (subject + asked specific: ``neighbours.py``)
PAIRS = True
#: an answer to a yes/no question must state the property it asks about (``names_attribute``)
ASKED_ATTRIBUTE = True
#: a sentence that names another member of the kind of a thing the question names, in its
#: place ("C. albicans" for "Salmonella Typhimurium"), is not quoted (``named.py``)
NAMED_THINGS = True
#: "which one is highest, and what were its values": the table row holding the extreme of the
#: asked column follows an opening that names its label (``row_of_the_answer``)
EXTREME_ROW = True
#: passage kinds never quoted (the retrieval default leaves them out too)
NOT_EVIDENCE = frozenset({"references", "front", "heading"})

_END_MARK = re.compile(r"([.!?][\"')\]]*)$")


def cite(sentence: str, n: int) -> str:
    """Put ``[n]`` before the sentence's end mark: "... was reduced [2]." """
    match = _END_MARK.search(sentence)
    if match is None:
        return f"{sentence} [{n}]."
    return f"{sentence[: match.start()]} [{n}]{match.group(1)}"


def cite_each(text: str, n: int) -> str:
    """Cite every sentence the verifier will read in ``text``: a quoted sentence that the
    verifier splits in two ("... by SPME-GC/MS. The assays ...") gets ``[n]`` on both."""
    return " ".join(cite(piece, n) for piece in split_line(text))


def candidates_of(request: GenerationRequest) -> list[Candidate]:
    """Every whole sentence that may be quoted, with its passage (a table's rows, for tables)."""
    out: list[Candidate] = []
    for passage in request.passages:
        if passage.kind in NOT_EVIDENCE:
            continue
        text = neutralise_reference_markers(passage.text)
        rows = table_row_cells(text) if passage.kind == "table" else []
        sentences = [r for r, _ in rows] or split_sentences(text)
        for position, sentence in enumerate(sentences):
            words = len(sentence.split())
            if words < MIN_WORDS or words > MAX_WORDS or not _END_MARK.search(sentence):
                continue
            if is_instruction(sentence):
                continue
            out.append(
                Candidate(
                    n=passage.n,
                    text=sentence,
                    passage_score=passage.score,
                    kind=passage.kind,
                    position=position,
                    cells=rows[position][1] if rows else (),
                )
            )
    return out


class ExtractiveGenerator:
    def __init__(
        self,
        embedder: Embedder,
        sentences: int = 3,
        relevance_floor: float = RELEVANCE_FLOOR,
        follow_floor: float = FOLLOW_FLOOR,
        specific_only: bool = False,
    ) -> None:
        """``specific_only``: decline every question that asks no specific (a number, a name, a
        place), as for the gate's weak band (``weak_band``)."""
        self._embedder = embedder
        self._sentences = sentences
        self._floor = relevance_floor
        self._follow_floor = follow_floor
        self._specific_only = specific_only

    @classmethod
    def weak_band(cls, embedder: Embedder, sentences: int = 3) -> ExtractiveGenerator:
        """The scorer of the gate's evidence check for a question in its weak band
        (``Pipeline._evidence_check``): only a question asking a specific, over
        ``[gate] evidence_floor``'s default."""
        return cls(embedder, sentences, relevance_floor=EVIDENCE_FLOOR, specific_only=True)

    @property
    def name(self) -> str:
        return "extractive"

    def best(self, request: GenerationRequest) -> float:
        """The relevance of the sentence (or neighbour pair) the answer would open with, floor
        aside: 0.0 when no candidate states the kind of thing asked. What the generator's floor
        compares, exposed for measuring it (``bench/answer_scorer.py --relevance``)."""
        ranked = self._rank(request)
        return 0.0 if ranked is None else ranked.best

    def unstated(self, request: GenerationRequest) -> frozenset[str]:
        """The question's terms (stems) that no candidate sentence of the passages states, itself
        or through a short form or a compound (``answering.Coverage``): what the passages never
        speak of ("cortisol" for "What plasma cortisol levels ...?" over a paper on oxytocin)."""
        profile = QuestionProfile.of(request.question)
        candidates = candidates_of(request)
        if not candidates:
            return profile.terms
        coverage = Coverage.of(profile, candidates, defined_in(request, candidates, profile))
        stated = set().union(*coverage.matched)
        return frozenset(profile.terms - stated)

    def admits_weak(self, request: GenerationRequest, floor: float) -> tuple[bool, float, float]:
        """The weak band's evidence check (``Pipeline._evidence_check``): a question that asks a
        specific goes on when one sentence states it with relevance >= ``floor``, or, when every
        word of the question is stated somewhere in the passages (``ALL_STATED``), with the
        generator's own ``RELEVANCE_FLOOR``. Returns the decision, the best relevance and the
        floor it was compared with."""
        best = self.best(request)
        if best >= floor:
            return True, best, floor
        if ALL_STATED and best >= RELEVANCE_FLOOR and not self.unstated(request):
            return True, best, RELEVANCE_FLOOR
        return False, best, floor

    def _rank(self, request: GenerationRequest) -> _Ranked | None:
        candidates = candidates_of(request)
        if not candidates:
            return None
        if self._specific_only and not QuestionProfile.of(request.question).asks_specific:
            return None
        # Scoring needs no model: only the few sentences that may be quoted are embedded, for
        # the redundancy check between them.
        profile = QuestionProfile.of(request.question)
        coverage = Coverage.of(profile, candidates, defined_in(request, candidates, profile))
        single = score_candidates(profile, candidates, coverage)
        pairs = (
            neighbour_pairs(profile, candidates, coverage, single, self._follow_floor)
            if PAIRS
            else []
        )
        scored = candidates + [pair.joined for pair in pairs]
        matched = coverage.matched + [p.matched for p in pairs]  # the question's terms in each
        count = len(candidates)
        # A pair is read among every sentence (its passage's other terms); the sentences' own
        # scores do not change with the pairs beside them.
        joined = score_candidates(
            profile,
            scored,
            Coverage(matched, coverage.weights),
            only=range(count, len(scored)),
        )
        relevance = np.concatenate([single, joined])
        eligible = list(range(len(scored)))
        if profile.wants_number:
            # The asked specific is a quantity: a sentence without one does not state it.
            eligible = [i for i in eligible if states_new_number(scored[i], profile)]
            typed = TYPED_KINDS and bool(profile.number_kinds & TYPED)
            if typed or (COUNTED and "count" in profile.number_kinds and profile.counted):
                # An age, a length or a percentage asked: a count beside it does not state it.
                eligible = [i for i in eligible if asked_numbers(scored[i], profile)]
        if MEASURED and profile.measured:
            # "What plasma cortisol levels ...?": the opening names what the amount is of
            eligible = [i for i in eligible if profile.measured <= matched[i]]
        if MEASURED and profile.owner:
            # "... concentration of the O. sanctum and A. arabica leaf extracts": the opening
            # names one of them, not only the amount ("The MNTCs of amantadine and oseltamivir")
            eligible = [i for i in eligible if profile.owner & matched[i]]
        if CONTROLS:
            # a positive / negative / vehicle control's value is not the one asked for
            eligible = [i for i in eligible if not reports_control(scored[i], profile)]
        things = named_things(request.question) if NAMED_THINGS else ()
        if things:
            # About another member of the kind of a thing the question names: not an answer.
            eligible = [i for i in eligible if not substituted(scored[i].text, things)]
        return _Ranked(candidates, pairs, profile, coverage, relevance, eligible, things)

    def generate(self, request: GenerationRequest) -> Draft:
        declined = Draft(text=UNANSWERABLE, declared=() if request.source_kind == "web" else None)
        ranked = self._rank(request)
        if ranked is None:
            return declined
        candidates, pairs, profile, coverage = (
            ranked.candidates,
            ranked.pairs,
            ranked.profile,
            ranked.coverage,
        )
        relevance = ranked.relevance
        count = len(candidates)

        def members(i: int) -> list[int]:
            return [i] if i < count else list(pairs[i - count].members)

        eligible = [i for i in ranked.eligible if relevance[i] >= self._floor]
        if not eligible:
            return declined
        first = max(eligible, key=lambda i: relevance[i])
        chosen = members(first)
        relevance = relevance[:count]
        covered = set().union(*(coverage.matched[i] for i in chosen))
        opening = frozenset(covered)
        row = row_of_the_answer(ranked, chosen, self._follow_floor) if EXTREME_ROW else None
        if row is not None:
            chosen.append(row)
            covered |= coverage.matched[row]
        stated = set().union(*(specifics(candidates[i], profile) for i in chosen))
        pool = [
            i
            for i in np.argsort(-relevance)[:FOLLOW_POOL].tolist()
            if i not in chosen
            and relevance[i] >= min(self._follow_floor, self._floor)
            and not substituted(candidates[i].text, ranked.things)
        ]
        kinds = {i: specifics(candidates[i], profile) for i in pool}

        def brings_specific(i: int) -> bool:
            """A new number (or name) of the kind asked, in a sentence on the question's terms."""
            if not (kinds[i] - stated and coverage.matched[i]):
                return False
            return not (UNCOVERED_SPECIFIC and profile.several) or bool(
                coverage.matched[i] - opening
            )

        def adds(i: int) -> bool:
            """A new number (or name) of the kind asked, in a sentence on the question's terms;
            or question terms not stated yet, when the question asks several things or they
            are worth ``TERMS_GAIN`` of it."""
            if brings_specific(i):
                return True
            gain = coverage.share(coverage.matched[i] - covered)
            return gain > 0 and (profile.several or gain >= TERMS_GAIN)

        # What a follower adds only shrinks as sentences are chosen, so one that adds nothing
        # now never will: leave it out before embedding the rest.
        pool = [i for i in pool if adds(i)]
        vectors = {}
        if pool:  # with no follower left there is nothing to compare, nothing to embed
            to_embed = [*chosen, *pool]
            embedded = self._embedder.embed_documents([candidates[i].text for i in to_embed])
            vectors = {i: embedded[row] for row, i in enumerate(to_embed)}
        while pool and len(chosen) < self._sentences:
            redundancy = (
                np.stack([vectors[i] for i in pool]) @ np.stack([vectors[i] for i in chosen]).T
            ).max(axis=1)
            gain = np.array([coverage.share(coverage.matched[i] - covered) for i in pool])
            new_specific = np.array([brings_specific(i) for i in pool])
            allowed = np.array([adds(i) for i in pool]) & (redundancy < MAX_REDUNDANCY)
            if not allowed.any():
                break
            value = (
                RELEVANCE_WEIGHT * relevance[pool]
                - (1 - RELEVANCE_WEIGHT) * redundancy
                + COVER_WEIGHT * gain
                + SPECIFIC_WEIGHT * new_specific
            )
            value[~allowed] = -np.inf
            pick = pool[int(np.argmax(value))]
            chosen.append(pick)
            covered |= coverage.matched[pick]
            stated |= kinds[pick]
            pool.remove(pick)
        if ASKED_ATTRIBUTE and not names_attribute(profile, coverage, chosen):
            return declined
        # Neighbours in reading order; otherwise in the order chosen.
        ordered: list[int] = []
        for i in chosen:
            if i in ordered:
                continue
            group = [i] + [
                j for j in chosen if j not in ordered and j != i and _same_run(candidates, i, j)
            ]
            ordered += sorted(group, key=lambda j: candidates[j].position)
        lines = [cite_each(candidates[i].text, candidates[i].n) for i in ordered]
        used = tuple(sorted({candidates[i].n for i in chosen}))
        return Draft(text=" ".join(lines), declared=used if request.source_kind == "web" else None)


@dataclass(frozen=True)
class _Ranked:
    """Every candidate scored: the sentences, then the neighbour pairs (``pairs[i - count]``)."""

    candidates: list[Candidate]
    pairs: list[Pair]
    profile: QuestionProfile
    coverage: Coverage
    relevance: np.ndarray
    #: the indices that state the kind of thing asked (floor aside)
    eligible: list[int]
    #: the specific things the question names (``named.named_things``)
    things: tuple[Named, ...] = ()

    @property
    def best(self) -> float:
        return max((float(self.relevance[i]) for i in self.eligible), default=0.0)


def row_of_the_answer(ranked: _Ranked, chosen: list[int], floor: float) -> int | None:
    """For "which one is highest (lowest) ..., and what were its ...": the table row that holds
    the extreme value of the asked column (``answering.extreme_rows``), when the opening names
    that row's label ("T6") and does not quote a row itself. The row states the values of the
    one the answer names ("Treatments: T6; Body weight gain (g/bird): 2129.25; FCR: 1.70"),
    which a sentence saying "highest ... in T6 and T7" does not. None otherwise."""
    profile, candidates = ranked.profile, ranked.candidates
    if not (profile.superlative and profile.several) or any(candidates[i].cells for i in chosen):
        return None
    opening = " ".join(candidates[i].text for i in chosen)
    for i in sorted(extreme_rows(profile, candidates, ranked.coverage)):
        label = candidates[i].cells[0][1].strip() if candidates[i].cells else ""
        if (
            label
            and ranked.relevance[i] >= floor
            and re.search(r"(?<![\w-])" + re.escape(label) + r"(?![\w-])", opening, re.I)
        ):
            return i
    return None


def _same_run(candidates: list[Candidate], i: int, j: int) -> bool:
    """Two chosen sentences of one passage at most two apart read best in the passage's order."""
    a, b = candidates[i], candidates[j]
    return a.n == b.n and abs(a.position - b.position) <= 2
