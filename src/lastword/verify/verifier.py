"""Checking a draft against the passages it was written from. The model is never trusted.

For every sentence, in this order (the first failure is the reason it is dropped):

1. markers: each number must name a retrieved passage (else phantom ``out_of_range``) and must
   not be a number copied from a passage's own reference list (else phantom ``bibliography``).
   Phantoms are always recorded and never shown. A sentence left with no valid citation is
   dropped as ``phantom_citation``; one that also cites a real passage goes on to the checks
   below on its real citations alone, and is shown without the phantom marker.
2. a claim must cite: ``uncited_claim``. Lead-ins, bare headings and "the passages do not say"
   statements may stand uncited.
3. every number must appear in a cited passage: ``unsupported_number``.
4. a claim needs content of its own: a fragment or an echo of the prompt ("for two passages.
   [1].") is dropped as ``no_content``.
5. every number must appear in a cited passage, outside its flagged sentences:
   ``unsupported_number`` (``injected`` when the number is only in a flagged sentence).
6. at least one cited passage must support the sentence (``support.py``) at the floor, with the
   passage's flagged sentences (``lastword.injection``: text addressed to a reader or a model)
   left out: ``weak_support``, or ``injected`` when only a flagged sentence carried it or the
   sentence is itself an instruction. Citations below the floor are removed from the shown
   sentence unless they hold one of its numbers.
7. when the question is given, the sentence must address it (``support.question_relevance`` at
   ``relevance_floor``): ``off_question``.
7b. when the question is a yes/no question about a property ("Did X change the protein content
   of Y?": ``generate.terms.attribute_terms``), at least one kept sentence must state one of
   its words; otherwise every kept claim is dropped as ``off_question`` (the answer talks about
   the subject, not the asked property: "... improved grain yield and quality").
7c. when the question names a specific thing (a Latin binomial, a code, a language, a place:
   ``generate.named.named_things``), a kept claim that names none of it but another member of
   its kind in its place ("C. albicans" for "Salmonella Typhimurium", "English" for "German")
   is dropped as ``off_question`` (each claim judged by itself: ``NAMED_SCOPE``).
8. the sentence must not flip the direction or polarity of its best supporting passage sentence
   ("did not reduce" vs "reduced", "higher" vs "lower"): ``contradicts`` (``direction.py``).

``supported`` is false when no cited sentence survives: the pipeline then refuses, decided by the
verifier, for the reason in ``refusal_reason``. ``declined`` marks a draft with refusal language
and no surviving claim: the refusal was the generator's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lastword.embed.protocol import Embedder
from lastword.errors import InputError
from lastword.generate.named import named_things, substituted, thing_named
from lastword.generate.terms import attribute_terms, terms
from lastword.injection import is_instruction
from lastword.result import AnswerSentence, DroppedSentence, Phantom, RetrievedPassage
from lastword.sentences import split_sentences
from lastword.settings import VerifySettings
from lastword.store.protocol import ReferenceEntry
from lastword.verify.citations import (
    NEUTRALISED_REF_RE,
    BibliographyIndex,
    Marker,
    find_markers,
    marker_context,
    strip_markers,
    tidy,
)
from lastword.verify.declines import has_refusal_language
from lastword.verify.direction import contradiction
from lastword.verify.numbers import extract_quantities, missing_quantities, quantity_in
from lastword.verify.sentences import DraftSentence, has_own_content, is_claim, split_draft
from lastword.verify.support import (
    SupportScore,
    lexical_containment,
    question_relevance,
    score_pairs,
)

PHANTOM_CITATION = "phantom_citation"
UNCITED_CLAIM = "uncited_claim"
UNSUPPORTED_NUMBER = "unsupported_number"
WEAK_SUPPORT = "weak_support"
NO_CONTENT = "no_content"
INJECTED = "injected"
OFF_QUESTION = "off_question"
#: step 7c: a claim about another member of the kind of a thing the question names is dropped
NAMED_THINGS = True
#: step 7c judges each claim alone ("sentence") or lets a claim stand when another kept claim
#: names the asked thing ("answer"); ``bench/named_things.py`` measured both
NAMED_SCOPE = "sentence"
CONTRADICTS = "contradicts"
#: share of a sentence's content words found in a passage's flagged sentences that makes the
#: flagged sentence (not the science) what the sentence repeats
INJECTED_OVERLAP = 0.5


@dataclass(frozen=True)
class Verification:
    """What survived verification, what did not and why."""

    sentences: tuple[AnswerSentence, ...]
    dropped: tuple[DroppedSentence, ...]
    phantoms: tuple[Phantom, ...]
    citations: tuple[int, ...]
    answer: str
    declined: bool
    supported: bool

    @property
    def refusal_reason(self) -> str:
        """Why nothing survived, as a ``[refusals]`` reason (meaningful when not supported)."""
        if self.declined:
            return "generator_declined"
        reasons = {d.reason for d in self.dropped}
        if reasons and reasons <= {INJECTED, PHANTOM_CITATION} and INJECTED in reasons:
            return "injected_answer"
        if not self.phantoms and not any(d.citations for d in self.dropped):
            return "no_citations"
        return "unsupported_answer"


@dataclass
class _Checked:
    """One draft sentence on its way through the checks."""

    draft: DraftSentence
    markers: list[Marker]
    valid: list[int] = field(default_factory=list)
    phantoms: list[Phantom] = field(default_factory=list)
    claim: bool = True
    dropped: DroppedSentence | None = None
    kept: AnswerSentence | None = None

    @property
    def written_numbers(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(n for m in self.markers for n in m.numbers))

    def drop(self, reason: str, detail: str, citations: Sequence[int] | None = None) -> None:
        cited = tuple(citations) if citations is not None else self.written_numbers
        self.dropped = DroppedSentence(
            text=self.draft.text, reason=reason, detail=detail, citations=cited
        )


def _fmt(numbers: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def _range_text(numbers: Sequence[int]) -> str:
    ordered = sorted(numbers)
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(str(n) for n in ordered)


def _check_markers(
    item: _Checked, known: set[int], bibliography: BibliographyIndex, retrieved: str
) -> None:
    text = item.draft.text
    for marker in item.markers:
        context = marker_context(text, marker.start) if bibliography else []
        for number in marker.numbers:
            if number not in known:
                item.phantoms.append(
                    Phantom(marker=marker.text, number=number, reason="out_of_range", sentence=text)
                )
            elif bibliography and (
                bibliography.copied_from(number, context) is not None
                or bibliography.names_reference(number, context)
            ):
                item.phantoms.append(
                    Phantom(marker=marker.text, number=number, reason="bibliography", sentence=text)
                )
            elif number not in item.valid:
                item.valid.append(number)
    if item.phantoms and not item.valid:
        details = []
        for phantom in item.phantoms:
            if phantom.reason == "out_of_range":
                details.append(f"[{phantom.number}] is not a retrieved passage ({retrieved})")
            else:
                details.append(f"[{phantom.number}] was copied from a passage's own references")
        item.drop(PHANTOM_CITATION, "; ".join(dict.fromkeys(details)))


def _numbers_text(text: str) -> str:
    return NEUTRALISED_REF_RE.sub(" ", strip_markers(text))


def _rewrite(text: str, markers: Sequence[Marker], shown: set[int]) -> str:
    """The sentence with only the shown citation numbers left in its markers."""
    out: list[str] = []
    position = 0
    for marker in markers:
        out.append(text[position : marker.start])
        keep = [n for n in marker.numbers if n in shown]
        if keep == list(marker.numbers):
            out.append(marker.text)
        elif keep:
            out.append("[" + ", ".join(str(n) for n in keep) + "]")
        position = marker.end
    out.append(text[position:])
    return tidy("".join(out))


def split_flagged(text: str) -> tuple[str, str]:
    """A passage's text without its flagged (instruction) sentences, and those sentences."""
    sentences = split_sentences(text)
    flagged = [s for s in sentences if is_instruction(s)]
    if not flagged:
        return text, ""
    return " ".join(s for s in sentences if not is_instruction(s)), " ".join(flagged)


