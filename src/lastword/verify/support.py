"""How well a cited passage supports a sentence, measured locally.

Three signals per (sentence, passage) pair:
- ``sentence_cosine``: the best cosine between the sentence and any one sentence of the passage
  (a claim usually rests on one sentence, and a long passage dilutes the whole-passage vector);
- ``lexical``: the share of the sentence's content words (stop words and numbers left out,
  words cut to a 5-letter stem) that the passage contains;
- ``passage_cosine`` (benchmark only): the cosine between the sentence and the whole passage.

``support`` combines them as measured in ``bench/verify_support_floor.py`` (see docs/verifier.md).
The embedder is called twice per draft whatever its length: once for every answer sentence,
once for every cited passage and its sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lastword.embed.protocol import Embedder
from lastword.sentences import split_sentences
from lastword.verify.citations import strip_markers

_STOP_WORD_LIST = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    may might more most much must my no nor not now of off on once only or other our ours out over
    own same she should so some such than that the their theirs them then there these they this
    those through to too under until up upon very via was we were what when where which while who
    whom why will with within without would you your based passage passages according shown show
    shows study studies reported report reports found suggest suggests suggested"""
_STOP_WORDS = frozenset(_STOP_WORD_LIST.split())
_STEM = 5
#: emphasis marks a model may write around words ("**aspirin**", "`code`")
_MARKDOWN_RE = re.compile(r"\*\*|__|`")
#: weights of the combined score; chosen on SciFact and PubMedQA, see docs/verifier.md
WEIGHT_SENTENCE_COSINE = 0.5
WEIGHT_LEXICAL = 0.5


def content_words(text: str) -> set[str]:
    words = re.findall(r"[^\W\d_][\w\-]*", text.lower())
    return {w[:_STEM] for w in words if w not in _STOP_WORDS and len(w) > 1}


def lexical_containment(sentence: str, passage: str) -> float:
    """Share of the sentence's content words that occur in the passage (1.0 if it has none)."""
    wanted = content_words(sentence)
    if not wanted:
        return 1.0
    return len(wanted & content_words(passage)) / len(wanted)


@dataclass(frozen=True)
class SupportScore:
    sentence_cosine: float
    lexical: float
    #: only computed on request (the benchmark): it doubles the embedding work
    passage_cosine: float | None = None
    #: the passage sentence closest to the sentence (what the direction check compares with)
    best_piece: str = ""

    @property
    def support(self) -> float:
        return WEIGHT_SENTENCE_COSINE * self.sentence_cosine + WEIGHT_LEXICAL * self.lexical


def passage_sentences(passage: str) -> list[str]:
    """Split as the extractive generator splits, so its verbatim sentences match exactly."""
    return split_sentences(passage) or [passage]


def score_pairs(
    sentences: Sequence[str],
    passages: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    embedder: Embedder,
    *,
    whole_passages: bool = False,
) -> list[SupportScore]:
    """Scores for each (sentence index, passage index) pair, in order.

    Only the passages that some pair names are split and embedded. Markers are stripped from
    both sides. ``whole_passages`` also embeds each passage whole, for ``passage_cosine``.
    """
    if not pairs:
        return []
    used = sorted({p for _, p in pairs})
    clean_passages = {p: strip_markers(passages[p]) for p in used}
    pieces: dict[int, list[str]] = {p: passage_sentences(clean_passages[p]) for p in used}
    doc_texts: list[str] = []
    passage_row: dict[int, int] = {}
    piece_rows: dict[int, range] = {}
    for p in used:
        if whole_passages:
            passage_row[p] = len(doc_texts)
            doc_texts.append(clean_passages[p])
        piece_rows[p] = range(len(doc_texts), len(doc_texts) + len(pieces[p]))
        doc_texts.extend(pieces[p])

    used_sentences = sorted({s for s, _ in pairs})
    sentence_row = {s: i for i, s in enumerate(used_sentences)}
    clean_sentences = [_MARKDOWN_RE.sub("", strip_markers(sentences[s])) for s in used_sentences]
    sentence_vectors = np.asarray(embedder.embed_queries(clean_sentences), dtype=np.float32)
    doc_vectors = np.asarray(embedder.embed_documents(doc_texts), dtype=np.float32)
    similarity = sentence_vectors @ doc_vectors.T

    scores: list[SupportScore] = []
    for s, p in pairs:
        row = similarity[sentence_row[s]]
        rows = piece_rows[p]
        best = int(np.argmax(row[rows.start : rows.stop]))
        scores.append(
            SupportScore(
                sentence_cosine=float(row[rows.start + best]),
                lexical=lexical_containment(clean_sentences[sentence_row[s]], clean_passages[p]),
                passage_cosine=float(row[passage_row[p]]) if whole_passages else None,
                best_piece=pieces[p][best],
            )
        )
    return scores


def question_relevance(question: str, sentences: Sequence[str], embedder: Embedder) -> list[float]:
    """How much each sentence addresses the question: the cosine between the two, raised by
    the IDF-free share of the question's content words the sentence holds (so "280 chicks
    were used" answers "How many chicks were used?" even when the embedder is lukewarm).

    One embedding call for the question and the sentences together.
    """
    if not sentences:
        return []
    clean = [_MARKDOWN_RE.sub("", strip_markers(s)) for s in sentences]
    vectors = np.asarray(embedder.embed_queries([question, *clean]), dtype=np.float32)
    cosines = vectors[1:] @ vectors[0]
    asked = content_words(question)
    out = []
    for sentence, cosine in zip(clean, cosines, strict=True):
        overlap = len(asked & content_words(sentence)) / len(asked) if asked else 0.0
        out.append(max(float(cosine), float(cosine) * 0.5 + overlap * 0.5))
    return out
