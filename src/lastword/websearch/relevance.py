"""The relevance floor: results scored against the question by the local embedder.

A result scoring below the floor never reaches the model. If the embedder fails, no result
does: an unscored preview is an unchecked one. The floor belongs to an embedder (MiniLM's is
measured by ``bench/websearch_floor.py``; see docs/chat.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lastword.embed.protocol import Embedder
from lastword.errors import LastwordError
from lastword.websearch.protocol import SearchResult


class EmbedderDown(LastwordError):
    """The local embedder failed while scoring search results."""


@dataclass(frozen=True)
class ScoredResult:
    result: SearchResult
    score: float


def result_text(result: SearchResult) -> str:
    """What is scored: the title and the snippet, the only text the model will see."""
    return f"{result.title}. {result.snippet}".strip()


class RelevanceFloor:
    def __init__(self, embedder: Embedder, floor: float) -> None:
        self.embedder = embedder
        self.floor = floor

    def score(self, question: str, results: tuple[SearchResult, ...]) -> list[ScoredResult]:
        """Every result with its cosine similarity to ``question``, in the provider's order."""
        if not results:
            return []
        try:
            q = np.asarray(self.embedder.embed_queries([question]), dtype=np.float32)
            docs = np.asarray(
                self.embedder.embed_documents([result_text(r) for r in results]),
                dtype=np.float32,
            )
            scores = docs @ q[0]
        except Exception as exc:  # any failure of the model means nothing is checked
            raise EmbedderDown(f"the embedder failed: {type(exc).__name__}: {exc}") from exc
        if scores.shape != (len(results),) or not np.all(np.isfinite(scores)):
            raise EmbedderDown("the embedder returned unusable vectors")
        return [ScoredResult(r, float(s)) for r, s in zip(results, scores, strict=True)]

    def keep(self, scored: list[ScoredResult]) -> list[ScoredResult]:
        return [s for s in scored if s.score >= self.floor]
