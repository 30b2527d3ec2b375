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
4. at least one cited passage must support the sentence (``support.py``) at the floor:
   ``weak_support``. Citations below the floor are removed from the shown sentence unless they
   hold one of its numbers.

``supported`` is false when no cited sentence survives: the pipeline then refuses, decided by the
verifier. ``declined`` marks a draft with refusal language and no surviving claim: the refusal
was the generator's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lastword.embed.protocol import Embedder
from lastword.errors import InputError
from lastword.result import AnswerSentence, DroppedSentence, Phantom, RetrievedPassage
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
from lastword.verify.numbers import extract_quantities, missing_quantities, quantity_in
from lastword.verify.sentences import DraftSentence, is_claim, split_draft
from lastword.verify.support import score_pairs

PHANTOM_CITATION = "phantom_citation"
UNCITED_CLAIM = "uncited_claim"
UNSUPPORTED_NUMBER = "unsupported_number"
WEAK_SUPPORT = "weak_support"


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


def verify_draft(
    draft_text: str,
    passages: Sequence[RetrievedPassage],
    embedder: Embedder,
    settings: VerifySettings,
    references: Mapping[str, Sequence[ReferenceEntry]] | None = None,
) -> Verification:
    """Check every sentence of a draft against the passages retrieved for its question.

    ``references``: the retrieved documents' reference lists (doc_id -> entries, from
    ``Store.references``): a marker that names a cited paper is a phantom.
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
        missing = missing_quantities(
            _numbers_text(draft.text), [by_number[n].text for n in item.valid]
        )
        if missing:
            item.drop(
                UNSUPPORTED_NUMBER,
                ", ".join(f"'{q.text}'" for q in missing)
                + f" not found in cited passage(s) {_fmt(item.valid)}",
            )

    # One embedding call for the sentences and one for the passages, whatever the draft's length.
    candidates = [i for i, item in enumerate(items) if item.claim and not item.dropped]
    pairs = [(i, n) for i in candidates for n in items[i].valid]
    texts = [item.draft.text for item in items]
    passage_texts = {n: p.text for n, p in by_number.items()}
    index_of = {n: j for j, n in enumerate(passage_texts)}
    scores = score_pairs(
        texts,
        list(passage_texts.values()),
        [(i, index_of[n]) for i, n in pairs],
        embedder,
    )
    support: dict[int, dict[int, float]] = {i: {} for i in candidates}
    for (i, n), score in zip(pairs, scores, strict=True):
        support[i][n] = score.support
    for i in candidates:
        _judge_support(items[i], support[i], by_number, settings.support_floor)

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


def _judge_support(
    item: _Checked,
    support: dict[int, float],
    by_number: dict[int, RetrievedPassage],
    floor: float,
) -> None:
    best = max(support.values())
    if best < floor:
        scores = ", ".join(f"[{n}] {s:.2f}" for n, s in support.items())
        item.drop(WEAK_SUPPORT, f"support {scores} below the floor {floor:.2f}", item.valid)
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
