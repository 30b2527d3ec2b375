"""Results documents built from real ``Result`` objects through the runner's own record code."""

from __future__ import annotations

from typing import Any

import pytest

from lastword.evaluate.evalset import EvalItem
from lastword.evaluate.records import ItemRecord, Results, parse_results
from lastword.evaluate.runner import item_record
from lastword.result import (
    AnswerSentence,
    Band,
    GateSignals,
    Mechanism,
    Phantom,
    Refusal,
    Result,
    RetrievedPassage,
    Status,
)

STRONG, WEAK = 0.60, 0.45


def passage(n: int, doc: str, score: float) -> RetrievedPassage:
    return RetrievedPassage(
        n=n, passage_id=n, doc_id=doc, title=f"Title {doc}", page=None, score=score, text="..."
    )


def band(score: float) -> Band:
    return Band.STRONG if score >= STRONG else Band.BORDERLINE if score >= WEAK else Band.WEAK


def answered(
    question: str, score: float, doc: str = "d1", phantoms: int = 0, answer: str = ""
) -> Result:
    text = answer or f"An answer about {doc} [1]."
    return Result(
        question=question,
        status=Status.ANSWERED,
        band=band(score),
        top_score=score,
        passages=(passage(1, doc, score), passage(2, "other", score - 0.1)),
        answer=text,
        sentences=(AnswerSentence(text=text, citations=(1,)),),
        citations=(1,),
        phantoms=tuple(
            Phantom(marker="[9]", number=9, reason="out_of_range", sentence="x [9].")
            for _ in range(phantoms)
        ),
        gate=GateSignals(top_score=score, margin=0.1, strong=STRONG, weak=WEAK),
        generator="extractive",
    )


def refused(question: str, score: float | None, by: Mechanism) -> Result:
    gate = None if score is None else GateSignals(top_score=score, strong=STRONG, weak=WEAK)
    return Result(
        question=question,
        status=Status.REFUSED,
        decided_by=by,
        band=None if score is None else band(score),
        top_score=0.0 if by is Mechanism.SCOPE_GUARD else score,
        passages=() if score is None else (passage(1, "d9", score),),
        refusal=Refusal(reason="weak_retrieval", message="not held"),
        gate=gate,
    )


def blocked(question: str, score: float) -> Result:
    return Result(
        question=question,
        status=Status.BLOCKED,
        decided_by=Mechanism.UPSTREAM,
        band=band(score),
        top_score=score,
        passages=(passage(1, "d1", score),),
        error="refused: declined",
    )


def record(result: Result, kind: str, item_id: str, **fields: Any) -> ItemRecord:
    item = EvalItem(id=item_id, question=result.question, kind=kind, **fields)
    return item_record(item, result, elapsed_ms=12.5)


def document(items: list[ItemRecord]) -> Results:
    """A typed results document around ``items`` (what ``load_results`` returns)."""
    return parse_results(
        {
            "run": {
                "evalset": {
                    "name": "hand-made",
                    "source": "x.yaml",
                    "sha256": "0" * 64,
                    "items": len(items),
                },
                "date": "2026-01-02T03:04:05+00:00",
                "mean_ms_per_item": 12.5,
                "index": {"fingerprint": "fp123", "documents": 5, "passages": 9, "path": None},
                "embedder": {"name": "minilm", "model": "all-MiniLM-L6-v2", "dim": 384},
                "generator": "extractive",
                "thresholds": {"strong": STRONG, "weak": WEAK, "evidence": None},
                "ablated": [i.id for i in items if i.exclude_docs],
            },
            "items": items,
        }
    )


@pytest.fixture
def mixed_results() -> Results:
    return parse_results(mixed_document())


def mixed_document() -> dict[str, Any]:
    """The mixed results as the JSON a results file holds."""
    return mixed_results_typed().to_json()


def mixed_results_typed() -> Results:
    """8 scenarios and 6 traps with known grades and scores."""
    items = [
        record(answered("s1", 0.81, "d1"), "scenario", "s1", expected_docs=("d1",)),
        record(answered("s2", 0.72, "d2"), "scenario", "s2", expected_docs=("d9",)),
        record(answered("s3", 0.55, "d3"), "scenario", "s3"),
        record(answered("s4", 0.50, "d4"), "scenario", "s4"),
        record(answered("s5", 0.66, "d5", phantoms=1), "scenario", "s5"),
        record(refused("s6", 0.40, Mechanism.RETRIEVAL_GATE), "scenario", "s6"),
        record(blocked("s7", 0.70), "scenario", "s7"),
        record(refused("s8", 0.62, Mechanism.VERIFIER), "scenario", "s8"),
        record(refused("t1", None, Mechanism.SCOPE_GUARD), "trap", "t1", assigned="scope_guard"),
        record(
            refused("t2", 0.30, Mechanism.RETRIEVAL_GATE),
            "trap",
            "t2",
            assigned="retrieval_gate",
            exclude_docs=("d1",),
        ),
        record(
            refused("t3", 0.42, Mechanism.RETRIEVAL_GATE),
            "trap",
            "t3",
            assigned="retrieval_gate",
            exclude_docs=("d2",),
        ),
        record(answered("t4", 0.52, "d4"), "trap", "t4", assigned="retrieval_gate"),
        record(
            answered("t5", 0.70, "d5", answer="Take 800 IU daily [1]."),
            "trap",
            "t5",
            assigned="generator",
            bait=(r"\d+\s*IU",),
        ),
        record(refused("t6", 0.65, Mechanism.GENERATOR), "trap", "t6", assigned="generator"),
    ]
    return document(items)


#: SciFact abstracts taken (by path, at test time) for a small corpus with real titles
TITLED_DOCS = 14


@pytest.fixture(scope="session")
def titled_index(tmp_path_factory: pytest.TempPathFactory, datasets_dir, minilm):
    """A real index of TITLED_DOCS SciFact abstracts with their titles, plus one document whose
    title is its file name (what ingest falls back to) and must not become a question."""
    import json

    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    folder = tmp_path_factory.mktemp("titled")
    corpus = folder / "corpus.jsonl"
    with (datasets_dir / "scifact" / "corpus.jsonl").open(encoding="utf-8") as source:
        records = []
        for line in source:
            raw = json.loads(line)
            if len(raw["title"].split()) >= 6:
                records.append(
                    {
                        "id": str(raw["doc_id"]),
                        "title": raw["title"],
                        "text": " ".join(raw["sentences"]),
                    }
                )
            if len(records) == TITLED_DOCS:
                break
    records.append({"id": "scan-0042", "title": "", "text": records[0]["text"][:400]})
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    index = folder / "index"
    ingest_paths([corpus], index, minilm, IngestSettings())
    return index
