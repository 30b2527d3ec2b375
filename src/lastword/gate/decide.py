"""The retrieval gate as one component: everything it reads and decides, in one place.

``Gate.run(question, ranking)`` takes the ranking retrieval produced and returns a
``GateDecision``: the signals (``gate/signals.py``), the band they fall in (``gate/bands.py``)
and the time it took. What the gate reads beyond the ranking it fetches itself: the top
document's text and the corpus lexicon from the store, and token vectors for MaxSim from the
embedder (``gate/late_interaction.py``), only when the gate model weighs it. The
corpus-relative signals (``gate/transfer.py``) read what retrieval kept when asked
(``needs_context``: pass ``retrieve(..., context=True)``'s ``Retrieval`` to ``run``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from lastword.embed.protocol import Embedder, TokenEmbedder
from lastword.errors import ConfigError
from lastword.gate.bands import SpecificRule, band_for
from lastword.gate.late_interaction import maxsim
from lastword.gate.signals import DEPTH, gate_signals
from lastword.read.reader import Reading
from lastword.result import Band, GateSignals, RetrievedPassage
from lastword.retrieve import Retrieval
from lastword.settings import CONTEXT_FEATURES, Thresholds
from lastword.store.protocol import Store


@dataclass(frozen=True)
class GateDecision:
    signals: GateSignals
    band: Band
    gate_ms: float

    @property
    def refuses(self) -> bool:
        return self.band is Band.WEAK


class Gate:
    """The retrieval gate for one index: thresholds for its embedder, its store, its embedder."""

    def __init__(
        self,
        thresholds: Thresholds,
        store: Store,
        embedder: Embedder,
        embedder_name: str,
        specific: SpecificRule | None = None,
        reader: Thresholds | None = None,
    ) -> None:
        self.thresholds = thresholds
        #: set: the band is read from the reader's answerability against these (``run``)
        self.reader = reader
        self.store = store
        #: the second way through below weak (``[gate] specific_floor``); None: the score alone
        self.specific = specific
        self.token_embedder = None if reader else self._token_embedder(embedder, embedder_name)

    @property
    def needs_context(self) -> bool:
        """Whether the model weighs a signal that needs ``retrieve(..., context=True)``."""
        if self.reader is not None:
            return False
        model = self.thresholds.model
        return model is not None and any(name in model.weighed() for name in CONTEXT_FEATURES)

    def _token_embedder(self, embedder: Embedder, name: str) -> TokenEmbedder | None:
        """The embedder, when the gate model weighs the token-level signal; else None."""
        model = self.thresholds.model
        if model is None or "maxsim" not in model.weighed():
            return None
        if not isinstance(embedder, TokenEmbedder):
            raise ConfigError(
                f"gate.thresholds.{name}.model weighs 'maxsim', but the {name} embedder has no "
                "token vectors; set that weight to 0 (and recalibrate) or use a local embedder"
            )
        return embedder

    def prepare(self, question: str) -> float:
        """Embed the question's tokens before retrieval; returns the milliseconds it took.

        The pass that makes the token vectors also makes the sentence vector (MiniLM remembers
        it), so retrieval reuses that pass and the question is encoded once.
        """
        if self.token_embedder is None:
            return 0.0
        started = time.perf_counter()
        self.token_embedder.embed_tokens([question])
        return (time.perf_counter() - started) * 1000

    def _maxsim(self, question: str, ranking: Sequence[RetrievedPassage]) -> float | None:
        if self.token_embedder is None or not ranking:
            return None
        # The top document's passages among those the gate looks at: usually one to three.
        top_doc = ranking[0].doc_id
        texts = [p.text for p in ranking[:DEPTH] if p.doc_id == top_doc]
        vectors = self.token_embedder.embed_tokens([question, *texts])
        return maxsim(vectors[0], vectors[1:])

    def run(
        self,
        question: str,
        ranking: Sequence[RetrievedPassage],
        retrieval: Retrieval | None = None,
        reading: Reading | None = None,
    ) -> GateDecision:
        """Signals and band for ``ranking`` (best first, at least ``DEPTH`` deep when it can).

        ``retrieval``: what retrieval kept beyond the ranking (``context=True``), for the
        corpus-relative signals; without it those signals are not computed. ``reading``: the
        reader's reading of the passages; with reader thresholds the band is read from its
        answerability alone (the retrieval signals are still recorded).
        """
        started = time.perf_counter()
        if self.reader is not None and reading is not None:
            return self._read(question, ranking, reading, started)
        top_text = self.store.document_text(ranking[0].doc_id) if ranking else ""
        signals = gate_signals(
            question,
            ranking,
            self.thresholds,
            self.store.lexicon(),
            top_text,
            maxsim=self._maxsim(question, ranking),
            background=retrieval.background if retrieval else None,
            lexical_docs=retrieval.lexical_docs if retrieval else None,
            specific_min_passages=self.specific.min_passages if self.specific else 1,
        )
        band = band_for(signals.score, self.thresholds) if ranking else Band.WEAK
        if (
            band is Band.WEAK
            and ranking
            and self.specific is not None
            and self.specific.lets_through(signals.score, signals.specific, self.thresholds)
        ):
            band = Band.BORDERLINE
            signals = signals.model_copy(update={"specific_floor": self.specific.floor})
        return GateDecision(signals, band, (time.perf_counter() - started) * 1000)

    def _read(
        self,
        question: str,
        ranking: Sequence[RetrievedPassage],
        reading: Reading,
        started: float,
    ) -> GateDecision:
        """The one decision on the reader's answerability; the retrieval signals that cost
        nothing beyond the ranking are recorded beside it."""
        assert self.reader is not None
        top_text = self.store.document_text(ranking[0].doc_id) if ranking else ""
        signals = gate_signals(question, ranking, self.reader, self.store.lexicon(), top_text)
        score = reading.answerability
        band = band_for(score, self.reader) if ranking else Band.WEAK
        signals = signals.model_copy(
            update={"reader": round(score, 6), "score": round(score, 6), "signal": "reader"}
        )
        return GateDecision(signals, band, (time.perf_counter() - started) * 1000)
