"""The reader: for a question and its retrieved passages, the probability that each sentence
(or table row) states the answer, and that the passages answer the question at all.

The fitted network (``read/model.py``) reads each passage whole beside the question and scores
each candidate against "none of them", so a sentence is scored with its neighbours in view, and
an answer that runs over two sentences lights up both. A table passage is read as its lines,
each row scored with its header above it. A logistic model shipped with the network puts its
score beside retrieval's and the question's words (``read/features.py``).

A few candidates are removed by rule, each a named constraint the ``Result`` reports when it
fires: a passage kind that is not evidence, a sentence addressed to a reader or a model
(``lastword.injection``), a fragment (a heading or label), a run-on (a table body read as one
sentence). Nothing else is written by hand: which sentence answers is the model's call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lastword.injection import is_instruction
from lastword.read.features import combined, features
from lastword.read.model import MODELS, ReaderModel, Scores, shipped_model
from lastword.result import RetrievedPassage
from lastword.sentences import split_sentences

_END_MARK = re.compile(r"[.!?][\"')\]]*$")
_TABLE_LABEL = re.compile(r"^\s*((supplementary\s+)?table\s*[-–.]?\s*S?[\dIVX]+[a-z]?)", re.I)


@dataclass(frozen=True)
class Unit:
    """A sentence or a table row that may be quoted."""

    n: int
    #: index of the passage among those read
    passage: int
    #: position among the passage's units (reading order)
    position: int
    #: the text quoted (a table row stated under its header's column names)
    text: str
    #: the character span read in the passage's text
    start: int
    end: int
    kind: str
    #: a table row's cells under their column names
    cells: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Constraint:
    """A rule that removes a candidate before the model's choice: what the model cannot learn
    from its data or must never be allowed to get wrong."""

    name: str

    def removes(self, unit: Unit) -> bool:  # pragma: no cover - each subclass says
        raise NotImplementedError


@dataclass(frozen=True)
class NotEvidence(Constraint):
    name: str = "not_evidence"
    kinds: frozenset[str] = frozenset({"references", "front", "heading"})

    def removes(self, unit: Unit) -> bool:
        return unit.kind in self.kinds


@dataclass(frozen=True)
class Instruction(Constraint):
    """Text addressed to a reader or a model is never evidence (``lastword.injection``)."""

    name: str = "instruction"

    def removes(self, unit: Unit) -> bool:
        return is_instruction(unit.text)


@dataclass(frozen=True)
class Fragment(Constraint):
    """A heading, label or scrap: too few words, or not ending as a sentence does."""

    name: str = "fragment"
    min_words: int = 4

    def removes(self, unit: Unit) -> bool:
        return len(unit.text.split()) < self.min_words or not _END_MARK.search(unit.text)


@dataclass(frozen=True)
class RunOn(Constraint):
    """Longer than any sentence: a table body or run-together text."""

    name: str = "run_on"
    max_words: int = 90

    def removes(self, unit: Unit) -> bool:
        return len(unit.text.split()) > self.max_words


DEFAULT_CONSTRAINTS: tuple[Constraint, ...] = (NotEvidence(), Instruction(), Fragment(), RunOn())


@dataclass(frozen=True)
class Removal:
    n: int
    text: str
    constraint: str


@dataclass(frozen=True)
class Reading:
    """What the reader found: every candidate with its probability, best first."""

    units: tuple[Unit, ...]
    probability: np.ndarray
    #: per passage number: the probability that the passage holds an answer
    passages: dict[int, float]
    removed: tuple[Removal, ...] = ()
    #: every sentence/row of each passage, removed ones included (neighbours in reading order)
    all_units: tuple[Unit, ...] = field(default=(), repr=False)

    @property
    def best(self) -> float:
        return float(self.probability.max()) if len(self.probability) else 0.0

    @property
    def answerability(self) -> float:
        """The probability that these passages answer the question: the best candidate's."""
        return self.best

    def ranked(self) -> list[int]:
        return [int(i) for i in np.argsort(-self.probability, kind="stable")]


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -500 else 0.0


def sentence_spans(text: str) -> list[tuple[int, int, str]]:
    """Each sentence of ``text`` (``lastword.sentences``) with its character span."""
    out, cursor = [], 0
    for sentence in split_sentences(text):
        at = text.find(sentence, cursor)
        if at < 0:
            continue
        out.append((at, at + len(sentence), sentence))
        cursor = at + len(sentence)
    return out


