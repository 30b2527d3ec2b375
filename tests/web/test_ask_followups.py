"""The Ask page as a conversation: the earlier questions ride in the form, a follow-up is
shown "asked as" its standalone question, a new subject carries nothing."""

from __future__ import annotations

import html
import re

import httpx
import pytest

FIRST = "How much did vitamin D change lumbar spine bone density in older adults?"


@pytest.fixture(scope="module")
def reader(site):
    with httpx.Client(
        base_url=site.base, headers={"Authorization": f"Bearer {site.reader_token}"}
    ) as client:
        yield client


def hidden_after(page: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(r'name="after" value="([^"]*)"', page)]


def test_the_answered_question_rides_in_the_form(reader):
    page = reader.get("/ask", params={"q": FIRST}).text
    assert hidden_after(page) == [FIRST]
    assert "Asked as" not in page and "Start a new conversation" in page


def test_a_follow_up_is_shown_asked_as_its_standalone_question(reader):
    page = reader.get("/ask", params={"q": "And in the placebo group?", "after": FIRST}).text
    asked = re.search(r'data-asked-as="1">Asked as: <q>([^<]+)</q>', page)
    assert asked and "placebo" in asked.group(1) and "vitamin D" in html.unescape(asked.group(1))
    assert hidden_after(page) == [FIRST, "And in the placebo group?"]
    fragment = reader.get(
        "/ask/result", params={"q": "And in the placebo group?", "after": FIRST}
    ).text
    assert "Asked as:" in fragment


def test_a_new_subject_carries_nothing(reader):
    page = reader.get(
        "/ask",
        params={"q": "How many nurses took part in the caffeine crossover study?", "after": FIRST},
    ).text
    assert "Asked as" not in page


def test_the_form_keeps_at_most_max_turns(reader, site):
    most = site.app.state.lastword.settings.conversation.max_turns
    earlier = [f"Question number {i} about vitamin D?" for i in range(most + 3)]
    page = reader.get("/ask", params={"q": FIRST, "after": earlier}).text
    assert len(hidden_after(page)) == most and hidden_after(page)[-1] == FIRST
