"""Where the order of the steps lives: scope -> embed -> retrieve -> gate -> generate -> verify.

The CLI, the web app, the chat assistant and the evaluation all call ``Pipeline``; nothing else
re-implements any part of it. Every decision lands in the ``Result`` it returns.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from pathlib import Path

from lastword.embed import Embedder, TokenEmbedder, make_embedder
from lastword.errors import (
    ConfigError,
    IndexMismatchError,
    InputError,
    ProviderError,
    ProviderRefused,
)
from lastword.gate import DEPTH, band_for, gate_signals, scope_refusal
from lastword.gate.late_interaction import maxsim
from lastword.generate import GenerationRequest, Generator, make_generator
from lastword.generate.protocol import SourceKind
from lastword.refusals import refusal
from lastword.result import Band, Mechanism, Result, RetrievedPassage, Status
from lastword.retrieve import retrieve
from lastword.settings import Settings, Thresholds
from lastword.store.local import LocalStore
from lastword.store.protocol import IndexInfo, Store
from lastword.verify import verify_draft


def resolve_embedder(settings: Settings, index: IndexInfo, name: str | None = None) -> Embedder:
    """The embedder that built the index. An explicit different choice is an error, not a mix."""
    explicit = name or (
        settings.embed.embedder if "embedder" in settings.embed.model_fields_set else None
    )
    if explicit is not None and explicit != index.embedder.name:
        raise IndexMismatchError(
            f"the index was built with {index.embedder.describe()}, but the embedder "
            f"'{explicit}' was asked for; vectors of two models cannot be compared. "
            f"Use --embedder {index.embedder.name} or rebuild the index."
        )
    embedder = make_embedder(settings.embed, index.embedder.name)
    if embedder.info.model != index.embedder.model:
        raise IndexMismatchError(
            f"the index was built with {index.embedder.describe()}; the configured "
            f"{index.embedder.name} model is {embedder.info.model}. Rebuild the index or "
            "configure the same model."
        )
    return embedder


def check_question(question: str, limit: int) -> str:
    cleaned = question.strip()
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
        self.thresholds: Thresholds = settings.thresholds_for(self.index_info.embedder.name)
        self._token_embedder = self._token_embedder_for_gate()

    def _token_embedder_for_gate(self) -> TokenEmbedder | None:
        """The embedder, when the gate model weighs the token-level signal; else None."""
        model = self.thresholds.model
        if model is None or "maxsim" not in model.weighed():
            return None
        if not isinstance(self.embedder, TokenEmbedder):
            name = self.index_info.embedder.name
            raise ConfigError(
                f"gate.thresholds.{name}.model weighs 'maxsim', but the {name} embedder has no "
                "token vectors; set that weight to 0 (and recalibrate) or use a local embedder"
            )
        return self.embedder

    def _maxsim(self, question: str, passages: tuple[RetrievedPassage, ...]) -> float | None:
        if self._token_embedder is None or not passages:
            return None
        # The top document's passages among those the gate looks at: usually one to three.
        top_doc = passages[0].doc_id
        texts = [p.text for p in passages[:DEPTH] if p.doc_id == top_doc]
        vectors = self._token_embedder.embed_tokens([question, *texts])
        return maxsim(vectors[0], vectors[1:])

    @classmethod
    def open(
        cls,
        settings: Settings,
        index_dir: Path,
        generator: str | Generator | None = None,
        embedder: str | None = None,
    ) -> Pipeline:
        store = LocalStore.open(index_dir)
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
        self, question: str, exclude_doc_ids: Collection[str] = (), k: int | None = None
    ) -> Result:
        """Retrieval alone: embed, retrieve, band. No guard refuses and no model runs."""
        question = check_question(question, self.settings.retrieve.max_question_chars)
        k = k or self.settings.retrieve.k
        tokens_started = time.perf_counter()
        if self._token_embedder is not None:
            # The gate will read the question's token vectors; the pass that makes them also
            # makes its sentence vector (MiniLM remembers it), so retrieval reuses that pass.
            self._token_embedder.embed_tokens([question])
        tokens_ms = (time.perf_counter() - tokens_started) * 1000
        # The gate's signals always look DEPTH deep, whatever k the reader wants shown.
        found = retrieve(
            question,
            self.embedder,
            self.store,
            max(k, DEPTH),
            exclude_doc_ids,
            kinds=self.settings.retrieve.evidence_kinds,
        )
        signals_started = time.perf_counter()
        top_text = self.store.document_text(found.passages[0].doc_id) if found.passages else ""
        signals = gate_signals(
            question,
            found.passages,
            self.thresholds,
            self.store.lexicon(),
            top_text,
            maxsim=self._maxsim(question, found.passages),
        )
        gate_ms = (time.perf_counter() - signals_started) * 1000
        return Result(
            question=question,
            status=Status.RETRIEVED,
            band=band_for(signals.score, self.thresholds) if found.passages else Band.WEAK,
            top_score=signals.top_score,
            passages=found.passages[:k],
            gate=signals,
            embedder=self.index_info.embedder.describe(),
            timings_ms={
                "embed": tokens_ms + found.embed_ms,
                "retrieve": found.retrieve_ms,
                "gate": gate_ms,
            },
        )

    def ask(self, question: str, exclude_doc_ids: Collection[str] = ()) -> Result:
        started = time.perf_counter()
        question = check_question(question, self.settings.retrieve.max_question_chars)

        # 1. Scope guard: before anything else, no embedding, no model.
        scope_started = time.perf_counter()
        refused = scope_refusal(question, self.settings.scope)
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

        # 2-4. Embed, retrieve, gate.
        result = self.inspect(question, exclude_doc_ids)
        timings = {"scope": scope_ms, **result.timings_ms}
        if not result.passages or result.band is Band.WEAK:
            reason = "empty_index" if not self.index_info.passages else "weak_retrieval"
            timings["total"] = (time.perf_counter() - started) * 1000
            return result.model_copy(
                update={
                    "status": Status.REFUSED,
                    "decided_by": Mechanism.RETRIEVAL_GATE,
                    "refusal": refusal(reason),
                    "timings_ms": timings,
                }
            )

        # 5-6. Generate over the passages, then verify every sentence.
        answered = self._compose(result, "corpus", timings)
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

    def _compose(self, base: Result, source_kind: SourceKind, timings: dict[str, float]) -> Result:
        request = GenerationRequest(base.question, base.passages, source_kind)
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
        checked = verify_draft(
            draft.text, base.passages, self.embedder, self.settings.verify, references
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
                "refusal": refusal("generator_declined"),
                "sentences": (),
                "citations": (),
            }
        elif not checked.supported:
            update |= {
                "status": Status.REFUSED,
                "decided_by": Mechanism.VERIFIER,
                "refusal": refusal("unsupported_answer"),
                "sentences": (),
                "citations": (),
            }
        else:
            update |= {"status": Status.ANSWERED, "answer": checked.answer}
        return base.model_copy(update=update)
