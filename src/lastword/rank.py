"""Fusion and re-ranking for hybrid retrieval: pure functions over candidate lists.

- ``rrf``: reciprocal-rank fusion (Cormack et al. 2009), sum of 1 / (60 + rank) per list.
- ``score_fusion``: each list's scores placed against that list's own spread (the top score
  maps to 1, the list's last to 0), then a weighted sum: a calibrated score fusion.
- ``zscore_fusion``: each list's scores as standard scores over the pooled candidates (a
  passage's cosine is known for every candidate; BM25 is 0 for a candidate the lexical list did
  not return), then a weighted sum: each list's scale is set by its whole spread over the same
  pool, not by its two extremes. Best on SciFact train (bench/retrieval.py).
- ``rerank``: the fused order's head re-scored with local signals no index stores: the
  IDF-weighted share of the question's terms the passage (with its title) contains, and how
  close together they stand (proximity: the shortest window holding every matched term).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lastword.terms import TOKEN, idf, terms

RRF_K = 60


def rrf(*rankings: Sequence[int], k: int = RRF_K) -> dict[int, float]:
    """Passage id -> fused score, from rankings best first."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, start=1):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (k + rank)
    return fused


def _spread(scores: Mapping[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    high, low = max(scores.values()), min(scores.values())
    width = high - low
    return {pid: (s - low) / width if width > 0 else 1.0 for pid, s in scores.items()}


def score_fusion(
    dense: Mapping[int, float], lexical: Mapping[int, float], lexical_weight: float
) -> dict[int, float]:
    """Weighted sum of the two lists' scores, each rescaled to 0..1 over its own list."""
    d, lex = _spread(dense), _spread(lexical)
    return {
        pid: (1 - lexical_weight) * d.get(pid, 0.0) + lexical_weight * lex.get(pid, 0.0)
        for pid in d.keys() | lex.keys()
    }


def _standard(values: Mapping[int, float]) -> dict[int, float]:
    if not values:
        return {}
    mean = sum(values.values()) / len(values)
    spread = (sum((v - mean) ** 2 for v in values.values()) / len(values)) ** 0.5
    return {pid: (v - mean) / spread if spread > 0 else 0.0 for pid, v in values.items()}


def zscore_fusion(
    cosines: Mapping[int, float], lexical: Mapping[int, float], lexical_weight: float
) -> dict[int, float]:
    """Weighted sum of standard scores over the pool (``cosines``: every pooled candidate)."""
    d = _standard(cosines)
    lex = _standard({pid: lexical.get(pid, 0.0) for pid in cosines})
    return {pid: (1 - lexical_weight) * d[pid] + lexical_weight * lex[pid] for pid in cosines}


def _standard_array(values: np.ndarray) -> np.ndarray:
    """``_standard`` over an array: the same sums (Python's, in the same order), the same
    per-element operations, so the same bits."""
    listed = values.tolist()
    if not listed:
        return values
    mean = sum(listed) / len(listed)
    spread = (sum((v - mean) ** 2 for v in listed) / len(listed)) ** 0.5
    if spread > 0:
        return (values - mean) / spread
    return np.zeros(len(listed), dtype=np.float64)


def zscore_order(
    ids: np.ndarray, cosines: np.ndarray, lexical: np.ndarray, lexical_weight: float
) -> list[tuple[int, float]]:
    """``zscore_fusion`` over arrays, best first (ties by passage id): ``ids`` the pooled
    candidates, ``cosines`` each one's cosine, ``lexical`` its BM25 (0 where not returned)."""
    fused = (1 - lexical_weight) * _standard_array(cosines) + lexical_weight * _standard_array(
        lexical
    )
    order = np.lexsort((ids, -fused))
    return list(zip(ids[order].tolist(), fused[order].tolist(), strict=True))


@dataclass(frozen=True)
class TermWeights:
    """IDF of each content term of one question (``lastword.terms``, the corpus lexicon)."""

    weights: dict[str, float]

    @classmethod
    def of(cls, question: str, counts: Mapping[str, int], total: int) -> TermWeights:
        return cls({t: idf(counts, total, t) for t in terms(question)})


def term_coverage(weights: TermWeights, tokens: Collection[str]) -> float:
    """IDF-weighted share of the question's terms present in ``tokens`` (words, or a set)."""
    total = sum(weights.weights.values())
    if total == 0:
        return 0.0
    present = set(tokens)
    return sum(w for t, w in weights.weights.items() if t in present) / total


def proximity(weights: TermWeights, tokens: Sequence[str]) -> float:
    """1 / (1 + extra words) of the shortest window holding every matched question term."""
    wanted = {t for t in weights.weights if t in set(tokens)}
    if len(wanted) < 2:
        return 1.0 if wanted else 0.0
    best = len(tokens)
    seen: dict[str, int] = {}
    left = 0
    for right, token in enumerate(tokens):
        if token in wanted:
            seen[token] = seen.get(token, 0) + 1
        while len(seen) == len(wanted):
            best = min(best, right - left + 1)
            drop = tokens[left]
            if drop in seen:
                seen[drop] -= 1
                if seen[drop] == 0:
                    del seen[drop]
            left += 1
    return 1.0 / (1.0 + max(0, best - len(wanted)))


@dataclass(frozen=True)
class RerankWeights:
    """How much each local signal adds to the fused score (fitted on SciFact train claims)."""

    coverage: float = 0.0
    proximity: float = 0.0


def present_terms(weights: TermWeights) -> Callable[[str], set[str]]:
    """The question's terms a text holds as whole ``TOKEN`` words, without tokenising it all.

    A ``TOKEN`` word is a run of ``[a-z0-9'-]`` stripped of its leading and trailing ``'``/``-``,
    so an occurrence of a term is one of the text's words exactly when only ``'``/``-`` stand
    between it and a character outside ``[a-z0-9]`` (or the text's ends) on both sides.
    ``term_coverage`` over ``TOKEN.findall`` gives the same value (tests/test_retrieve_identity).
    """
    words = list(weights.weights)

    def find(text: str) -> set[str]:
        low = text.lower()
        end = len(low)
        found = set()
        for word in words:
            at = low.find(word)
            while at >= 0:
                if _whole_word(low, at, len(word), end):
                    found.add(word)
                    break
                at = low.find(word, at + 1)
        return found

    return find


def present_in_each(weights: TermWeights, texts: Sequence[str]) -> list[set[str]]:
    """``present_terms`` of each text, in one scan of all of them: the lowered texts joined by
    a newline (a character outside every ``TOKEN`` word, as a text's own ends are), each term
    looked for once along the whole, skipping to the next text when one text holds it."""
    lowered = [text.lower() for text in texts]
    starts = [0]
    for low in lowered:
        starts.append(starts[-1] + len(low) + 1)
    low = "\n".join(lowered)
    end = len(low)
    found: list[set[str]] = [set() for _ in texts]
    for word in weights.weights:
        at = low.find(word)
        while at >= 0:
            if _whole_word(low, at, len(word), end):
                index = bisect_right(starts, at) - 1
                found[index].add(word)
                at = low.find(word, starts[index + 1])  # the next text
                continue
            at = low.find(word, at + 1)
    return found


def _whole_word(low: str, at: int, length: int, end: int) -> bool:
    """Whether the match of ``length`` characters at ``at`` stands as a word: no letter or
    digit touches it on either side once joining characters are stepped over."""
    left = at - 1
    while left >= 0 and low[left] in _JOINERS:
        left -= 1
    if left >= 0 and low[left] in _ALNUM:
        return False
    right = at + length
    while right < end and low[right] in _JOINERS:
        right += 1
    return right >= end or low[right] not in _ALNUM


_JOINERS = frozenset("-'")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def rerank(
    fused: Sequence[tuple[int, float]],
    texts: Mapping[int, str],
    weights: TermWeights,
    tuning: RerankWeights,
) -> list[tuple[int, float]]:
    """Re-score (passage id, fused score in 0..1) with the local signals; best first."""
    scored = []
    if tuning.proximity:
        for pid, score in fused:
            tokens = TOKEN.findall(texts[pid].lower())
            extra = tuning.coverage * term_coverage(weights, tokens)
            extra += tuning.proximity * proximity(weights, tokens)
            scored.append((pid, score + extra))
    else:  # coverage alone needs which terms are there, not every word
        present = present_in_each(weights, [texts[pid] for pid, _ in fused])
        # ``term_coverage`` of each, its total summed once (the same sums, in the same order)
        total, items = sum(weights.weights.values()), weights.weights.items()
        for (pid, score), terms_in in zip(fused, present, strict=True):
            share = sum(w for t, w in items if t in terms_in) / total if total != 0 else 0.0
            scored.append((pid, score + tuning.coverage * share))
    return sorted(scored, key=lambda item: -item[1])
