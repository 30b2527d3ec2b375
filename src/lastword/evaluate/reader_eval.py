"""How well a reader picks the answering sentence, and tells answerable from not.

For each labelled example (``reader_data``): the candidates are the sentences and table rows
of the passages retrieval gave the question (``read.reader.units_of``, after the reader's
constraints); a candidate is right when its span overlaps the gold answer span. ``top1`` and
``top3`` count questions whose first (first three) candidates hold a right one, out of all
questions (a question whose answer was not retrieved counts as a miss). Answerability AUC
compares the best candidate's probability with the question's paper present and removed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from lastword.evaluate.metrics import roc_auc
from lastword.evaluate.reader_data import Example, Seen
from lastword.read.reader import Reader, Reading, candidates, units_of
from lastword.result import RetrievedPassage

Scorer = Callable[[str, Sequence[RetrievedPassage]], Reading]


def as_passages(seen: Sequence[Seen]) -> tuple[RetrievedPassage, ...]:
    return tuple(
        RetrievedPassage(
            n=i + 1,
            passage_id=i,
            doc_id=s.doc_id,
            title=s.title,
            page=None,
            score=s.score,
            text=s.text,
            kind=s.kind,
        )
        for i, s in enumerate(seen)
    )


def right(reading: Reading, index: int, seen: Sequence[Seen]) -> bool:
    unit = reading.units[index]
    return any(unit.start < b and unit.end > a for a, b in seen[unit.passage].spans)


@dataclass(frozen=True)
class ReaderFigures:
    questions: int
    retrieved: int
    top1: float
    top3: float
    auc: float | None

    def row(self) -> dict[str, float | int | None]:
        return {
            "questions": self.questions,
            "answer_retrieved": self.retrieved,
            "top1": round(self.top1, 4),
            "top3": round(self.top3, 4),
            "answerability_auc": None if self.auc is None else round(self.auc, 4),
        }


def evaluate(examples: Sequence[Example], scorer: Scorer, ablated: bool = True) -> ReaderFigures:
    top1 = top3 = retrieved = 0
    present: list[float] = []
    removed: list[float] = []
    for e in examples:
        reading = scorer(e.question, as_passages(e.passages))
        retrieved += e.found
        order = reading.ranked()
        hits = [right(reading, i, e.passages) for i in order[:3]]
        top1 += bool(hits[:1] and hits[0])
        top3 += any(hits)
        present.append(reading.best)
        if ablated and e.ablated:
            removed.append(scorer(e.question, as_passages(e.ablated)).best)
    n = max(len(examples), 1)
    auc = None
    if removed:
        auc = roc_auc(present, removed)
    return ReaderFigures(len(examples), retrieved, top1 / n, top3 / n, auc)


def reader_scorer(reader: Reader | None = None) -> Scorer:
    reader = reader or Reader()
    return reader.run


def cosine_scorer(embedder) -> Scorer:
    """MiniLM cosine between the question and each candidate: the reference."""

    def score(question: str, passages: Sequence[RetrievedPassage]) -> Reading:
        every = units_of(passages)
        kept, _ = candidates(every)
        if not kept:
            return Reading((), np.zeros(0), {}, (), tuple(every))
        q = embedder.embed_queries([question])[0]
        vectors = embedder.embed_documents([u.text for u in kept])
        return Reading(tuple(kept), np.asarray(vectors @ q, dtype=float), {}, (), tuple(every))

    return score
