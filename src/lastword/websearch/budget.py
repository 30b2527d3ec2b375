"""Budgets on what reaches the model: results per search, characters per result and in total."""

from __future__ import annotations

from dataclasses import dataclass, replace

from lastword.websearch.relevance import ScoredResult


@dataclass(frozen=True)
class Budget:
    results: int = 5
    chars_per_result: int = 400
    chars_total: int = 1600

    def apply(self, scored: list[ScoredResult]) -> list[ScoredResult]:
        """The best-scoring results first, snippets cut to fit; stops when the total is spent."""
        kept: list[ScoredResult] = []
        left = self.chars_total
        for item in sorted(scored, key=lambda s: s.score, reverse=True)[: self.results]:
            if left <= 0:
                break
            snippet = cut(item.result.snippet, min(self.chars_per_result, left))
            if not snippet:
                continue
            left -= len(snippet)
            kept.append(replace(item, result=replace(item.result, snippet=snippet)))
        return kept


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if limit < 2:
        return ""
    head = text[: limit - 1]
    if " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:") + "…"
