"""Fitting the reader end to end on a tiny labelled set built here: rows, a few steps, the ONNX
export, and the runtime loading what was written (its provenance checked)."""

from __future__ import annotations

import json

import pytest

from lastword.evaluate.datasets.covidqa import split_of
from lastword.evaluate.reader_data import Aligner, Example, Seen


def test_an_answer_span_is_carried_into_a_passage_through_its_non_space_characters():
    context = "Title\n\nThe  virus   spreads by\ncontact.  It was first seen in 2019."
    passage = "The virus spreads by contact. It was first seen in 2019."
    start = context.index("spreads")
    end = context.index("contact.") + len("contact.")
    spans = Aligner(context).spans(passage, start, end)
    assert [passage[a:b] for a, b in spans] == ["spreads by contact."]
    assert Aligner(context).spans("Not in the paper at all.", start, end) == []


def test_covidqa_is_split_by_paper_position():
    assert [split_of(p) for p in range(7)] == ["fit", "dev", "test", "fit", "fit", "test", "fit"]


def _example(question: str, text: str, answer: str, other: str) -> Example:
    start = text.index(answer)
    gold = Seen("d1", "body", 0.6, text, spans=[(start, start + len(answer))])
    return Example("q", question, "d1", answer, [gold, Seen("d2", "body", 0.5, other)])


@pytest.mark.timeout(600)
def test_a_fitted_reader_exports_and_loads_with_its_provenance(tmp_path):
    pytest.importorskip("torch")
    from lastword.evaluate.reader_fit import FitConfig, export_onnx, fit, training_rows
    from lastword.read.model import ModelFileError, ReaderModel, sha256

    other = "Samples were stored at 4 °C. The assay was repeated three times."
    examples = [
        _example(
            "How long did birds shed the virus?",
            "Birds were challenged at day 35. They shed the virus for 3 days. Weights were equal.",
            "They shed the virus for 3 days.",
            other,
        ),
        _example(
            "How many patients were enrolled?",
            "The trial ran at three hospitals. In total 412 patients were enrolled. BP was read.",
            "In total 412 patients were enrolled.",
            other,
        ),
    ]
    config = FitConfig(epochs=1, batch=2, frozen=5)
    rows = training_rows(examples, config)
    assert rows and any(r.positives for r in rows) and any(not r.positives for r in rows)
    net = fit(rows, config, log=lambda _: None)
    path = export_onnx(net, tmp_path / "reader" / "reader.onnx")
    with pytest.raises(ModelFileError):
        ReaderModel(tmp_path / "reader")  # no provenance yet: never run
    (tmp_path / "reader" / "reader.json").write_text(json.dumps({"sha256": sha256(path)}))
    scores = ReaderModel(tmp_path / "reader").score(
        "How many patients?", [examples[1].passages[0].text]
    )
    assert len(scores.token_logits) == 1 and len(scores.token_logits[0]) > 5
