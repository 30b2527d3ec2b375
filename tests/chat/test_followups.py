"""Follow-ups in the chat assistant: a thread's corpus questions are made standalone; the web
path sends only this message's words. The Brave stand-in counts what left the machine."""

from __future__ import annotations

import pytest

from lastword.chat.assistant import Assistant
from lastword.chat.reply import Message
from lastword.pipeline import Pipeline

MEMBER, CHAT, THREAD = "member-1", "chat-1", "thread-1"


@pytest.fixture
def assistant(make_settings, demo_index):
    settings = make_settings()
    with Pipeline.open(settings, demo_index) as pipeline:
        yield Assistant(settings, pipeline)


def say(assistant, text, thread=THREAD):
    return assistant.handle(Message(MEMBER, CHAT, text, thread=thread))


def test_a_follow_up_in_a_thread_is_asked_standalone(assistant, brave):
    first = say(assistant, "How much caffeine did the night-shift nurses get?")
    assert first.outcome == "answered" and "200 mg" in first.text
    second = say(assistant, "And how much less did they sleep?")
    assert second.result.asked_as is not None and "caffeine" in second.result.asked_as
    assert second.outcome == "answered" and "41 minutes" in second.text
    assert second.render().startswith(f"(Asked as: {second.result.asked_as})")
    assert second.record()["asked_as"] == second.result.asked_as
    assert brave.searches == []  # nothing left the machine


def test_the_same_words_outside_the_thread_are_asked_as_written(assistant, brave):
    say(assistant, "How much caffeine did the night-shift nurses get?")
    alone = say(assistant, "And how much less did they sleep?", thread="another")
    assert alone.result.asked_as is None
    unthreaded = say(assistant, "And how much less did they sleep?", thread=None)
    assert unthreaded.result.asked_as is None


def test_a_new_subject_mid_thread_carries_nothing(assistant, brave):
    say(assistant, "How much caffeine did the night-shift nurses get?")
    switched = say(assistant, "How much did vitamin D change lumbar spine bone density?")
    assert switched.result.asked_as is None
    assert "1.8%" in switched.text


def test_a_web_follow_up_sends_only_this_messages_words(assistant, brave):
    say(assistant, "How much caffeine did the night-shift nurses get?")
    say(assistant, "And how much less did they sleep?")
    reply = say(assistant, "Lastword look up its half-life in healthy adults")
    assert len(brave.searches) == 1  # one request, counted by the stand-in
    sent = brave.searches[0].query["q"]
    assert sent == ["its half-life in healthy adults"]
    assert reply.outbound_query == "its half-life in healthy adults"
    for earlier in ("caffeine", "nurses", "sleep", "night"):
        assert earlier not in sent[0]
    # the corpus path after it still carries the thread, and still sends nothing
    after = say(assistant, "What about the decaffeinated drink?")
    assert len(brave.searches) == 1
    assert after.result.asked_as is not None


def test_follow_ups_off_asks_every_message_as_written(make_settings, demo_index, brave):
    settings = make_settings().model_copy(deep=True)
    settings.conversation.followups = False
    with Pipeline.open(settings, demo_index) as pipeline:
        bot = Assistant(settings, pipeline)
        say(bot, "How much caffeine did the night-shift nurses get?")
        assert say(bot, "And how much less did they sleep?").result.asked_as is None


def test_a_terminal_session_is_one_conversation(make_settings, demo_index, brave):
    import json

    from typer.testing import CliRunner

    from lastword.cli.app import state
    from tests.chat.test_cli import chat_app

    state._settings = make_settings()
    try:
        done = CliRunner().invoke(
            chat_app(),
            ["chat", "--member", "m1", "--chat", "c1", "--index", str(demo_index), "--json"],
            input="How much caffeine did the night-shift nurses get?\n"
            "And how much less did they sleep?\n",
        )
    finally:
        state._settings = None
    assert done.exit_code == 0, done.output
    first, second = (json.loads(line) for line in done.stdout.splitlines() if line.strip())
    assert first["asked_as"] is None and "200 mg" in first["text"]
    assert "caffeine" in second["asked_as"] and "41 minutes" in second["text"]
