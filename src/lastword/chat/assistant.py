"""The chat assistant: corpus answers by default, the web only when a member asks.

The order of the web path lives in ``Assistant._search`` and nowhere else::

    message -> pre-search gate -> trigger -> query hygiene -> key -> rate limits -> provider
            -> relevance floor (local embedder) -> budgets -> generate -> verify
            -> source line minted here

Every step that refuses does so before anything later runs: a refusal sends nothing and cites
nothing. The corpus path is ``Pipeline.ask`` unchanged.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

from lastword.chat.hygiene import build_query, corpus_question
from lastword.chat.persona import Decline, Failure, Persona
from lastword.chat.reply import Message, Reply
from lastword.chat.safety import screen
from lastword.chat.sourceline import corpus_source_line, source_line, states_number
from lastword.chat.trigger import (
    TriggerMatch,
    lookup_request,
    names_specific_thing,
    points_at_corpus,
    web_trigger,
)
from lastword.conversation import Conversation, Turn
from lastword.conversation import ask as ask_in_conversation
from lastword.errors import ConfigError, InputError, ProviderError
from lastword.pipeline import Pipeline
from lastword.refusals import VERIFIER_REASONS
from lastword.result import Mechanism, Refusal, Result, RetrievedPassage, Status
from lastword.scope import chat_scope
from lastword.settings import Settings
from lastword.statedir import state_dir
from lastword.websearch.budget import Budget
from lastword.websearch.keys import KeyStore
from lastword.websearch.protocol import SearchProvider, linkable
from lastword.websearch.ratelimit import SEARCH_LOG_FILE, Limits, SearchLog
from lastword.websearch.registry import KeyNotSet, make_search_provider
from lastword.websearch.relevance import EmbedderDown, RelevanceFloor

log = logging.getLogger("lastword.chat")

#: corpus refusal reasons the persona words as "our papers don't cover that"
_NO_EVIDENCE_REASONS = {"weak_retrieval", "empty_index", "generator_declined"}


class Assistant:
    def __init__(
        self,
        settings: Settings,
        pipeline: Pipeline,
        search_log: SearchLog | None = None,
        provider: SearchProvider | None = None,
        keys: KeyStore | None = None,
    ) -> None:
        self.settings = settings
        self.pipeline = pipeline
        self.persona = Persona.from_settings(settings.chat)
        web = settings.websearch
        self.search_log = search_log or SearchLog(
            state_dir(settings) / SEARCH_LOG_FILE,
            Limits(web.member_searches_per_window, web.chat_searches_per_window, web.window_s),
        )
        self.keys = keys or KeyStore.for_settings(settings)
        self._provider = provider
        self.budget = Budget(web.results_per_search, web.chars_per_result, web.chars_total)
        #: the last turns of each thread, in memory (a restart starts every thread afresh)
        self._threads: OrderedDict[tuple[str, str], Conversation] = OrderedDict()

    def conversation(self, message: Message) -> Conversation | None:
        """The thread ``message`` continues, or None when it stands alone."""
        if message.thread is None:
            return None
        key = (message.chat_id, message.thread)
        found = self._threads.get(key)
        if found is None:
            found = self._threads[key] = Conversation(self.settings.conversation.max_turns)
            while len(self._threads) > self.settings.conversation.max_threads:
                self._threads.popitem(last=False)
        self._threads.move_to_end(key)
        return found

    # ------------------------------------------------------------------ entry point
    def handle(self, message: Message) -> Reply | None:
        """The reply to ``message``, or None when the assistant was not addressed."""
        if not message.addressed or not message.text.strip():
            return None
        refused = screen(message.text)
        if refused is not None:
            # Before any request, any retrieval and any model: nothing leaves, nothing is cited.
            log.info("pre-search gate refused a message (category %s)", refused.category)
            return self._decline(
                message.text,
                Failure.GATE_REFUSED,
                f"gate_{refused.category}",
                Status.REFUSED,
                Mechanism.PRE_SEARCH_GATE,
            )
        chat = self.settings.chat
        # A message pointing at the lab's own material is a corpus question, trigger or not.
        trigger = web_trigger(
            message.text, chat.trigger_phrases, chat.corpus_phrases, self._names(message)
        )
        if trigger is not None:
            return self._search(message, trigger)
        return self._corpus(message)

    def _names(self, message: Message) -> tuple[str, ...]:
        return (self.persona.name, *message.names)

    def _gate_refused(self, message: Message, text: str) -> Reply | None:
        """The gate's refusal of ``text`` (a built query), worded as for the message."""
        refused = screen(text)
        if refused is None:
            return None
        log.info("pre-search gate refused a built query (category %s)", refused.category)
        return self._decline(
            message.text,
            Failure.GATE_REFUSED,
            f"gate_{refused.category}",
            Status.REFUSED,
            Mechanism.PRE_SEARCH_GATE,
        )

    # ------------------------------------------------------------------ corpus path
    def _corpus(self, message: Message) -> Reply:
        chat = self.settings.chat
        question = corpus_question(
            message.text, chat.trigger_phrases, chat.corpus_phrases, self._names(message)
        )
        if (refused := self._gate_refused(message, question)) is not None:
            return refused
        thread = self.conversation(message)
        # the room asks as reader room:ID, within its bound collections (docs/library.md)
        library = self.settings.library
        scope, question = chat_scope(
            message.chat_id,
            question or message.text,
            library.room_collections,
            library.open_documents,
        )
        try:
            # A follow-up is made standalone from the thread's earlier questions; this path
            # stays on the machine (the web path never reads the thread).
            result, turn = ask_in_conversation(
                self.pipeline,
                question,
                thread.history() if thread else (),
                scope=scope,
                enabled=self.settings.conversation.followups,
            )
        except InputError as exc:
            return self._bad_input(message.text, exc)
        if thread is not None:
            thread.add(turn)
        if (
            self.settings.chat.widen_on_weak_gate
            and result.decided_by is Mechanism.RETRIEVAL_GATE
            and names_specific_thing(question)
            and points_at_corpus(message.text, self.settings.chat.corpus_phrases) is None
        ):
            log.info("widening: weak corpus gate on a named thing, searching instead")
            return self._search(message, None)
        return self._from_result(result, web=False)

    # ------------------------------------------------------------------ web path
    def _search(self, message: Message, trigger: TriggerMatch | None) -> Reply:
        web = self.settings.websearch
        # Only this message's words, minus the trigger: never the thread (no earlier turn).
        built = build_query(
            message.text,
            trigger,
            self._names(message),
            max_chars=web.max_query_chars,
            max_words=web.max_query_words,
        )
        query = built.text
        # The gate screens exactly what would be sent, in every reading, before anything else.
        if (refused := self._gate_refused(message, query)) is not None:
            return refused
        if built.joined is not None:
            log.info("a name or mention sat inside the query; refused, nothing sent")
            return self._decline(message.text, Decline.JOINED_QUERY, "joined_query")
        thread = self.conversation(message)
        if thread is not None and query:
            thread.add(Turn(query, query))
        if not query:
            return self._decline(message.text, Decline.EMPTY_QUERY, "empty_query")
        try:
            provider = self._provider or make_search_provider(web, self.keys)
        except KeyNotSet as exc:
            log.warning("web search asked for but %s", exc)
            return self._decline(query, Decline.NO_KEY, "no_search_key")
        self._provider = provider
        admission = self.search_log.admit(message.member_id, message.chat_id, provider.name, query)
        if not admission.admitted:
            log.info("search refused before sending: %s limit reached", admission.limited_by)
            return self._decline(
                query,
                Decline.RATE_LIMITED,
                f"{admission.limited_by}_limit",
                decided_by=Mechanism.RATE_LIMIT,
            )
        assert admission.search_id is not None

        timings: dict[str, float] = {}
        started = time.perf_counter()
        try:
            results = provider.search(query, web.results_per_search)
        except ProviderError as exc:
            self.search_log.finish(admission.search_id, exc.kind)
            log.warning("search failed: %s", exc)
            return self._decline(
                query,
                Failure.PROVIDER_UNAVAILABLE,
                f"search_{exc.kind}",
                Status.FAILED,
                Mechanism.UPSTREAM,
                error=f"{exc.kind}: {exc}",
                sent=query,
            )
        timings["search"] = (time.perf_counter() - started) * 1000
        self.search_log.finish(admission.search_id, "ok", len(results))
        log.info("search sent via %s: %d results", provider.name, len(results))
        usable = tuple(r for r in results if linkable(r.url))
        if len(usable) < len(results):
            # a crafted URL (https://[caffeine]/x) cannot be linked: drop it, use the rest
            log.warning("dropped %d result(s) whose URL is not a link", len(results) - len(usable))
            results = usable
        if not results:
            return self._decline(
                query, Failure.ZERO_RESULTS, "web_zero_results", sent=query, timings=timings
            )

        started = time.perf_counter()
        floor = RelevanceFloor(self.pipeline.embedder, self._floor())
        try:
            scored = floor.score(query, results)
        except EmbedderDown as exc:
            log.error("relevance floor could not score results: %s", exc)
            return self._decline(
                query,
                Failure.EMBEDDER_DOWN,
                "embedder_down",
                Status.FAILED,
                Mechanism.RELEVANCE_FLOOR,
                error=f"embedder_down: {exc}",
                sent=query,
            )
        timings["floor"] = (time.perf_counter() - started) * 1000
        kept = self.budget.apply(floor.keep(scored))
        if not kept:
            top = max(s.score for s in scored)
            log.info("every result scored below the floor %.2f (top %.3f)", floor.floor, top)
            return self._decline(
                query,
                Failure.BELOW_FLOOR,
                "web_below_floor",
                decided_by=Mechanism.RELEVANCE_FLOOR,
                sent=query,
                timings=timings,
                top_score=top,
            )
        passages = tuple(
            RetrievedPassage(
                n=i,
                passage_id=0,
                doc_id=item.result.url,
                title=item.result.title,
                page=None,
                score=item.score,
                text=item.result.snippet,
                metadata={"url": item.result.url, "source": "web"},
            )
            for i, item in enumerate(kept, start=1)
        )
        result = self.pipeline.answer_from(query, passages, source_kind="web")
        result = result.model_copy(update={"timings_ms": {**timings, **result.timings_ms}})
        return self._from_result(result, web=True, sent=query)

    def _floor(self) -> float:
        name = self.pipeline.index_info.embedder.name
        try:
            return self.settings.websearch.relevance_floors[name]
        except KeyError:
            raise ConfigError(
                f"no web relevance floor for embedder '{name}': add it to "
                "[websearch] relevance_floors (bench/websearch_floor.py measures one)"
            ) from None

    # ------------------------------------------------------------------ replies
    def _from_result(self, result: Result, web: bool, sent: str | None = None) -> Reply:
        asked = lookup_request(result.draft)
        if asked is not None:
            # Nobody triggered this lookup: it is refused, logged, and nothing is sent.
            log.warning("the generator asked for an untriggered lookup; refused")
        if result.status is Status.ANSWERED and result.answer:
            line = source_line(result, result.declared) if web else corpus_source_line(result)
            warning = (
                self.settings.chat.number_warning if web and states_number(result.answer) else None
            )
            return Reply(
                result.answer, line, result, "answered", sent, warning, refused_lookup=asked
            )
        if result.status in (Status.FAILED, Status.BLOCKED):
            kind: Failure | Decline = Failure.MODEL_FAILED
        elif result.refusal is not None and result.refusal.reason in VERIFIER_REASONS:
            kind = Decline.UNVERIFIED
        elif result.refusal is not None and result.refusal.reason in _NO_EVIDENCE_REASONS:
            # "our papers don't cover that" is wrong for web results the model declined
            kind = Decline.UNVERIFIED if web else Decline.NO_EVIDENCE
        else:
            message = (
                result.refusal.message if result.refusal else self.persona.say(Decline.NO_EVIDENCE)
            )
            return Reply(message, None, result, "refused", sent, refused_lookup=asked)
        return Reply(self.persona.say(kind), None, result, kind.value, sent, refused_lookup=asked)

    def _decline(
        self,
        question: str,
        kind: Failure | Decline,
        reason: str,
        status: Status = Status.REFUSED,
        decided_by: Mechanism | None = None,
        *,
        error: str | None = None,
        sent: str | None = None,
        timings: dict[str, float] | None = None,
        top_score: float | None = None,
    ) -> Reply:
        line = self.persona.say(kind)
        result = Result(
            question=question,
            status=status,
            decided_by=decided_by,
            refusal=Refusal(reason=reason, message=line) if status is Status.REFUSED else None,
            error=error,
            top_score=top_score,
            embedder=self.pipeline.index_info.embedder.describe(),
            timings_ms=timings or {},
        )
        return Reply(line, None, result, kind.value, sent)

    def _bad_input(self, question: str, exc: InputError) -> Reply:
        result = Result(
            question=question[:200],
            status=Status.REFUSED,
            refusal=Refusal(reason="bad_input", message=str(exc)),
        )
        return Reply(str(exc), None, result, "bad_input")
