"""A fresh bot on a real Synapse (issue 33, issue 28 rows 6 and 13).

A bot with no stored state is invited to new rooms and must answer the first message sent
after its join (on its first run too), never one written before it; every plain-text and pill
form of a mention stays out of what the Brave stand-in receives; the web reply links each used
result; a crafted result URL does not crash it; an event it died on is not retried forever.
"""

from __future__ import annotations

import re
import time
from urllib.parse import quote

import httpx
import pytest

from lastword.chat.platforms.matrix_state import BotState, CredentialStore
from lastword.websearch.keys import KeyStore
from tests.chat.conftest import BRAVE_KEY, CAFFEINE_PAGES
from tests.matrix.conftest import PASSWORDS
from tests.matrix.homeserver import Member
from tests.matrix.test_bot_e2e import REPLY_S, Bot, lastword
from tests.servers.brave_api import Page

pytestmark = pytest.mark.timeout(900)
BOT_PASSWORD = "lwbot-pass-5531"
PERSONA = "Labby"
QUESTION = "salmonella survival in reused broiler litter"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory, synapse, accounts, matrix_index, brave_counting):
    bot_id = synapse.register("lwbot", BOT_PASSWORD)
    root = tmp_path_factory.mktemp("fresh-bot")
    state_dir = root / "state"
    KeyStore(state_dir).set("brave", BRAVE_KEY)
    config = root / "lastword.toml"
    config.write_text(
        f"""
[state]
dir = "{state_dir}"

[chat]
persona_name = "{PERSONA}"

[websearch]
brave_url = "{brave_counting.url}"
timeout_s = 10.0
member_searches_per_window = 50
chat_searches_per_window = 50

[matrix]
allowed_inviters = ["{accounts.maria}"]
sync_timeout_s = 5.0
retry_initial_s = 0.5
retry_max_s = 2.0
""",
        encoding="utf-8",
    )
    login = lastword(
        "matrix", "login", "--homeserver", synapse.url, "--user", bot_id,
        config=config, stdin=BOT_PASSWORD + "\n",
    )  # fmt: skip
    assert login.returncode == 0, login.stderr
    maria = Member(synapse.url, "maria", PASSWORDS["maria"])
    maria._call(
        "PUT",
        f"/_matrix/client/v3/profile/{quote(maria.user_id)}/displayname",
        json={"displayname": "Maria López"},
    )
    tom = Member(synapse.url, "tom", PASSWORDS["tom"])
    bot = Bot(config, matrix_index, root / "bot.log")
    world = {"bot": bot, "bot_id": bot_id, "maria": maria, "tom": tom, "state_dir": state_dir}
    world.update(brave=brave_counting, accounts=accounts)
    yield world
    bot.stop()
    brave_counting.pages = CAFFEINE_PAGES


def _wait_joined(member: Member, room: str, user_id: str) -> None:
    deadline = time.monotonic() + REPLY_S
    while user_id not in member.members(room):
        assert time.monotonic() < deadline, "the bot did not join"
        time.sleep(0.1)


def test_first_run_answers_the_first_message_after_the_join_and_not_before(fresh):
    maria, bot_id = fresh["maria"], fresh["bot_id"]
    room = maria.create_room([bot_id])
    before = maria.send(room, "lwbot: written before you joined, how many seed sites?")
    # The bot's join lands before its first sync (as when it joins an allowed room at start,
    # or died before storing its first position): the message after it comes in that sync.
    creds = CredentialStore(fresh["state_dir"]).require()
    httpx.post(
        f"{creds.homeserver}/_matrix/client/v3/join/{quote(room)}",
        headers={"Authorization": f"Bearer {creds.access_token.get_secret_value()}"},
        json={},
        timeout=30,
    ).raise_for_status()
    first = maria.send(room, "lwbot: how many seed sites did TrustRank use in our papers?")
    fresh["bot"].start()  # first run: no stored sync position
    reply = maria.wait_reply(room, first, bot_id, REPLY_S)
    assert "178" in reply["content"]["body"]
    time.sleep(2)
    assert maria.replies_to(room, before, bot_id) == []


def test_a_running_bot_answers_the_first_message_in_a_new_room(fresh):
    maria, bot_id = fresh["maria"], fresh["bot_id"]
    room = maria.create_room([bot_id, fresh["accounts"].tom])
    fresh["tom"].join(room)
    _wait_joined(maria, room, bot_id)
    first = maria.send(room, "lwbot: how many seed sites did TrustRank use in our papers?")
    reply = maria.wait_reply(room, first, bot_id, REPLY_S)
    assert "178" in reply["content"]["body"]
    fresh["room"] = room


