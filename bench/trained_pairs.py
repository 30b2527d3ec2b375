"""A relevance scorer trained on the corpus ablation, as a gate signal (bench only: not shipped).

The gate's other signals are made by hand from cosines and word overlap. A cross-encoder reads
the question and a passage together and gives one number: how well that passage answers that
question. None with pretrained weights installs here, so ``bench/gate_trained.py`` fine-tunes
the shipped MiniLM weights into one, on PubMedQA dev only. This module holds the parts of that
design that do not need a model: which (question, passage) pairs it learns from, and how its
scores over a ranking become one gate signal. docs/calibration.md has the measurements: trained
on one 500-question half it is far weaker than the top cosine (PubMedQA test AUC 0.863 alone,
SciFact 0.551) and adds nothing refitted with the shipped signals, so no setting reads it.

- ``training_pairs``: positives are the passages of the question's own document; negatives the
  passages of *other* documents that retrieval ranks highest for it once its own document is
  excluded (the ablation case the gate must refuse), at most ``negatives`` of them, only from
  ``allowed`` documents (the training half), never a passage of the question's own document.
- ``best_over_top_document`` / ``best_over``: the signal, the scorer's best score over the top
  document's passages among the ranking's first ``depth`` (the passages ``maxsim`` reads), or
  over all of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    question: str
    passage: str
    label: float


def training_pairs(
    question: str,
    own_passages: Sequence[str],
    ablated_ranking: Iterable[Mapping[str, str]],
    own_doc: str,
    allowed: Collection[str],
    negatives: int,
    positives: int | None = None,
) -> list[Pair]:
    """Pairs for one question. ``ablated_ranking``: rows with ``doc`` and ``text``, best first,
    from a retrieval that excluded ``own_doc``; ``positives``: keep at most that many of the
    own passages (in document order), all when None."""
    if negatives < 0:
        raise ValueError("negatives must be >= 0")
    own = [text for text in own_passages if text.strip()]
    pairs = [Pair(question, text, 1.0) for text in own[:positives]]
    seen = set(own)
    hard: list[Pair] = []
    for row in ablated_ranking:
        if len(hard) >= negatives:
            break
        if row["doc"] == own_doc or row["doc"] not in allowed or row["text"] in seen:
            continue
        seen.add(row["text"])
        hard.append(Pair(question, row["text"], 0.0))
    return pairs + hard


def best_over(scores: Sequence[float], depth: int = 8) -> float:
    """The best score among the ranking's first ``depth`` passages (0.0 for an empty one)."""
    return max(scores[:depth], default=0.0)


def best_over_top_document(
    scores: Sequence[float], doc_ids: Sequence[str], depth: int = 8
) -> float:
    """The best score among the top document's passages within the first ``depth``."""
    if len(scores) != len(doc_ids):
        raise ValueError("one score per passage")
    if not scores:
        return 0.0
    top = doc_ids[0]
    return max(s for s, d in zip(scores[:depth], doc_ids[:depth], strict=True) if d == top)
