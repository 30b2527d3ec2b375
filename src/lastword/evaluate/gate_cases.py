"""Questions the gate must admit or refuse, with the passages retrieval gave each.

Four corpora, each ingested as a user ingests it and asked through ``Pipeline.inspect``:
PubMedQA and SciFact (each question with its own abstract present, and again with it removed:
corpus ablation), COVID-QA (the same with the question's paper removed), and the papers set
(its labelled answerable and unanswerable questions, the folder ingested with its README). The
reader's answerability is read from the cached passages, so thresholds are fitted and judged
leave-one-corpus-out without retrieving again (``reader_gate.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lastword.evaluate.reader_data import Seen, seen_of


@dataclass
class GateCase:
    corpus: str
    part: str  # "fit" or "report"
    qid: str
    question: str
    answerable: bool
    passages: list[Seen] = field(default_factory=list)


def ask_all(
    inspect: Callable[..., object],
    questions: Iterable[tuple[str, str, bool, tuple[str, ...]]],
    corpus: str,
    part: str,
) -> list[GateCase]:
    """``questions``: (id, question, answerable, documents to exclude)."""
    out = []
    for qid, question, answerable, exclude in questions:
        result = inspect(question, exclude_doc_ids=exclude)
        seen = [Seen(p.doc_id, p.kind, p.score, p.text, p.title) for p in result.passages]
        out.append(GateCase(corpus, part, qid, question, answerable, seen))
    return out


def save(cases: list[GateCase], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for c in cases:
            handle.write(json.dumps(asdict(c), ensure_ascii=False) + "\n")


def load(path: Path) -> list[GateCase]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        raw["passages"] = [seen_of(p) for p in raw["passages"]]
        out.append(GateCase(**raw))
    return out


def _retrieval_pipeline(index: Path):
    """Retrieval as the product does it; the gate's own mode does not change what is retrieved."""
    from lastword.pipeline import Pipeline
    from lastword.settings import Settings

    settings = Settings()
    settings.gate.decide = "retrieval"
    return Pipeline.open(settings, index)


def _ingested(sources: list[Path], index: Path) -> Path:
    if not (index / "index.sqlite").is_file():
        from lastword.embed.minilm import MiniLMEmbedder
        from lastword.ingest import ingest_paths
        from lastword.settings import Settings

        ingest_paths(sources, index, MiniLMEmbedder(), Settings().ingest)
    return index


def evalset_cases(
    corpus: str, data: Path, work: Path, parts: Sequence[tuple[str, str, int]], seed: int = 0
) -> list[GateCase]:
    """PubMedQA or SciFact: per (split, part, how many questions), each question with its
    abstract(s) present (answerable) and removed (unanswerable), ``how many`` drawn at random."""
    import random

    from lastword.evaluate.datasets.pubmedqa import build_pubmedqa
    from lastword.evaluate.datasets.scifact import build_scifact
    from lastword.evaluate.evalset import load_evalset

    build = build_pubmedqa if corpus == "pubmedqa" else build_scifact
    cases: list[GateCase] = []
    for split, part, count in parts:
        built = build(data / corpus, split, True, work / f"{corpus}-{split}")
        index = _ingested([built.corpus], work / f"index-{corpus}")
        items = list(load_evalset(built.evalset).items)
        scenarios = [i for i in items if i.kind.value == "scenario"]
        random.Random(seed).shuffle(scenarios)
        chosen = {i.id for i in scenarios[:count]}
        asked = [
            (i.id, i.question, i.kind.value == "scenario", tuple(i.exclude_docs))
            for i in items
            if i.id.removesuffix("-ablated") in chosen
        ]
        with _retrieval_pipeline(index) as pipeline:
            cases += ask_all(pipeline.inspect, asked, corpus, part)
    return cases


def covidqa_cases(examples_by_part: Mapping[str, list]) -> list[GateCase]:
    """COVID-QA from its gathered examples (``reader_data``): present and ablated."""
    cases = []
    for part, examples in examples_by_part.items():
        for e in examples:
            cases.append(GateCase("covidqa", part, e.qid, e.question, True, e.passages))
            cases.append(
                GateCase("covidqa", part, f"{e.qid}-ablated", e.question, False, e.ablated)
            )
    return cases


def papers_cases(data: Path, work: Path) -> list[GateCase]:
    """The papers set ingested as a user ingests the folder (its README and notes included);
    odd-numbered questions are the fit part, even-numbered the report part."""
    folder = data / "papers"
    index = _ingested([folder], work / "index-papers")
    questions = [
        json.loads(line)
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    cases = []
    with _retrieval_pipeline(index) as pipeline:
        for part, parity in (("fit", 1), ("report", 0)):
            chosen = [q for q in questions if int(q["id"][1:]) % 2 == parity]
            asked = [(q["id"], q["question"], q["kind"] == "answerable", ()) for q in chosen]
            cases += ask_all(pipeline.inspect, asked, "papers", part)
    return cases
