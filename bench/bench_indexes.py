"""Indexes the retrieval and gate benches share, built once and cached (MiniLM, real ingest).

Embedding SciFact's 5,183 abstracts with MiniLM takes minutes on a busy 2-core machine, so the
built indexes are kept under ``--cache`` (default: ``$LASTWORD_BENCH_CACHE`` or the temp dir).
A change of tokenisation only rebuilds the lexical table on open, never the vectors.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.datasets.pubmedqa import corpus_record as pubmedqa_record
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.evaluate.datasets.scifact import corpus_record as scifact_record
from lastword.ingest import ingest_paths
from lastword.settings import IngestSettings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
CACHE = Path(os.environ.get("LASTWORD_BENCH_CACHE", Path(tempfile.gettempdir()) / "lw-bench-cache"))


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


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


def pubmedqa_index(data: Path = DATASETS / "pubmedqa", cache: Path = CACHE) -> Path:
    records, _ = load_pubmedqa(data)
    return build("pubmedqa", (pubmedqa_record(p, r) for p, r in records.items()), cache)


if __name__ == "__main__":
    for index in (pubmedqa_index(), scifact_index()):
        with LocalStore.open(index) as store:
            print(index, store.info())
