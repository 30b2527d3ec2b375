"""The reader's generator (``[generate] generator = "reader"``): no language model. It quotes
what the reader ranks.

The reader (``read/reader.py``) gives every sentence and table row of the retrieved passages the
probability that it states the answer. The answer opens with the most probable one; its
neighbours in the same passage follow when the reader marks them too (an answer that runs over
two sentences, a subject in one and its number in the next); then, up to ``sentences`` in all,
other candidates the reader rates at ``follow`` or more, unless they repeat one already chosen.
Quoted verbatim (a table row under its header's column names), each followed by the ``[N]`` of
its passage, neighbours in reading order; the source's own bracketed reference numbers are
neutralised first so they never pass for ours. Whether to answer at all is the gate's decision,
made before (``Gate.run`` on the reader's answerability); passages no gate has read (web
results) must clear the reader's shipped weak threshold; with no candidate the generator
declines. The selection's numbers come with the fitted reader (its provenance file).
"""

from __future__ import annotations

from dataclasses import dataclass

from lastword.generate.extractive import cite_each
from lastword.generate.prompt import UNANSWERABLE, neutralise_reference_markers
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.read.reader import Reader, Reading
from lastword.terms import terms


@dataclass(frozen=True)
class Selection:
    """How many candidates an answer quotes, and what a follower must reach (fitted with the
    reader: ``reader.json`` ``selection``)."""

    sentences: int = 3
    #: a neighbour of a chosen candidate joins at this share of the opening's probability
    neighbour: float = 0.5
    #: any other candidate joins at this probability
    follow: float = 0.5
    #: word overlap (Jaccard of content terms) at which a follower repeats a chosen one
    redundancy: float = 0.6

    @classmethod
    def shipped(cls, reader: Reader) -> Selection:
        chosen = reader.model.provenance.get("selection", {})
        return cls(**{k: v for k, v in chosen.items() if k in cls.__dataclass_fields__})


def _overlap(a: str, b: str) -> float:
    x, y = terms(a), terms(b)
    return len(x & y) / max(len(x | y), 1)


def choose(reading: Reading, selection: Selection) -> list[int]:
    """Indices into ``reading.units`` to quote, in the order chosen."""
    order = reading.ranked()
    if not order:
        return []
    p = reading.probability
    first = order[0]
    chosen = [first]
    units = reading.units

    def next_to(i: int, j: int) -> bool:
        a, b = units[i], units[j]
        return a.passage == b.passage and abs(a.position - b.position) == 1

    grew = True
    while grew and len(chosen) < selection.sentences:
        grew = False
        for j in order:
            if j in chosen or p[j] < selection.neighbour * p[first]:
                continue
            if any(next_to(i, j) for i in chosen):
                chosen.append(j)
                grew = True
                break
    for j in order:
        if len(chosen) >= selection.sentences or p[j] < selection.follow:
            break
        if j in chosen:
            continue
        if any(_overlap(units[j].text, units[i].text) >= selection.redundancy for i in chosen):
            continue
        chosen.append(j)
    return chosen


class QuotingGenerator:
    def __init__(self, reader: Reader | None = None, selection: Selection | None = None) -> None:
        self.reader = reader or Reader()
        self._selection = selection

    @property
    def name(self) -> str:
        return "reader"

    @property
    def unread_floor(self) -> float:
        """For passages no gate has read: the weak threshold shipped with the reader."""
        return float(self.reader.model.provenance.get("gate", {}).get("weak", 0.5))

    @property
    def selection(self) -> Selection:
        if self._selection is None:
            self._selection = Selection.shipped(self.reader)
        return self._selection

    def generate(self, request: GenerationRequest) -> Draft:
        declined = Draft(text=UNANSWERABLE, declared=() if request.source_kind == "web" else None)
        reading = request.reading
        if reading is None:
            # no gate read these passages (web results): the reader's own weak threshold decides
            reading = self.reader.run(request.question, request.passages)
            if reading.answerability < self.unread_floor:
                return declined
        chosen = choose(reading, self.selection)
        if not chosen:
            return declined
        units = reading.units
        # neighbours in reading order: group by passage, in the order each passage was chosen
        groups: dict[int, list[int]] = {}
        for i in chosen:
            groups.setdefault(units[i].passage, []).append(i)
        lines = []
        for members in groups.values():
            for i in sorted(members, key=lambda k: units[k].position):
                text = neutralise_reference_markers(units[i].text)
                lines.append(cite_each(text, units[i].n))
        used = tuple(sorted({units[i].n for i in chosen}))
        return Draft(text=" ".join(lines), declared=used if request.source_kind == "web" else None)
