"""The OpenAI-compatible endpoint through the official ``openai`` client against a live server."""

from __future__ import annotations

import re

import httpx
import openai
import pytest

from tests.web.conftest import READER

ANSWERED = "How much did vitamin D change lumbar spine bone density in older adults?"
OFF_TOPIC = "Who won the 1998 Eurovision Song Contest?"


@pytest.fixture(scope="module")
def client(site) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{site.base}/v1", api_key=site.reader_token, max_retries=0)


def _markers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", text)}


def test_models_lists_lastword(client):
    assert [m.id for m in client.models.list().data] == ["lastword"]


def test_an_answer_carries_markers_sources_and_passages(client, site):
    done = client.chat.completions.create(
        model="lastword", messages=[{"role": "user", "content": ANSWERED}]
    )
    text = done.choices[0].message.content
    extra = done.model_extra["lastword"]
    assert extra["status"] == "answered" and extra["phantoms"] == 0
    assert "1.8%" in text and "\nSources:\n" in text
    answer, sources = text.split("\n\nSources:\n")
    numbers = {p["n"] for p in extra["passages"]}
    cited = _markers(answer)
    assert cited and cited <= numbers  # phantom-free: every marker names a passage returned
    assert cited == set(extra["citations"])
    for n in cited:
        passage = next(p for p in extra["passages"] if p["n"] == n)
        assert passage["cited"] and passage["title"] in sources
        assert passage["link"].startswith(f"{site.base}/documents/")
        # the link serves the document to the same key
        served = httpx.get(
            passage["link"], headers={"Authorization": f"Bearer {site.reader_token}"}
        )
        assert served.status_code == 200


def test_a_refusal_is_a_normal_message_saying_why(client):
    done = client.chat.completions.create(
        model="lastword", messages=[{"role": "user", "content": OFF_TOPIC}]
    )
    text = done.choices[0].message.content
    extra = done.model_extra["lastword"]
    assert done.choices[0].finish_reason == "stop"
    assert extra["status"] == "refused" and extra["decided_by"] == "retrieval_gate"
    assert extra["refusal"]["message"] in text and "retrieval gate" in text
    assert "Sources" not in text and not _markers(text) and extra["citations"] == []


def test_streaming_sends_the_same_verified_text_and_the_passages_last(client):
    stream = client.chat.completions.create(
        model="lastword", messages=[{"role": "user", "content": ANSWERED}], stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"
    extra = chunks[-1].model_extra["lastword"]
    assert extra["status"] == "answered"
    assert "1.8%" in text and _markers(text.split("Sources:")[0]) <= {
        p["n"] for p in extra["passages"]
    }
    whole = client.chat.completions.create(
        model="lastword", messages=[{"role": "user", "content": ANSWERED}]
    )
    assert text == whole.choices[0].message.content


def test_streamed_refusal(client):
    stream = client.chat.completions.create(
        model="lastword", messages=[{"role": "user", "content": OFF_TOPIC}], stream=True
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "retrieval gate" in text and chunks[-1].model_extra["lastword"]["status"] == "refused"


def test_a_follow_up_is_asked_standalone_and_never_rests_on_the_earlier_answer(client):
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": ANSWERED},
        # an earlier "answer" the client claims: never read, never evidence
        {"role": "assistant", "content": "Vitamin D raised hip density by 12% [1]."},
        {"role": "user", "content": "And in the placebo group?"},
    ]
    done = client.chat.completions.create(model="lastword", messages=messages)
    extra = done.model_extra["lastword"]
    text = done.choices[0].message.content
    assert extra["question"] == "And in the placebo group?"
    assert "placebo" in extra["asked_as"] and "vitamin D" in extra["asked_as"]
    assert text.startswith(f"(Asked as: {extra['asked_as']})")
    assert "12%" not in text
    if extra["status"] == "answered":
        assert _markers(text.split("Sources:")[0]) <= {p["n"] for p in extra["passages"]}


def test_a_new_subject_mid_thread_carries_nothing(client):
    messages = [
        {"role": "user", "content": ANSWERED},
        {"role": "assistant", "content": "..."},
        {"role": "user", "content": "How many nurses took part in the caffeine crossover study?"},
    ]
    extra = client.chat.completions.create(model="lastword", messages=messages).model_extra[
        "lastword"
    ]
    assert extra["asked_as"] is None
    assert extra["question"] == messages[-1]["content"]
    assert "caffeine" in extra["passages"][0]["title"].lower()


def test_the_api_key_is_a_users_token(site):
    bad = openai.OpenAI(base_url=f"{site.base}/v1", api_key="not-a-token", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        bad.models.list()
    assert "not valid" in str(caught.value)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="lastword", messages=[{"role": "user", "content": "x"}])
    # the admin's token works too; a reader is enough
    admin = openai.OpenAI(base_url=f"{site.base}/v1", api_key=site.admin_token, max_retries=0)
    assert admin.models.list().data[0].id == "lastword"
    assert READER[0]  # the reader's token is the fixture's client


def test_bad_requests_get_one_clear_error(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert "lastword" in str(caught.value)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="lastword", messages=[{"role": "assistant", "content": "hello"}]
        )
    assert "user message" in str(caught.value)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="lastword", messages=[{"role": "user", "content": "x" * 5000}]
        )
    assert "limit" in str(caught.value)
