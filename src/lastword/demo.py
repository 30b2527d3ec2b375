"""The demo corpus shipped with lastword: five short, fictional study summaries.

They exist so that a fresh machine, with no keys and no services, can show the whole pipeline:
one grounded answer, one refusal by the scope guard, one by the retrieval gate.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from lastword.embed import make_embedder
from lastword.ingest import IngestReport, ProgressSink, ingest_paths
from lastword.settings import Settings

#: The demo's scope guard: topics a clinical-research corpus is not meant to answer.
DEMO_OUT_OF_SCOPE = [
    "cryptocurrency",
    "bitcoin",
    "stock market",
    "horoscope",
    "lottery",
    "sports betting",
]

DEMO_QUESTIONS: list[tuple[str, str]] = [
    ("answered", "How much did vitamin D change lumbar spine bone density in older adults?"),
    ("refused by the scope guard", "Which cryptocurrency should the lab invest its grant in?"),
    ("refused by the retrieval gate", "Who won the 1998 Eurovision Song Contest?"),
]


def demo_corpus_dir() -> Path:
    return Path(str(resources.files("lastword") / "data" / "demo"))


def demo_settings(settings: Settings) -> Settings:
    """The user's settings with the demo's scope guard and the local embedder."""
    scope = settings.scope.model_copy(
        update={"out_of_scope": [*settings.scope.out_of_scope, *DEMO_OUT_OF_SCOPE]}
    )
    embed = settings.embed.model_copy(update={"embedder": "minilm"})
    return settings.model_copy(update={"scope": scope, "embed": embed})


def build_demo_index(
    index_dir: Path, settings: Settings, progress: ProgressSink | None = None
) -> IngestReport:
    embedder = make_embedder(settings.embed, "minilm")
    return ingest_paths(
        [demo_corpus_dir()], index_dir, embedder, settings.ingest, progress=progress
    )
