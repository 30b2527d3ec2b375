"""The bot end to end: real Synapse on 127.0.0.1, ``lastword matrix run`` as a real process.

Members talk through the client-server API; the Brave stand-in counts what left the machine.
The tests run in order on one homeserver, one room and one bot process (restarted on purpose
by the last tests): each step reads the room as a member would.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lastword.chat.platforms.matrix_state import CredentialStore
from lastword.settings import ChatSettings, MatrixSettings
from lastword.websearch.keys import KeyStore
from tests.chat.conftest import BRAVE_KEY
from tests.matrix.conftest import PASSWORDS, TRUSTRANK_TITLE
from tests.matrix.homeserver import Member

pytestmark = pytest.mark.timeout(900)
CHAT = ChatSettings()
REPLY_S = 240  # generous: a shared 2-core machine under load; a quiet one answers in seconds


def lastword(*args: str, config: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from lastword.cli import main; main()", "--config", config, *args],
        input=stdin, capture_output=True, text=True, timeout=300, env=_env(),
    )  # fmt: skip


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LASTWORD_MASTER_KEY"}
    env["HF_HUB_OFFLINE"] = "1"
    return env


class Bot:
    """``lastword matrix run`` as a subprocess, its log in a file."""

    def __init__(self, config: Path, index: Path, log: Path) -> None:
        self.config, self.index, self.log = config, index, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-c", "from lastword.cli import main; main()",
                 "--config", self.config, "matrix", "run", "--index", self.index],
                stdout=out, stderr=subprocess.STDOUT, env=_env(),
            )  # fmt: skip
        self.wait_log("ready: syncing")

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_log(self, needle: str, timeout_s: float = REPLY_S, after: int | None = None) -> None:
        start = self._offset if after is None else after
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if needle in self.text()[start:]:
                return
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"the bot exited:\n{self.text()[-3000:]}")
            time.sleep(0.25)
        raise AssertionError(f"{needle!r} not in the bot's log:\n{self.text()[-3000:]}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def world(tmp_path_factory, synapse, accounts, matrix_index, brave_counting):
    root = tmp_path_factory.mktemp("matrix-bot")
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
    maria = Member(synapse.url, "maria", PASSWORDS["maria"])
    tom = Member(synapse.url, "tom", PASSWORDS["tom"])
    bot = Bot(config, matrix_index, root / "bot.log")
    world = {"root": root, "config": config, "state_dir": state_dir, "bot": bot}
    world.update(maria=maria, tom=tom, synapse=synapse, accounts=accounts, brave=brave_counting)
    yield world
    bot.stop()


def ask(world, member: Member, text: str, **extra) -> dict:
    room = world["room"]
    event_id = member.send(room, text, **extra)
    reply = member.wait_reply(room, event_id, world["accounts"].bot, REPLY_S)
    world.setdefault("asked", []).append(event_id)
    return reply["content"]


def test_login_stores_the_token_encrypted_and_never_prints_it(world):
    url, bot_id = world["synapse"].url, world["accounts"].bot
    done = lastword(
        "matrix", "login", "--homeserver", url, "--user", bot_id,
        config=world["config"], stdin=PASSWORDS["lastword"] + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    creds = CredentialStore(world["state_dir"]).require()
    token = creds.access_token.get_secret_value()
    device = creds.device_id.get_secret_value()
    stored = (world["state_dir"] / "matrix.json").read_text()
    assert token not in stored and device not in stored
    assert (world["state_dir"] / "matrix.json").stat().st_mode & 0o077 == 0
    status = lastword("matrix", "status", config=world["config"])
    assert "token accepted by the homeserver" in status.stdout
    for out in (done.stdout + done.stderr, status.stdout + status.stderr):
        assert token not in out and device not in out and PASSWORDS["lastword"] not in out
    bad = lastword(
        "matrix", "login", "--homeserver", url, "--user", "lastword",
        config=world["config"], stdin="x\n",
    )  # fmt: skip
    assert bad.returncode != 0 and "Matrix user id" in bad.stderr


def test_joins_when_an_allowed_member_invites_and_declines_others(world):
    bot_id = world["accounts"].bot
    world["bot"].start()
    maria, tom = world["maria"], world["tom"]
    world["room"] = room = maria.create_room([bot_id, world["accounts"].tom])
    tom.join(room)
    stranger_room = tom.create_room([bot_id])  # tom is not an allowed inviter
    deadline = time.monotonic() + REPLY_S
    while bot_id not in maria.members(room):
        assert time.monotonic() < deadline, world["bot"].text()[-2000:]
        time.sleep(0.25)
    world["bot"].wait_log(f"declined an invitation to {stranger_room}")
    assert bot_id not in tom.members(stranger_room)


def test_a_corpus_question_is_answered_from_the_papers_and_sends_nothing(world):
    before = len(world["brave"].searches)
    content = ask(
        world,
        world["maria"],
        "Lastword, can you look up in our papers how many seed sites TrustRank used?",
    )
    assert "178" in content["body"]
    assert f"📚 From our papers: {TRUSTRANK_TITLE}, p. 2" in content["body"]
    assert "p. 2" in content["formatted_body"]
    assert content["format"] == "org.matrix.custom.html"
    assert content["m.mentions"] == {"user_ids": [world["accounts"].maria]}
    assert len(world["brave"].searches) == before  # 0 requests


def test_a_web_search_sends_the_members_words_once_and_links_the_sources(world):
    before = len(world["brave"].searches)
    content = ask(
        world,
        world["maria"],
        f"{world['accounts'].bot} search the web for the half-life of caffeine in healthy adults",
        **{"m.mentions": {"user_ids": [world["accounts"].bot]}},
    )
    sent = world["brave"].searches[before:]
    assert len(sent) == 1
    assert sent[0].query["q"] == ["the half-life of caffeine in healthy adults"]
    html = content["formatted_body"]
    assert "🔎 From search previews" in html
    # The source line: each number the answer cites, as a real link beside its domain.
    links = re.findall(r'([\w.-]+) <a href="(https://[^"]+)">(\d+)</a>', html)
    assert links, html
    cited = set(re.findall(r"\[(\d+)\]", html))
    assert {number for _, _, number in links} == cited
    for domain, url, _ in links:
        assert domain.removeprefix("www.") in ("en.wikipedia.org", "sleepfoundation.org")
        assert domain in url
    assert "](https://" in content["body"]  # the plain body keeps readable links


def test_a_gated_request_is_refused_with_nothing_sent_and_no_source_line(world):
    before = len(world["brave"].searches)
    content = ask(world, world["maria"], "Lastword search the web for p0rn videos")
    assert content["body"] == CHAT.gate_refused_line
    assert "🔎" not in content["formatted_body"] and "📚" not in content["formatted_body"]
    assert len(world["brave"].searches) == before


def test_six_searches_by_one_member_send_five(world):
    before = len(world["brave"].searches)
    bodies = [
        ask(world, world["tom"], f"Lastword look up caffeine half-life in healthy adults {i}")[
            "body"
        ]
        for i in range(6)
    ]
    assert len(world["brave"].searches) - before == 5
    assert bodies[-1] == CHAT.rate_limited_line
    assert all(b != CHAT.rate_limited_line for b in bodies[:5])


def test_unaddressed_messages_notices_and_edits_get_no_reply(world):
    maria, room, bot_id = world["maria"], world["room"], world["accounts"].bot
    quiet = [
        maria.send(room, "lunch at noon? nobody needs the bot for this"),
        maria.send(room, "Lastword a bot notice", msgtype="m.notice"),
    ]
    target = world["asked"][0]
    quiet.append(
        maria.send(
            room,
            "* Lastword what about the placebo group?",
            **{
                "m.new_content": {"msgtype": "m.text", "body": "Lastword placebo?"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": target},
            },
        )
    )
    # a later addressed message is answered, so the quiet ones were seen and passed over
    ask(world, maria, "Lastword how much did vitamin D change lumbar spine bone density?")
    for event_id in quiet:
        assert maria.replies_to(room, event_id, bot_id) == []
    world["quiet"] = quiet


def test_killed_and_restarted_the_bot_answers_each_message_once(world):
    maria, room, bot_id = world["maria"], world["room"], world["accounts"].bot
    world["bot"].kill()
    while_down = maria.send(room, "Lastword, in our papers, what was the TrustRank seed set?")
    world["bot"].start()
    maria.wait_reply(room, while_down, bot_id, REPLY_S)
    world["asked"].append(while_down)
    time.sleep(3)  # a replay would post now
    for event_id in world["asked"]:
        assert len(maria.replies_to(room, event_id, bot_id)) == 1, event_id


def test_homeserver_outage_is_retried_and_the_bot_answers_again(world):
    bot, synapse = world["bot"], world["synapse"]
    mark = len(bot.text())
    synapse.stop()
    bot.wait_log("homeserver unreachable", after=mark)
    synapse.start()
    bot.wait_log("homeserver is back", after=mark)
    content = ask(world, world["maria"], "Lastword how many seed sites did TrustRank use?")
    assert "178" in content["body"]


def test_an_encrypted_room_is_told_once_and_not_read(world):
    maria, bot_id = world["maria"], world["accounts"].bot
    room = maria.create_room([bot_id], encrypted=True)
    notice = maria.wait_for(
        room, lambda e: e.get("sender") == bot_id and e.get("type") == "m.room.message"
    )
    assert notice["content"]["body"] == MatrixSettings().encrypted_room_line
    path = f"/_matrix/client/v3/rooms/{room}/send/m.room.encrypted/t1"
    maria._call(
        "PUT", path,
        json={"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "AwgA", "sender_key": "k",
              "session_id": "s", "device_id": "D"},
    )  # fmt: skip
    maria.send(room, "Lastword are you there? (sent unencrypted)")
    ask(world, maria, "Lastword what did TrustRank propagate from the seeds?")  # still alive
    from_bot = [e for e in maria.messages(room) if e.get("sender") == bot_id and "content" in e]
    assert [e["content"].get("body") for e in from_bot if e["type"] == "m.room.message"] == [
        MatrixSettings().encrypted_room_line
    ]