def verify_draft(
    draft_text: str,
    passages: Sequence[RetrievedPassage],
    embedder: Embedder,
    settings: VerifySettings,
    references: Mapping[str, Sequence[ReferenceEntry]] | None = None,
    *,
    question: str | None = None,
) -> Verification:
    """Check every sentence of a draft against the passages retrieved for its question.

    ``references``: the retrieved documents' reference lists (doc_id -> entries, from
    ``Store.references``): a marker that names a cited paper is a phantom. With ``question``,
    a kept sentence must also address it (``settings.relevance_floor``).
    """
    by_number = {p.n: p for p in passages}
    if len(by_number) != len(passages):
        raise InputError("passages given to the verifier must have distinct numbers")
    retrieved = f"passages 1-{max(by_number)}" if by_number else "no passages were retrieved"
    if by_number and set(by_number) != set(range(1, max(by_number) + 1)):
        retrieved = "passages " + _range_text(list(by_number))
    entries = [
        (entry.number, entry.text)
        for doc_id in dict.fromkeys(p.doc_id for p in passages)
        for entry in (references or {}).get(doc_id, ())
    ]
    bibliography = BibliographyIndex({n: p.text for n, p in by_number.items()}, entries)
    # Evidence is a passage without its instructions; the instructions are kept apart to name
    # a sentence that only repeats them.
    evidence: dict[int, str] = {}
    flagged: dict[int, str] = {}
    for n, p in by_number.items():
        evidence[n], flagged[n] = split_flagged(p.text)

    items: list[_Checked] = []
    for draft in split_draft(draft_text):
        item = _Checked(draft=draft, markers=find_markers(draft.text))
        items.append(item)
        _check_markers(item, set(by_number), bibliography, retrieved)
        if item.dropped:
            continue
        item.claim = bool(item.markers) or is_claim(draft)
        if not item.claim:
            item.kept = AnswerSentence(text=draft.text, citations=(), support=None)
            continue
        if not item.valid:
            item.drop(UNCITED_CLAIM, "makes a claim without citing a passage")
            continue
        if not has_own_content(draft.text):
            item.drop(NO_CONTENT, "a fragment or an echo of the instructions, not a statement")
            continue
        if is_instruction(strip_markers(draft.text)):
            item.drop(INJECTED, "the sentence is an instruction, not a finding")
            continue
        missing = missing_quantities(_numbers_text(draft.text), [evidence[n] for n in item.valid])
        if missing:
            planted = [
                q
                for q in missing
                if any(quantity_in(q, extract_quantities(flagged[n])) for n in item.valid)
            ]
            if planted:
                item.drop(
                    INJECTED,
                    ", ".join(f"'{q.text}'" for q in planted)
                    + f" appears only in an instruction inside passage(s) {_fmt(item.valid)}",
                )
                continue
            item.drop(
                UNSUPPORTED_NUMBER,
                ", ".join(f"'{q.text}'" for q in missing)
                + f" not found in cited passage(s) {_fmt(item.valid)}",
            )

    # One embedding call for the sentences and one for the passages, whatever the draft's length.
    candidates = [i for i, item in enumerate(items) if item.claim and not item.dropped]
    pairs = [(i, n) for i in candidates for n in items[i].valid]
    texts = [item.draft.text for item in items]
    index_of = {n: j for j, n in enumerate(evidence)}
    scores = score_pairs(
        texts,
        [evidence[n] or " " for n in evidence],
        [(i, index_of[n]) for i, n in pairs],
        embedder,
    )
    support: dict[int, dict[int, SupportScore]] = {i: {} for i in candidates}
    for (i, n), score in zip(pairs, scores, strict=True):
        support[i][n] = score
    for i in candidates:
        _judge_support(items[i], support[i], by_number, settings.support_floor, flagged)
    survivors = [i for i in candidates if items[i].kept is not None]
    if question is not None and survivors:
        relevance = question_relevance(question, [texts[i] for i in survivors], embedder)
        for i, score in zip(survivors, relevance, strict=True):
            if score < settings.relevance_floor:
                items[i].kept = None
                items[i].drop(
                    OFF_QUESTION,
                    f"relevance to the question {score:.2f} below the floor "
                    f"{settings.relevance_floor:.2f}",
                    items[i].valid,
                )

    if question is not None:
        _check_asked_property(question, items)
        if NAMED_THINGS:
            _check_named_things(question, items)

    kept = [item.kept for item in items if item.kept is not None]
    supported = any(s.citations for s in kept)
    phantoms = tuple(p for item in items for p in item.phantoms)
    dropped = tuple(item.dropped for item in items if item.dropped is not None)
    citations = tuple(sorted({n for s in kept for n in s.citations}))
    answer = _join(items) if supported else ""
    return Verification(
        sentences=tuple(kept),
        dropped=dropped,
        phantoms=phantoms,
        citations=citations,
        answer=answer,
        declined=not supported and has_refusal_language(draft_text),
        supported=supported,
    )


