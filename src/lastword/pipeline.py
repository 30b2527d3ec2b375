"""Where the order of the steps lives: scope -> embed -> retrieve -> gate -> generate -> verify.

1. scope guard (``gate/scope.py``)  2. embed (``embed/``)  3. retrieve (``retrieve.py``)
4. read (``read/``: the learned reader scores every sentence of the passages)
5. gate (``gate/decide.py``: one decision, on the reader's answerability by default)
6. generate (``generate/``: quotes what the reader ranks)  7. verify (``verify/``)

The CLI, the web app, the chat assistant and the evaluation all call ``Pipeline``; nothing else
re-implements any part of it. Every decision lands in the ``Result`` it returns.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection
from pathlib import Path

from lastword.embed import Embedder
from lastword.embed.for_index import embedder_for_index
from lastword.errors import (
    InputError,
    ProviderError,
    ProviderRefused,
)
from lastword.gate import DEPTH, Gate, scope_refusal
from lastword.gate.auto import ThresholdSource, thresholds_for_index
from lastword.gate.bands import SpecificRule, below_weak
from lastword.gate.reader_gate import reader_thresholds
from lastword.generate import GenerationRequest, Generator, make_generator
from lastword.generate.extractive import ExtractiveGenerator
from lastword.generate.protocol import SourceKind
from lastword.generate.quoting import QuotingGenerator
from lastword.injection import without_instructions
from lastword.read.reader import Reader, Reading
from lastword.refusals import refusal, reword
from lastword.result import (
    Band,
    GateSignals,
    Mechanism,
    ReadCandidate,
    ReadingRecord,
    ReadRemoval,
    Result,
    RetrievedPassage,
    Status,
)
from lastword.retrieve import retrieve, tuning_from
from lastword.scope import Scope
from lastword.scope_refusal import scope_check
from lastword.settings import Settings, Thresholds
from lastword.store.open import open_store
from lastword.store.protocol import IndexInfo, Store
from lastword.text_check import check_text
from lastword.verify import verify_draft


def resolve_embedder(settings: Settings, index: IndexInfo, name: str | None = None) -> Embedder:
    """The embedder that built the index (one rule for every command: ``embed/for_index.py``)."""
    return embedder_for_index(settings.embed, index.embedder, name, "this path")


def check_question(question: str, limit: int) -> str:
    cleaned = check_text(question, "the question").strip()
    if not cleaned:
        raise InputError("the question is empty")
    if len(cleaned) > limit:
        raise InputError(
            f"the question is {len(cleaned):,} characters long; the limit is {limit:,} "
            "(retrieve.max_question_chars)"
        )
    return cleaned


class Pipeline:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder,
        generator: str | Generator | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        # A name (or None: the settings default) is built lazily; an instance is used as given.
        self._generator_choice = generator if isinstance(generator, str) else None
        self._generator: Generator | None = None if isinstance(generator, str) else generator
        self.index_info = store.info()
        # The operator's thresholds, else the index's own calibration, else the shipped ones.
        found = thresholds_for_index(settings, store)
        self.thresholds: Thresholds = found[0]
        self.thresholds_source: ThresholdSource = found[1]
        self.retrieve_tuning = tuning_from(settings.retrieve)
        gate = settings.gate
        rule = None
        if gate.specific_reach:
            rule = SpecificRule(
                gate.specific_floor, gate.specific_reach, gate.specific_min_passages
            )
        #: the learned reader (``[gate] decide = "reader"``, the default): read before the gate
        self.reader: Reader | None = Reader() if gate.decide == "reader" else None
        self.gate = Gate(
            self.thresholds,
            store,
            embedder,
            self.index_info.embedder.name,
            rule,
            reader=reader_thresholds(gate) if self.reader is not None else None,
        )
        if self.reader is not None:
            self.thresholds = self.gate.reader  # type: ignore[assignment]
            self.thresholds_source = "default" if gate.reader_weak is None else "settings"
        # the weak band's evidence check (step 4b): the extractive scorer, no model, for a gate
        # score at or above this (off: above any score; no gate model: no bound)
        self._evidence = ExtractiveGenerator.weak_band(embedder)
        self._evidence_low = below_weak(self.thresholds.weak, gate.evidence_reach)
        if self.thresholds.model is None:
            self._evidence_low = -math.inf  # the bare top score: log-odds mean nothing
        if gate.evidence_floor <= 0:
            self._evidence_low = math.inf  # the check is off

    @classmethod
    def open(
        cls,
        settings: Settings,
        index_dir: Path,
        generator: str | Generator | None = None,
        embedder: str | None = None,
    ) -> Pipeline:
        store = open_store(settings, index_dir)
        try:
            resolved = resolve_embedder(settings, store.info(), embedder)
            return cls(settings, store, resolved, generator)
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def generator(self) -> Generator:
        """Built on first use, so retrieval alone never needs a model or an API key."""
        if self._generator is None:
            self._generator = make_generator(
                self.settings.generate, self.embedder, self._generator_choice
            )
        return self._generator

    @property
    def generator_name(self) -> str:
        if self._generator is not None:
            return self._generator.name
        return self._generator_choice or self.settings.generate.generator

    # ------------------------------------------------------------------ steps
    def inspect(
        self,
        question: str,
        exclude_doc_ids: Collection[str] = (),
        k: int | None = None,
        scope: Scope | None = None,
    ) -> Result:
        """Steps 2-5: embed, retrieve, read, gate. Nothing is refused here; no generator runs.
        ``scope``: the part of the library searched, and who asks (``lastword.scope``)."""
        return self._inspect(question, exclude_doc_ids, k, scope)[0]

    def _inspect(
        self,
        question: str,
        exclude_doc_ids: Collection[str] = (),
        k: int | None = None,
        scope: Scope | None = None,
    ) -> tuple[Result, Reading | None]:
        question = check_question(question, self.settings.retrieve.max_question_chars)
        k = k or self.settings.retrieve.k
        # 2-3. Embed and retrieve. The gate's signals always look DEPTH deep, whatever k the
        # reader wants shown; the gate embeds the question's tokens first when it reads them.
        tokens_ms = self.gate.prepare(question)
        found = retrieve(
            question,
            self.embedder,
            self.store,
            max(k, DEPTH),
            exclude_doc_ids,
            mode=self.settings.retrieve.mode,
            kinds=self.settings.retrieve.evidence_kinds,
            tuning=self.retrieve_tuning,
            context=self.gate.needs_context,
            scope=scope,
        )
        # 4. The reader reads the passages the generator would quote from.
        reading = None
        read_ms = 0.0
        if self.reader is not None and found.passages:
            started = time.perf_counter()
            reading = self.reader.run(question, readable(found.passages[:k]))
            read_ms = (time.perf_counter() - started) * 1000
        # 5. The gate, on the ranking retrieval produced and the reader's answerability.
        decision = self.gate.run(question, found.passages, found, reading)
        band, signals = decision.band, decision.signals
        evidence_ms = 0.0
        if (
            reading is None
            and band is Band.WEAK
            and found.passages
            and signals.score >= self._evidence_low
        ):
            started = time.perf_counter()
            band, signals = self._evidence_check(question, found.passages[:k], signals)
            evidence_ms = (time.perf_counter() - started) * 1000
        timings = {
            "embed": tokens_ms + found.embed_ms,
            "retrieve": found.retrieve_ms,
            **{f"retrieve_{stage}": ms for stage, ms in found.stages_ms.items()},
        }
        if reading is not None:
            timings["read"] = read_ms
        timings["gate"] = decision.gate_ms + evidence_ms
        result = Result(
            question=question,
            status=Status.RETRIEVED,
            band=band,
            top_score=signals.top_score,
            passages=found.passages[:k],
            gate=signals,
            reading=record(reading),
            embedder=self.index_info.embedder.describe(),
            timings_ms=timings,
        )
        return result, reading

    def _evidence_check(
        self, question: str, passages: tuple[RetrievedPassage, ...], signals: GateSignals
    ) -> tuple[Band, GateSignals]:
        """4b. The weak band's second look, still before any generator: a question that asks a
        specific (a number, a name, a place) goes on when one sentence of the passages the
        generator will read states one with relevance >= ``[gate] evidence_floor``, or with the
        generator's own floor when the passages state every word of the question
        (``ExtractiveGenerator.admits_weak``). The extractive scorer decides (local arithmetic
        over the passages, no model); on real papers it separates answerable from unanswerable
        questions better than the passage-level score (AUC 0.940 / 0.923 on the DEV / TEST
        halves, docs/ingest.md)."""
        floor = self.settings.gate.evidence_floor
        admitted, best, used = self._evidence.admits_weak(
            GenerationRequest(question, passages, "corpus"), floor
        )
        if admitted:
            return Band.BORDERLINE, signals.model_copy(
                update={"evidence": best, "evidence_floor": used}
            )
        return Band.WEAK, signals.model_copy(update={"evidence": best})

    def ask(
        self, question: str, exclude_doc_ids: Collection[str] = (), scope: Scope | None = None
    ) -> Result:
        started = time.perf_counter()
        question = check_question(question, self.settings.retrieve.max_question_chars)

        # 1. Scope guard: before anything else, no embedding, no model.
        scope_started = time.perf_counter()
        refused = scope_refusal(question, self.settings.scope)
        if refused is not None:
            refused = reword(refused, self.settings.refusals)
        scope_ms = (time.perf_counter() - scope_started) * 1000
        if refused is not None:
            return Result(
                question=question,
                status=Status.REFUSED,
                decided_by=Mechanism.SCOPE_GUARD,
                top_score=0.0,
                refusal=refused,
                embedder=self.index_info.embedder.describe(),
                timings_ms={"scope": scope_ms, "total": (time.perf_counter() - started) * 1000},
            )

        # 2-5. Embed, retrieve, read, gate (``inspect``).
        result, reading = self._inspect(question, exclude_doc_ids, scope=scope)
        timings = {"scope": scope_ms, **result.timings_ms}
        # a filtered scope: the gate's verdict checked against the reader's whole library
        in_scope = None
        if scope is not None and scope.filtered and self.index_info.passages:
            in_scope = scope_check(self, question, exclude_doc_ids, scope, result)
        if not result.passages or result.band is Band.WEAK or in_scope is not None:
            reason = "empty_index" if not self.index_info.passages else "weak_retrieval"
            timings["total"] = (time.perf_counter() - started) * 1000
            refused = in_scope or refusal(reason, messages=self.settings.refusals)
            return result.model_copy(
                update={
                    "status": Status.REFUSED,
                    "decided_by": Mechanism.RETRIEVAL_GATE,
                    "refusal": refused,
                    "timings_ms": timings,
                }
            )

        # 5-6. Generate over the passages, then verify every sentence.
        answered = self._compose(result, "corpus", timings, reading)
        answered.timings_ms["total"] = (time.perf_counter() - started) * 1000
        return answered

    def answer_from(
        self,
        question: str,
        passages: tuple[RetrievedPassage, ...],
        source_kind: SourceKind = "web",
    ) -> Result:
        """Generate and verify over passages supplied by the caller (web results)."""
        question = check_question(question, self.settings.retrieve.max_question_chars)
        top = max((p.score for p in passages), default=0.0)
        base = Result(
            question=question,
            status=Status.RETRIEVED,
            top_score=top,
            passages=passages,
            embedder=self.index_info.embedder.describe(),
        )
        return self._compose(base, source_kind, {})

    def _compose(
        self,
        base: Result,
        source_kind: SourceKind,
        timings: dict[str, float],
        reading: Reading | None = None,
    ) -> Result:
        request = GenerationRequest(
            base.question, readable(base.passages), source_kind, band=base.band, reading=reading
        )
        generate_started = time.perf_counter()
        try:
            generator = self.generator
            draft = generator.generate(request)
        except ProviderError as exc:
            # The provider declining the content is "blocked"; anything else broke: "failed".
            timings["generate"] = (time.perf_counter() - generate_started) * 1000
            return base.model_copy(
                update={
                    "status": Status.BLOCKED if isinstance(exc, ProviderRefused) else Status.FAILED,
                    "decided_by": Mechanism.UPSTREAM,
                    "error": f"{exc.kind}: {exc}",
                    "generator": self.generator_name,
                    "timings_ms": timings,
                }
            )
        timings["generate"] = (time.perf_counter() - generate_started) * 1000

        verify_started = time.perf_counter()
        references = self.store.references({p.doc_id for p in base.passages})
        # A quoted answer's relevance to the question was the reader's and the gate's call; the
        # verifier's question checks are for what a model wrote.
        quoted = isinstance(generator, QuotingGenerator)
        checked = verify_draft(
            draft.text,
            base.passages,
            self.embedder,
            self.settings.verify,
            references,
            question=None if quoted else base.question,
        )
        timings["verify"] = (time.perf_counter() - verify_started) * 1000
        update = {
            "draft": draft.text,
            "sentences": checked.sentences,
            "citations": checked.citations,
            "phantoms": checked.phantoms,
            "dropped": checked.dropped,
            "generator": generator.name,
            "usage": draft.usage,
            "declared": draft.declared,
            "timings_ms": timings,
        }
        if checked.declined:
            update |= {
                "status": Status.REFUSED,
                "decided_by": Mechanism.GENERATOR,
                "refusal": refusal("generator_declined", messages=self.settings.refusals),
                "sentences": (),
                "citations": (),
            }
        elif not checked.supported:
            update |= {
                "status": Status.REFUSED,
                "decided_by": Mechanism.VERIFIER,
                "refusal": refusal(checked.refusal_reason, messages=self.settings.refusals),
                "sentences": (),
                "citations": (),
            }
        else:
            update |= {"status": Status.ANSWERED, "answer": checked.answer}
        return base.model_copy(update=update)


def readable(passages: tuple[RetrievedPassage, ...]) -> tuple[RetrievedPassage, ...]:
    """The passages without the sentences that address a reader or a model, neighbours of a
    split instruction included (``lastword.injection``): what the reader and generators read."""
    return tuple(p.model_copy(update={"text": without_instructions(p.text)}) for p in passages)


#: the reader's best candidates a result records
RECORDED_CANDIDATES = 5


def record(reading: Reading | None) -> ReadingRecord | None:
    """What a ``Result`` keeps of a reading: the best candidates and every removal."""
    if reading is None:
        return None
    best = reading.ranked()[:RECORDED_CANDIDATES]
    return ReadingRecord(
        answerability=round(reading.answerability, 6),
        candidates=tuple(
            ReadCandidate(
                n=reading.units[i].n,
                text=reading.units[i].text,
                probability=round(float(reading.probability[i]), 6),
            )
            for i in best
        ),
        removed=tuple(
            ReadRemoval(n=r.n, text=r.text, constraint=r.constraint) for r in reading.removed
        ),
    )