def table_units(text: str) -> list[tuple[int, int, str, tuple[tuple[str, str], ...]]]:
    """A table passage's rows (lines with " | " after the header), each stated under the
    header's column names ("Table 3 — Group: T6; FCR: 1.70."), with the line's span."""
    lines, cursor = [], 0
    for line in text.split("\n"):
        if line.strip():
            lines.append((cursor, cursor + len(line), line.strip()))
        cursor += len(line) + 1
    label = ""
    if lines and (match := _TABLE_LABEL.match(lines[0][2])):
        label = match.group(1).strip()
    ruled = [entry for entry in lines if " | " in entry[2]]
    if len(ruled) < 2:
        return []
    header = ruled[0][2].split(" | ")
    out = []
    for start, end, row in ruled[1:]:
        cells = row.split(" | ")
        if len(cells) < len(header):
            cells += [""] * (len(header) - len(cells))
        named: tuple[tuple[str, str], ...] = ()
        if len(cells) == len(header):
            named = tuple((h, c) for h, c in zip(header, cells, strict=True) if c)
            body = "; ".join(f"{h}: {c}" for h, c in named)
        else:
            body = f"{' | '.join(header)} / {row}"
        out.append((start, end, f"{label} — {body}." if label else f"{body}.", named))
    return out


def units_of(passages: Sequence[RetrievedPassage]) -> list[Unit]:
    out = []
    for index, p in enumerate(passages):
        rows = table_units(p.text) if p.kind == "table" else []
        if rows:
            for position, (s, e, text, cells) in enumerate(rows):
                out.append(Unit(p.n, index, position, text, s, e, p.kind, cells))
            continue
        for position, (s, e, text) in enumerate(sentence_spans(p.text)):
            out.append(Unit(p.n, index, position, text, s, e, p.kind))
    return out


def unit_probability(scores: Scores, row: int, unit: Unit) -> float:
    """The unit against "none of them", as a probability: the mean of its word pieces' logits
    (the network's candidate head is linear, so this is the head over the unit's mean state)
    minus the row's "none" logit (``row``: the passage's place in ``scores``)."""
    starts, ends = scores.starts[row], scores.ends[row]
    inside = (starts < unit.end) & (ends > unit.start)
    if not inside.any():
        return 0.0
    return _sigmoid(float(scores.token_logits[row][inside].mean()))


def candidates(
    units: Sequence[Unit], constraints: Sequence[Constraint] = DEFAULT_CONSTRAINTS
) -> tuple[list[Unit], list[Removal]]:
    """The units no constraint removes, and a ``Removal`` naming the first rule for each other."""
    kept, removed = [], []
    for unit in units:
        rule = next((c for c in constraints if c.removes(unit)), None)
        if rule is None:
            kept.append(unit)
        else:
            removed.append(Removal(unit.n, unit.text, rule.name))
    return kept, removed


@dataclass(frozen=True)
class ReaderConfig:
    model_dir: Path = MODELS
    constraints: tuple[Constraint, ...] = DEFAULT_CONSTRAINTS


class Reader:
    def __init__(self, config: ReaderConfig | None = None, model: ReaderModel | None = None):
        self.config = config or ReaderConfig()
        self._model = model

    @property
    def model(self) -> ReaderModel:
        if self._model is None:
            self._model = shipped_model(str(self.config.model_dir))
        return self._model

    def run(
        self, question: str, passages: Sequence[RetrievedPassage], *, combine: bool = True
    ) -> Reading:
        """``combine=False``: the network's probabilities alone (fitting the combination)."""
        every = units_of(passages)
        kept, removed = candidates(every, self.config.constraints)
        # only passages with a candidate left are read (each whole, its removed units as context)
        readable = sorted({u.passage for u in kept})
        probability = np.zeros(len(kept))
        passage_p: dict[int, float] = {}
        if readable:
            scores = self.model.score(question, [passages[i].text for i in readable])
            row = {p: j for j, p in enumerate(readable)}
            probability = np.array([unit_probability(scores, row[u.passage], u) for u in kept])
            weights = self.model.provenance.get("combine")
            if weights and combine:
                # the network beside retrieval and the words (``read/features.py``)
                probability = combined(features(question, passages, kept, probability), weights)
            for u, pr in zip(kept, probability, strict=True):
                n = passages[u.passage].n
                passage_p[n] = max(passage_p.get(n, 0.0), float(pr))
        return Reading(tuple(kept), probability, passage_p, tuple(removed), tuple(every))