def _check_asked_property(question: str, items: Sequence[_Checked]) -> None:
    """7b. A yes/no question's answer must state the property it asks about (one of its words):
    when no kept sentence does, every kept claim is dropped as ``off_question``."""
    asked = attribute_terms(question)
    claims = [item for item in items if item.kept is not None and item.kept.citations]
    if not asked or not claims:
        return
    if any(asked & terms(item.draft.text) for item in claims):
        return
    for item in claims:
        item.kept = None
        item.drop(
            OFF_QUESTION,
            f"the answer never states what the question asks about ({', '.join(sorted(asked))}...)",
            item.valid,
        )


def _check_named_things(question: str, items: Sequence[_Checked]) -> None:
    """7c. A kept claim that names another member of the kind of a thing the question names, in
    its place, is dropped as ``off_question`` (with ``NAMED_SCOPE`` "answer", only when no
    other kept claim names the asked thing)."""
    things = named_things(question)
    claims = [item for item in items if item.kept is not None and item.kept.citations]
    if not things or not claims:
        return
    named = [
        thing
        for thing in things
        if NAMED_SCOPE == "answer" and any(thing_named(c.draft.text, thing) for c in claims)
    ]
    for item in claims:
        missing = [t for t in substituted(item.draft.text, things) if t not in named]
        if not missing:
            continue
        item.kept = None
        item.drop(
            OFF_QUESTION,
            f"the sentence names another {missing[0].shape} in place of the question's "
            + ", ".join(t.text for t in missing),
            item.valid,
        )