def _pill(user_id: str, label: str) -> str:
    return f'<a href="https://matrix.to/#/{user_id}">{label}</a>'


def test_no_mention_form_reaches_the_search_provider(fresh):
    maria, tom, bot_id, room = fresh["maria"], fresh["tom"], fresh["bot_id"], fresh["room"]
    maria_id = maria.user_id
    ask = f"search the web for {QUESTION}"
    forms = {
        "full id": ({"body": f"{bot_id} {ask}"}, maria),
        "pill": (
            {
                "body": f"{PERSONA}: {ask}",
                "format": "org.matrix.custom.html",
                "formatted_body": f"{_pill(bot_id, PERSONA)}: {ask}",
                "m.mentions": {"user_ids": [bot_id]},
            },
            maria,
        ),
        "localpart": ({"body": f"lwbot {ask}"}, maria),
        "display name": ({"body": f"{PERSONA} {ask}"}, maria),
        "name:": ({"body": f"lwbot: {ask}"}, maria),
        "@name": ({"body": f"@lwbot {ask}"}, maria),
        "a colleague's pill": (
            {
                "body": f"lwbot {ask}, Maria López",
                "format": "org.matrix.custom.html",
                "formatted_body": f"lwbot {ask}, {_pill(maria_id, 'Maria López')}",
                "m.mentions": {"user_ids": [maria_id]},
            },
            tom,
        ),
        "a colleague's @name": ({"body": f"lwbot {ask} (@maria)"}, tom),
    }
    for form, (content, member) in forms.items():
        sent_before = len(fresh["brave"].searches)
        body = content.pop("body")
        event_id = member.send(room, body, **content)
        try:
            member.wait_reply(room, event_id, bot_id, REPLY_S)
        except AssertionError:
            raise AssertionError(f"{form}: no reply\n{fresh['bot'].text()[-3000:]}") from None
        sent = fresh["brave"].searches[sent_before:]
        assert len(sent) == 1, form
        (query,) = sent[0].query["q"]
        assert query.strip(" ()") == QUESTION, (form, query)


def test_the_web_reply_links_each_used_result(fresh):
    maria, bot_id, room = fresh["maria"], fresh["bot_id"], fresh["room"]
    event_id = maria.send(room, "lwbot: search the web for the half-life of caffeine in adults")
    content = maria.wait_reply(room, event_id, bot_id, REPLY_S)["content"]
    html = content["formatted_body"]
    links = re.findall(r'<a href="(https://[^"]+)">(\d+)</a>', html)
    cited = set(re.findall(r"\[(\d+)\]", content["body"].split("🔎")[0]))
    assert links, html
    assert sorted(number for _, number in links) == sorted(cited)
    assert len({url for url, _ in links}) == len(links)


def test_a_crafted_result_url_does_not_crash_the_bot(fresh):
    maria, bot_id, room, brave = fresh["maria"], fresh["bot_id"], fresh["room"], fresh["brave"]
    brave.pages = [Page("Caffeine", "https://[caffeine]/half-life", CAFFEINE_PAGES[0].snippet)]
    brave.pages += CAFFEINE_PAGES
    try:
        event_id = maria.send(room, "lwbot: look up the half-life of caffeine in adults")
        content = maria.wait_reply(room, event_id, bot_id, REPLY_S)["content"]
    finally:
        brave.pages = CAFFEINE_PAGES
    assert "[caffeine]" not in content["body"] and "[caffeine]" not in content["formatted_body"]
    assert "🔎" in content["body"]
    assert fresh["bot"].process.poll() is None


def test_an_event_the_bot_died_on_is_retried_once_then_never(fresh):
    maria, bot_id, room, bot = fresh["maria"], fresh["bot_id"], fresh["room"], fresh["bot"]
    bot.stop()
    died_once = maria.send(room, "lwbot: how many seed sites did TrustRank use in our papers?")
    died_twice = maria.send(room, "lwbot: look up the half-life of caffeine in adults")
    state = BotState(fresh["state_dir"])
    state.record(died_once, room, "claimed")  # as left by a bot killed while answering
    state.record(died_twice, room, "retried")  # killed while answering it a second time
    state.close()
    searches = len(fresh["brave"].searches)
    bot.start()
    after = maria.send(room, "lwbot: how many seed sites did TrustRank use in our papers?")
    maria.wait_reply(room, after, bot_id, REPLY_S)
    assert len(maria.replies_to(room, died_once, bot_id)) == 1
    assert maria.replies_to(room, died_twice, bot_id) == []
    assert len(fresh["brave"].searches) == searches  # the twice-crashed search is not sent
    bot.wait_log("crashed the bot twice")
