"""A thread of three messages against a real Synapse: answered inside the thread, the follow-up
asked standalone, and the web search for a follow-up sends only that message's words."""

from __future__ import annotations

import time

import pytest

from lastword.websearch.keys import KeyStore
from tests.chat.conftest import BRAVE_KEY
from tests.matrix.conftest import PASSWORDS
from tests.matrix.homeserver import Member
from tests.matrix.test_bot_e2e import REPLY_S, Bot, lastword

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def thread_world(tmp_path_factory, synapse, accounts, matrix_index, brave_counting):
    root = tmp_path_factory.mktemp("matrix-thread")
    state_dir = root / "state"
    KeyStore(state_dir).set("brave", BRAVE_KEY)
    config = root / "lastword.toml"
    config.write_text(
        f"""
[state]
dir = "{state_dir}"

[websearch]
brave_url = "{brave_counting.url}"
timeout_s = 10.0

[matrix]
allowed_inviters = ["{accounts.maria}"]
sync_timeout_s = 5.0
retry_initial_s = 0.5
retry_max_s = 2.0
""",
        encoding="utf-8",
    )
    done = lastword(
        "matrix", "login", "--homeserver", synapse.url, "--user", accounts.bot,
        config=config, stdin=PASSWORDS["lastword"] + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bot = Bot(config, matrix_index, root / "bot.log")
    bot.start()
    maria = Member(synapse.url, "maria", PASSWORDS["maria"])
    room = maria.create_room([accounts.bot])
    deadline = time.monotonic() + REPLY_S
    while accounts.bot not in maria.members(room):
        assert time.monotonic() < deadline, bot.text()[-2000:]
        time.sleep(0.25)
    yield {"bot": bot, "maria": maria, "room": room, "accounts": accounts}
    bot.stop()


def in_thread(root: str, after: str) -> dict:
    """How a client sends a message in a thread: the thread relation, falling back to a reply
    to the thread's latest event."""
    return {
        "m.relates_to": {
            "rel_type": "m.thread",
            "event_id": root,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": after},
        }
    }


def test_a_thread_of_three_is_answered_as_a_thread(thread_world, brave_counting):
    maria, room, bot_id = thread_world["maria"], thread_world["room"], thread_world["accounts"].bot
    before = len(brave_counting.searches)

    first = maria.send(room, "Lastword, how much caffeine did the night-shift nurses get?")
    reply1 = maria.wait_reply(room, first, bot_id, REPLY_S)
    assert "200 mg" in reply1["content"]["body"]

    second = maria.send(
        room, "And how much less did they sleep?", **in_thread(first, reply1["event_id"])
    )
    reply2 = maria.wait_reply(room, second, bot_id, REPLY_S)
    relation = reply2["content"]["m.relates_to"]
    assert relation["rel_type"] == "m.thread" and relation["event_id"] == first
    body = reply2["content"]["body"]
    assert body.startswith("(Asked as: And how much less did they sleep (")
    assert "caffeine" in body.split("\n")[0] and "41 minutes" in body
    assert len(brave_counting.searches) == before  # corpus answers send nothing

    third = maria.send(
        room,
        "Lastword look up its half-life in healthy adults",
        **in_thread(first, reply2["event_id"]),
    )
    reply3 = maria.wait_reply(room, third, bot_id, REPLY_S)
    assert reply3["content"]["m.relates_to"]["event_id"] == first
    sent = brave_counting.searches[before:]
    assert len(sent) == 1
    assert sent[0].query["q"] == ["its half-life in healthy adults"]  # this message's words only
