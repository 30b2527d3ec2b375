"""COVID-QA: 98 full research papers with 1,380 expert questions and their answer spans.

SQuAD format (``COVID-QA.json``): each article holds one paragraph whose ``context`` is the
whole paper and whose ``qas`` are the questions, each with one answer (``text``,
``answer_start``, a character offset into the context). The paper is not named in the file;
its position identifies it. Split by paper, never by question: position 2 mod 3 is TEST (32
papers), the rest TRAIN (66). The reader's own choices are made on DEV, a part of TRAIN
(position 1 mod 6), so TEST is read once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lastword.errors import InputError

Split = Literal["train", "dev", "fit", "test", "all"]
FILE = "COVID-QA.json"


@dataclass(frozen=True)
class CovidQuestion:
    qid: str
    question: str
    answer: str
    #: character offsets of the answer in the paper's context
    start: int
    end: int
    doc_id: str


@dataclass(frozen=True)
class CovidPaper:
    position: int
    doc_id: str
    title: str
    context: str
    questions: tuple[CovidQuestion, ...]


def split_of(position: int) -> Literal["test", "dev", "fit"]:
    """TEST: position 2 mod 3. Of TRAIN, DEV is position 1 mod 6 (11 papers), FIT the rest."""
    if position % 3 == 2:
        return "test"
    return "dev" if position % 6 == 1 else "fit"


def in_split(position: int, split: Split) -> bool:
    part = split_of(position)
    if split == "all":
        return True
    if split == "train":
        return part != "test"
    return part == split


def load_papers(path: Path, split: Split = "all") -> list[CovidPaper]:
    """The papers of ``split`` (``path``: the data set's folder or its JSON file)."""
    file = path / FILE if path.is_dir() else path
    if not file.is_file():
        raise InputError(f"COVID-QA not found at {file}")
    try:
        articles = json.loads(file.read_text(encoding="utf-8"))["data"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{file}: not a SQuAD-format file ({exc})") from None
    papers = []
    for position, article in enumerate(articles):
        if not in_split(position, split):
            continue
        paragraph = article["paragraphs"][0]
        context = paragraph["context"]
        doc_id = f"covidqa-{position:03d}"
        questions = []
        for qa in paragraph["qas"]:
            answer = qa["answers"][0]
            start = int(answer["answer_start"])
            text = answer["text"]
            questions.append(
                CovidQuestion(
                    qid=str(qa["id"]),
                    question=qa["question"].strip(),
                    answer=text,
                    start=start,
                    end=start + len(text),
                    doc_id=doc_id,
                )
            )
        title = context.strip().split("\n", 1)[0].strip()[:300] or doc_id
        papers.append(CovidPaper(position, doc_id, title, context, tuple(questions)))
    return papers


def write_jsonl(papers: list[CovidPaper], path: Path) -> Path:
    """The papers as ``lastword ingest`` reads JSON Lines: one document a line."""
    with path.open("w", encoding="utf-8") as handle:
        for paper in papers:
            record = {"id": paper.doc_id, "title": paper.title, "text": paper.context}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path
