"""A label-free eval set from the index's own document titles, for calibrating on your corpus.

A lab rarely has hundreds of labelled questions. It does have titles: a paper's title is a
question-length statement of what the paper is about (PubMedQA's questions are titles). Each
usable title becomes a scenario expecting its own document, and the same title again as a trap
with that document excluded from retrieval: corpus ablation, as for the built-in data sets,
with the neighbours being this corpus's own papers. ``eval run`` then ``eval calibrate
--refit --write`` fits the gate to the corpus. Measured on SciFact (docs/calibration.md): the
false-accept rate chosen on titles held on the expert-written claims.
"""

from __future__ import annotations

import random
from pathlib import Path

from lastword.errors import InputError
from lastword.evaluate.datasets import scenario_and_ablation
from lastword.evaluate.evalset import EvalItem, write_evalset_jsonl
from lastword.store.protocol import DocumentRecord, Store

#: shorter titles ("Results", "Chapter 3") say too little to stand in for a question
MIN_TITLE_WORDS = 4
#: fewer usable titles than this cannot place a threshold
MIN_DOCUMENTS = 10
DEFAULT_LIMIT = 300
_FILE_SUFFIXES = (".pdf", ".txt", ".md", ".markdown", ".jsonl")


def usable_title(document: DocumentRecord) -> bool:
    """A real title, not a file name or id that ingest fell back to."""
    title = " ".join(document.title.split())
    lowered = title.lower()
    if len(title.split()) < MIN_TITLE_WORDS or not any(c.isalpha() for c in title):
        return False
    if lowered == document.doc_id.lower() or lowered.endswith(_FILE_SUFFIXES):
        return False
    return lowered != Path(document.source).stem.lower()


def title_items(documents: list[DocumentRecord]) -> list[EvalItem]:
    return [
        item
        for document in documents
        for item in scenario_and_ablation(
            f"title-{document.doc_id}",
            " ".join(document.title.split()),
            expected=(document.doc_id,),
            excluded=(document.doc_id,),
            notes=(
                "a document's title, asked with the document in the corpus",
                "the same title with its document excluded: only its neighbours remain",
            ),
        )
    ]


def build_title_set(
    store: Store, out: Path, limit: int = DEFAULT_LIMIT, seed: int = 0
) -> tuple[int, int]:
    """Write ``out`` (eval set JSONL) from up to ``limit`` titles sampled with ``seed``.

    Returns (documents used, documents in the index).
    """
    if limit < MIN_DOCUMENTS:
        raise InputError(f"--limit must be at least {MIN_DOCUMENTS}, got {limit}")
    documents = list(store.documents())
    usable = [d for d in documents if usable_title(d)]
    if len(usable) < MIN_DOCUMENTS:
        raise InputError(
            f"{len(usable)} of {len(documents)} documents have a usable title (at least "
            f"{MIN_TITLE_WORDS} words, not a file name); a title set needs {MIN_DOCUMENTS}. "
            "Write labelled questions instead (docs/evaluation.md)."
        )
    random.Random(seed).shuffle(usable)
    chosen = sorted(usable[:limit], key=lambda d: d.doc_id)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_evalset_jsonl(title_items(chosen), out)
    return len(chosen), len(documents)
