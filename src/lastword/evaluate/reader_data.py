"""Labelled reading examples: a question, the passages retrieval gave it, where the answer is.

The reader is trained and measured on what the product retrieves: the papers are ingested as a
user ingests them (JSON Lines through ``ingest_paths``), each question is asked through
``Pipeline.inspect`` (the default ranking, the top ``k``), and the gold answer span is located in
every retrieved passage. Ingest collapses white space, so a span is carried from the paper into
a passage through their non-space characters, which ingest never changes. ``ablated`` asks the
same question with its own paper excluded: only neighbours remain (the unanswerable side).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lastword.evaluate.datasets.covidqa import CovidPaper


@dataclass
class Seen:
    """One retrieved passage, with the answer's character spans inside its text."""

    doc_id: str
    kind: str
    score: float
    text: str
    title: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Example:
    qid: str
    question: str
    doc_id: str
    answer: str
    passages: list[Seen]
    ablated: list[Seen] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return any(p.spans for p in self.passages)


class Aligner:
    """Maps character spans of one paper onto passages cut from it."""

    def __init__(self, context: str) -> None:
        self.index = [i for i, c in enumerate(context) if not c.isspace()]
        self.solid = "".join(context[i] for i in self.index)

    def spans(self, passage: str, start: int, end: int) -> list[tuple[int, int]]:
        where = [i for i, c in enumerate(passage) if not c.isspace()]
        solid = "".join(passage[i] for i in where)
        if not solid:
            return []
        offset = self.solid.find(solid)
        if offset < 0:
            return []
        lo = bisect.bisect_left(self.index, start)
        hi = bisect.bisect_left(self.index, end)
        a, b = max(lo, offset), min(hi, offset + len(solid))
        if a >= b:
            return []
        return [(where[a - offset], where[b - 1 - offset] + 1)]


def gather(
    inspect: Callable[..., object],
    papers: Iterable[CovidPaper],
    *,
    ablate: bool = True,
    progress: Callable[[int], None] | None = None,
) -> list[Example]:
    """``inspect(question, exclude_doc_ids=...)`` is ``Pipeline.inspect``."""
    out: list[Example] = []
    for paper in papers:
        aligner = Aligner(paper.context)
        for q in paper.questions:
            result = inspect(q.question)
            seen = []
            for p in result.passages:
                spans = aligner.spans(p.text, q.start, q.end) if p.doc_id == q.doc_id else []
                seen.append(Seen(p.doc_id, p.kind, p.score, p.text, p.title, spans))
            ablated = []
            if ablate:
                other = inspect(q.question, exclude_doc_ids=[q.doc_id])
                ablated = [Seen(p.doc_id, p.kind, p.score, p.text, p.title) for p in other.passages]
            out.append(Example(q.qid, q.question, q.doc_id, q.answer, seen, ablated))
            if progress:
                progress(1)
    return out


def save(examples: list[Example], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for e in examples:
            handle.write(json.dumps(asdict(e), ensure_ascii=False) + "\n")


def seen_of(raw: dict) -> Seen:
    return Seen(**{**raw, "spans": [tuple(s) for s in raw["spans"]]})


def load(path: Path) -> list[Example]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        raw["passages"] = [seen_of(p) for p in raw["passages"]]
        raw["ablated"] = [seen_of(p) for p in raw["ablated"]]
        out.append(Example(**raw))
    return out
