"""The default generator: no model. It quotes the retrieved sentences that best answer.

Sentences of the retrieved passages are scored against the question by the local embedder,
picked with maximal marginal relevance (so three sentences are not three wordings of one
fact), and written verbatim, each followed by the ``[N]`` of its passage. The source's own
bracketed reference numbers are neutralised first so they can never pass for ours.
"""

from __future__ import annotations

import re

import numpy as np

from lastword.embed.protocol import Embedder
from lastword.generate.prompt import UNANSWERABLE, neutralise_reference_markers
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.sentences import split_sentences

#: sentences shorter than this are fragments (labels) rather than statements; a candidate
#: must also end like a sentence, which leaves out headings
MIN_WORDS = 5
#: MMR trade-off: 1.0 is pure relevance, 0.0 pure diversity
RELEVANCE_WEIGHT = 0.7
#: weight of the passage's own retrieval score in a sentence's relevance
PASSAGE_WEIGHT = 0.3


_END_MARK = re.compile(r"([.!?][\"')\]]*)$")


def cite(sentence: str, n: int) -> str:
    """Put ``[n]`` before the sentence's end mark: "... was reduced [2]." """
    match = _END_MARK.search(sentence)
    if match is None:
        return f"{sentence} [{n}]."
    return f"{sentence[: match.start()]} [{n}]{match.group(1)}"


class ExtractiveGenerator:
    def __init__(self, embedder: Embedder, sentences: int = 3, min_similarity: float = 0.2) -> None:
        self._embedder = embedder
        self._sentences = sentences
        self._min_similarity = min_similarity

    @property
    def name(self) -> str:
        return "extractive"

    def generate(self, request: GenerationRequest) -> Draft:
        candidates: list[tuple[int, str, float]] = []  # (passage n, sentence, passage score)
        for passage in request.passages:
            for sentence in split_sentences(neutralise_reference_markers(passage.text)):
                if len(sentence.split()) >= MIN_WORDS and _END_MARK.search(sentence):
                    candidates.append((passage.n, sentence, passage.score))
        if not candidates:
            return Draft(text=UNANSWERABLE, declared=() if request.source_kind == "web" else None)

        vectors = self._embedder.embed_documents([c[1] for c in candidates])
        query = self._embedder.embed_queries([request.question])[0]
        similarity = vectors @ query
        relevance = (1 - PASSAGE_WEIGHT) * similarity + PASSAGE_WEIGHT * np.array(
            [c[2] for c in candidates], dtype=np.float32
        )

        chosen: list[int] = []
        remaining = [i for i in range(len(candidates)) if similarity[i] >= self._min_similarity]
        while remaining and len(chosen) < self._sentences:
            if chosen:
                redundancy = (vectors[remaining] @ vectors[chosen].T).max(axis=1)
            else:
                redundancy = np.zeros(len(remaining), dtype=np.float32)
            mmr = RELEVANCE_WEIGHT * relevance[remaining] - (1 - RELEVANCE_WEIGHT) * redundancy
            best = remaining[int(np.argmax(mmr))]
            chosen.append(best)
            remaining.remove(best)
        if not chosen:
            return Draft(text=UNANSWERABLE, declared=() if request.source_kind == "web" else None)

        lines = [cite(candidates[i][1], candidates[i][0]) for i in chosen]
        used = tuple(sorted({candidates[i][0] for i in chosen}))
        return Draft(text=" ".join(lines), declared=used if request.source_kind == "web" else None)
