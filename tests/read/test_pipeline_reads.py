"""With the reader on, the path reads before it decides: the gate decides on the reader's
answerability, records it, and the generator quotes the reader's best candidate, verbatim and
cited."""

from __future__ import annotations

from lastword.pipeline import Pipeline
from lastword.result import Status
from lastword.settings import Settings


def _reading() -> Settings:
    settings = Settings()
    settings.gate.decide = "reader"
    settings.generate.generator = "reader"
    return settings


def test_an_answer_quotes_the_reader_and_the_gate_records_its_decision(demo_index):
    with Pipeline.open(_reading(), demo_index) as pipeline:
        result = pipeline.ask("What was the median reaction time after caffeine?")
    assert result.status is Status.ANSWERED
    assert result.gate is not None and result.gate.signal == "reader"
    assert result.gate.reader == result.gate.score >= result.gate.weak
    assert result.reading is not None and result.reading.candidates
    best = result.reading.candidates[0]
    assert "287 milliseconds" in best.text and "287 milliseconds" in (result.answer or "")
    assert result.citations and not result.phantoms
    assert "read" in result.timings_ms


def test_an_unanswerable_question_is_refused_by_the_gate_before_any_generator(demo_index):
    with Pipeline.open(_reading(), demo_index) as pipeline:
        result = pipeline.ask("What dose of metformin slowed tumour growth in mice?")
    assert result.status is Status.REFUSED
    assert result.decided_by is not None and result.decided_by.value == "retrieval_gate"
    assert result.gate is not None and result.gate.score < result.gate.weak
    assert result.generator is None and result.draft is None


def test_the_default_gate_decides_on_retrieval_and_reads_nothing(demo_index):
    with Pipeline.open(Settings(), demo_index) as pipeline:
        result = pipeline.inspect("How many nurses took part in the caffeine study?")
    assert result.gate is not None and result.gate.signal != "reader"
    assert result.reading is None


def test_the_reader_ranks_the_answering_sentence_first_even_where_it_refuses(demo_index):
    with Pipeline.open(_reading(), demo_index) as pipeline:
        result = pipeline.inspect("How many nurses took part in the caffeine study?")
    assert result.reading is not None
    assert "48 nurses" in result.reading.candidates[0].text
