"""The model rewrite (``[conversation] rewrite = "openai"``) against a local server of the
OpenAI wire format: used when every word of it was asked, else the rules decide."""

from __future__ import annotations

import pytest

from lastword.conversation import Turn
from lastword.conversation import ask as ask_in_conversation
from lastword.pipeline import Pipeline
from lastword.settings import Settings
from lastword.store.open import open_store
from tests.servers.openai_chat_api import OpenAIChatAPI, server_error
from tests.servers.scripted_model import constant

FIRST = "How much did vitamin D change lumbar spine bone density in older adults?"
GOOD = "How much did lumbar spine bone density change in the placebo group in older adults?"


@pytest.fixture(scope="module")
def api():
    with OpenAIChatAPI() as server:
        yield server


@pytest.fixture
def pipeline(api, demo_index, minilm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    api.reset()
    settings = Settings(
        conversation={"rewrite": "openai"},
        generate={"openai_url": api.base_url, "max_retries": 0},
    )
    with Pipeline(settings, open_store(settings, demo_index), minilm) as opened:
        yield opened


def history(pipeline) -> list[Turn]:
    _result, turn = ask_in_conversation(pipeline, FIRST)
    return [turn]


def test_the_models_rewrite_is_used_when_every_word_was_asked(api, pipeline):
    earlier = history(pipeline)
    api.model = constant(GOOD)
    result, _ = ask_in_conversation(pipeline, "And in the placebo group?", earlier)
    assert result.asked_as == GOOD and result.followup.method == "openai"
    call = api.calls[-1]
    assert FIRST in call.user and "And in the placebo group?" in call.user
    # the model saw questions only: no answer, no passage
    assert "1.8%" not in call.user and "<passage" not in call.user


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("Vitamin D raised spine density by 1.8% in the placebo group [1].", "words not asked"),
        ("What about bitcoin prices in the placebo group?", "words not asked"),
        ("Line one?\nLine two?", "not one line"),
    ],
)
def test_a_rewrite_with_anything_not_asked_falls_back_to_the_rules(api, pipeline, written, why):
    earlier = history(pipeline)
    api.model = constant(written)
    result, _ = ask_in_conversation(pipeline, "And in the placebo group?", earlier)
    assert result.followup.method.startswith("rules (model output rejected")
    assert why in result.followup.method
    assert "bitcoin" not in result.asked_as and "1.8%" not in result.asked_as
    assert "placebo" in result.asked_as and "vitamin D" in result.asked_as


def test_a_failing_model_falls_back_to_the_rules(api, pipeline):
    earlier = history(pipeline)
    api.queue(server_error())
    result, _ = ask_in_conversation(pipeline, "And in the placebo group?", earlier)
    assert result.followup.method == "rules (model failed)"
    assert "vitamin D" in result.asked_as


def test_no_model_call_without_history(api, pipeline):
    ask_in_conversation(pipeline, FIRST)
    assert api.calls == []