def _judge_support(
    item: _Checked,
    scored: dict[int, SupportScore],
    by_number: dict[int, RetrievedPassage],
    floor: float,
    flagged: dict[int, str],
) -> None:
    support = {n: s.support for n, s in scored.items()}
    best = max(support.values())
    if best < floor:
        echoed = [
            n
            for n in item.valid
            if flagged[n]
            and lexical_containment(strip_markers(item.draft.text), flagged[n]) >= INJECTED_OVERLAP
        ]
        if echoed:
            item.drop(
                INJECTED,
                f"supported only by an instruction inside passage(s) {_fmt(echoed)}",
                item.valid,
            )
            return
        scores = ", ".join(f"[{n}] {s:.2f}" for n, s in support.items())
        item.drop(WEAK_SUPPORT, f"support {scores} below the floor {floor:.2f}", item.valid)
        return
    top = max(support, key=lambda n: support[n])
    flip = contradiction(item.draft.text, scored[top].best_piece)
    if flip is not None:
        item.drop(
            CONTRADICTS,
            f"{flip} [{top}]: '{scored[top].best_piece[:160]}'",
            item.valid,
        )
        return
    shown = {n for n, s in support.items() if s >= floor}
    # A citation below the floor stays only when it is where one of the numbers comes from.
    for quantity in extract_quantities(_numbers_text(item.draft.text)):
        if quantity_in(quantity, _held(shown, by_number)):
            continue
        shown.update(
            n for n in item.valid if quantity_in(quantity, extract_quantities(by_number[n].text))
        )
    citations = tuple(n for n in item.valid if n in shown)
    item.kept = AnswerSentence(
        text=_rewrite(item.draft.text, item.markers, shown), citations=citations, support=best
    )


def _held(numbers: set[int], by_number: dict[int, RetrievedPassage]) -> list:
    return [q for n in numbers for q in extract_quantities(by_number[n].text)]


def _join(items: Sequence[_Checked]) -> str:
    """Kept sentences in draft order, one output line per draft line, list marks kept."""
    lines: dict[int, list[str]] = {}
    prefixes: dict[int, str] = {}
    for item in items:
        line = item.draft.line
        if item.draft.prefix:
            prefixes[line] = item.draft.prefix
        if item.kept is not None:
            lines.setdefault(line, []).append(item.kept.text)
    return "\n".join(prefixes.get(line, "") + " ".join(texts) for line, texts in lines.items())
