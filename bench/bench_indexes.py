"""Indexes the retrieval and gate benches share, built once and cached (MiniLM, real ingest).

Embedding SciFact's 5,183 abstracts with MiniLM takes minutes on a busy 2-core machine, so the
built indexes are kept under ``--cache`` (default: ``$LASTWORD_BENCH_CACHE`` or the temp dir).
A change of tokenisation only rebuilds the lexical table on open, never the vectors.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.datasets.pubmedqa import corpus_record as pubmedqa_record
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.evaluate.datasets.scifact import corpus_record as scifact_record
from lastword.ingest import ingest_paths
from lastword.result import RetrievedPassage
from lastword.retrieve import retrieve, tuning_from
from lastword.settings import GATE_FEATURES, GateModel, IngestSettings, Settings, Thresholds
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
CACHE = Path(os.environ.get("LASTWORD_BENCH_CACHE", Path(tempfile.gettempdir()) / "lw-bench-cache"))


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def probing(settings: Settings, mode: str | None = None) -> Settings:
    """The settings with a MiniLM gate model that weighs every signal, so every one is
    computed, and lets every question through (``mode``: the ranking, else the settings')."""
    if mode:
        retrieve_settings = settings.retrieve.model_copy(update={"mode": mode})
        settings = settings.model_copy(update={"retrieve": retrieve_settings})
    probe = GateModel(intercept=0.0, **{name: 1.0 for name in GATE_FEATURES})
    thresholds = {**settings.gate.thresholds, "minilm": Thresholds(strong=1, weak=0, model=probe)}
    gate = settings.gate.model_copy(update={"thresholds": thresholds, "auto": False})
    return settings.model_copy(update={"gate": gate})


def with_and_without(
    index: Path, settings: Settings, questions, embedder, depth: int
) -> Iterator[tuple[str, Sequence[str], bool, tuple[RetrievedPassage, ...], LocalStore]]:
    """Each (question, evidence documents) retrieved by the hybrid ranking with its evidence and
    again with it excluded (the corpus ablation): (question, evidence, answerable, passages,
    the open store), in that order."""
    tuning = tuning_from(settings.retrieve)
    kinds = settings.retrieve.evidence_kinds
    with LocalStore.open(index) as store:
        for question, evidence in questions:
            for answerable in (True, False):
                found = retrieve(
                    question,
                    embedder,
                    store,
                    depth,
                    () if answerable else tuple(evidence),
                    mode="hybrid",
                    kinds=kinds,
                    tuning=tuning,
                )
                yield question, evidence, answerable, tuple(found.passages), store


def pubmedqa_halves(data: Path = DATASETS / "pubmedqa") -> dict[str, list]:
    """PubMedQA's questions as (question, {its pmid}), split into the dev and test halves."""
    records, test_ids = load_pubmedqa(data)
    return {
        f"pubmedqa {half}": [
            (r["QUESTION"], {p}) for p, r in sorted(records.items()) if (p in test_ids) == test
        ]
        for half, test in (("dev", False), ("test", True))
    }


def build(name: str, records: Iterable[dict], cache: Path = CACHE) -> Path:
    """The index ``cache/name``, ingested from ``records`` unless it is already complete."""
    index = cache / name
    if (index / "complete").exists():
        with LocalStore.open_for_write(index, MiniLMEmbedder().info):  # lexical table upgrade
            pass
        return index
    cache.mkdir(parents=True, exist_ok=True)
    corpus = cache / f"{name}.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    ingest_paths([corpus], index, MiniLMEmbedder(), IngestSettings())
    (index / "complete").write_text("ok\n")
    return index


def scifact_index(data: Path = DATASETS / "scifact", cache: Path = CACHE) -> Path:
    return build("scifact", (scifact_record(r) for r in jsonl(data / "corpus.jsonl")), cache)


def scifact_subset_index(
    size: int, data: Path = DATASETS / "scifact", cache: Path = CACHE, seed: int = 0
) -> Path:
    """SciFact with fewer abstracts: every one a dev claim cites, then random others to ``size``.

    For a machine too busy to embed all 5,183 abstracts: dense and hybrid compared on the dev
    claims over a smaller haystack (not the BEIR protocol; the numbers run higher).
    """
    import random

    corpus = jsonl(data / "corpus.jsonl")
    cited = {str(d) for c in jsonl(data / "claims_dev.jsonl") for d in c["cited_doc_ids"]}
    others = [r for r in corpus if str(r["doc_id"]) not in cited]
    random.Random(seed).shuffle(others)
    chosen = [r for r in corpus if str(r["doc_id"]) in cited] + others[: max(0, size - len(cited))]
    return build(f"scifact-{size}", (scifact_record(r) for r in chosen), cache)


def pubmedqa_index(data: Path = DATASETS / "pubmedqa", cache: Path = CACHE) -> Path:
    records, _ = load_pubmedqa(data)
    return build("pubmedqa", (pubmedqa_record(p, r) for p, r in records.items()), cache)


if __name__ == "__main__":
    import sys

    subset = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    for index in (pubmedqa_index(), scifact_subset_index(subset) if subset else scifact_index()):
        with LocalStore.open(index) as store:
            print(index, store.info())
