"""What one server process holds: the settings, the one Pipeline and its model, accounts, jobs.

The embedder (the model) is loaded once and shared by every Pipeline this process builds; a
new Pipeline is built, not a second one run beside it, when the corpus or the settings change,
so requests in flight finish on the one they started with.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from pathlib import Path

from lastword.embed import Embedder, make_embedder
from lastword.errors import CorpusIndexError
from lastword.pipeline import Pipeline, resolve_embedder
from lastword.result import Result
from lastword.scope import Scope
from lastword.settings import Settings
from lastword.store.open import describe_location, open_store, store_exists
from lastword.store.protocol import Store
from lastword.web.accounts import Accounts
from lastword.web.config import WebConfig
from lastword.web.jobs import JobBoard

#: answers the Ask page remembers, per pipeline (a new corpus or new settings start afresh)
ANSWER_CACHE_SIZE = 256


class ServerState:
    def __init__(
        self,
        settings: Settings,
        index_dir: Path,
        config: WebConfig,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        self.index_dir = Path(index_dir)
        self.config = config
        self.accounts = Accounts(config.state_dir)
        self.jobs = JobBoard()
        self._embedder = embedder
        self._lock = threading.Lock()
        self._pipeline: Pipeline | None = None
        self._answers: OrderedDict[tuple, tuple[Result, float]] = OrderedDict()
        if self.has_store():
            self.reload()

    # ------------------------------------------------------------------ the pipeline
    @property
    def embedder(self) -> Embedder:
        """The index's embedder, loaded once; for an index not built yet, the configured one."""
        with self._lock:
            if self._embedder is None:
                if self.has_store():
                    with self.open_store() as store:
                        self._embedder = resolve_embedder(self.settings, store.info())
                else:
                    self._embedder = make_embedder(self.settings.embed)
            return self._embedder

    def reload(self, settings: Settings | None = None) -> None:
        """Build the Pipeline again (after an ingest, a removal or a settings change)."""
        embedder = self.embedder
        new_settings = settings or self.settings
        store = open_store(new_settings, self.index_dir)
        try:
            if store.info().embedder != embedder.info:
                raise CorpusIndexError(
                    f"the index at {store.location} is now built with "
                    f"{store.info().embedder.describe()}; restart the server"
                )
            pipeline = Pipeline(new_settings, store, embedder, self.config.generator)
        except BaseException:
            store.close()
            raise
        with self._lock:
            # The old pipeline is dropped, not closed: a request may still be reading it.
            self._pipeline = pipeline
            self.settings = new_settings
            self._answers.clear()

    def has_store(self) -> bool:
        """Whether the configured index exists yet ([store] backend: a directory or a database)."""
        return store_exists(self.settings, self.index_dir)

    def open_store(self, write: bool = False) -> Store:
        """The configured index, opened in this process (each server worker opens its own)."""
        embedder = self.embedder.info if write else None
        return open_store(self.settings, self.index_dir, write_as=embedder)

    def apply_settings(self, settings: Settings) -> None:
        if store_exists(settings, self.index_dir):
            self.reload(settings)
        else:
            self.settings = settings

    def ask(self, question: str, scope: Scope | None = None) -> tuple[Result, float | None]:
        """The Ask page's answer, and when it was first computed if this is a repeat served
        from the cache (None: computed now). The cache is per pipeline and per scope (the
        reader and the filters: one reader's answer is never served to another): a new corpus
        or new settings make every question fresh."""
        pipeline = self.pipeline()
        key = (id(pipeline), " ".join(question.split()).casefold(), scope)
        with self._lock:
            hit = self._answers.get(key)
            if hit is not None and self._pipeline is pipeline:
                self._answers.move_to_end(key)
                return hit[0], hit[1]
        result = pipeline.ask(question, scope=scope)
        with self._lock:
            if self._pipeline is pipeline and result.status.value != "failed":
                self._answers[key] = (result, time.time())
                while len(self._answers) > ANSWER_CACHE_SIZE:
                    self._answers.popitem(last=False)
        return result, None

    def document_sources(self) -> tuple[dict[str, str], dict[str, dict]]:
        """Doc id -> source file, and doc id -> metadata, for the documents of the index."""
        if not self.has_store():
            return {}, {}
        with self.open_store() as store:
            documents = list(store.documents())
        return {d.doc_id: d.source for d in documents}, {d.doc_id: d.metadata for d in documents}

    @property
    def has_index(self) -> bool:
        return self._pipeline is not None

    def pipeline(self) -> Pipeline:
        pipeline = self._pipeline
        if pipeline is None:
            raise CorpusIndexError(
                f"no index at {describe_location(self.settings, self.index_dir)} yet: an "
                "administrator can upload documents on the Corpus page (or run 'lastword ingest')"
            )
        return pipeline

    @property
    def embedder_name(self) -> str:
        pipeline = self._pipeline
        if pipeline is not None:
            return pipeline.index_info.embedder.name
        return self.settings.embed.embedder
