"""The Matrix bot: a long-running client on matrix-nio that answers through ``Assistant``.

One loop: sync (long poll) -> accept allowed invitations -> read each joined room's new
events -> answer the messages addressed to the bot, one at a time, as Matrix replies -> store
the sync position. Every message goes through ``Assistant.handle`` with the sender's user id
as the member and the room id as the chat; only the member's own words (user ids removed) go
in. The homeserver going away is logged and retried with doubling waits up to
``[matrix] retry_max_s``; the bot resumes when it answers again.

Delivery: the sync position is stored only after every event of a sync is handled, each
handled message is recorded (``matrix_state``), and a reply is sent with a transaction id
derived from the member's event id, so a crash between sending and recording cannot make the
homeserver post a second reply. Messages older than ``max_message_age_s`` when first seen
(sent while the bot was down) are recorded as skipped, not answered. History from before the
bot joined a room is never answered; on a first run the messages after the bot's join are
answered (a room joined before the first run is history).

Encrypted rooms: end-to-end encryption is not supported (no olm here). In a room that turns
on encryption the bot says so once and reads nothing.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import logging
import time
from typing import Any

from lastword.chat.assistant import Assistant
from lastword.chat.platforms.matrix_format import (
    ignore_reason,
    is_addressed,
    mention_names,
    message_text,
    notice_content,
    replied_to,
    reply_content,
    thread_root,
)
from lastword.chat.platforms.matrix_state import BotState, Credentials
from lastword.chat.reply import Message
from lastword.errors import ConfigError, MissingExtraError
from lastword.settings import MatrixSettings

log = logging.getLogger("lastword.matrix")


def _nio() -> Any:
    try:
        import nio
    except ImportError as exc:
        raise MissingExtraError("matrix-nio", "matrix") from exc
    return nio


class HomeserverDown(Exception):
    """A request could not be completed because the homeserver did not answer properly."""


def _transient(response: Any) -> bool:
    status = str(getattr(response, "status_code", "") or "")
    return status in ("", "M_LIMIT_EXCEEDED", "M_UNKNOWN") or status.startswith("5")


def make_client(creds: Credentials, settings: MatrixSettings) -> Any:
    nio = _nio()
    config = nio.AsyncClientConfig(
        max_timeouts=0,  # a connection error raises at once; the bot's loop owns the backoff
        max_limit_exceeded=3,
        request_timeout=settings.sync_timeout_s + 30,
        store_sync_tokens=False,
        encryption_enabled=False,
    )
    client = nio.AsyncClient(
        creds.homeserver, creds.user_id, device_id=creds.device_id.get_secret_value(),
        config=config,
    )  # fmt: skip
    client.access_token = creds.access_token.get_secret_value()
    client.user_id = creds.user_id
    return client


class MatrixBot:
    def __init__(
        self, assistant: Assistant, settings: MatrixSettings, creds: Credentials, state: BotState
    ) -> None:
        self.assistant = assistant
        self.settings = settings
        self.creds = creds
        self.state = state
        self.user_id = creds.user_id
        self.names = (assistant.persona.name,)
        self.client: Any = None
        self._down_since: float | None = None
        self._wait = settings.retry_initial_s
        #: the bot's reply event -> the conversation it belongs to (a reply to it continues it)
        self._conversation_of: dict[str, str] = {}

    # ------------------------------------------------------------------ the loop
    async def run(self) -> None:
        nio = _nio()
        self.client = make_client(self.creds, self.settings)
        try:
            await self._start()
            since = self.state.next_batch(self.user_id)
            if since is None:
                log.info("first run: history in joined rooms is not answered")
            log.info("ready: syncing%s", " from the stored position" if since else "")
            while True:
                try:
                    response = await self.client.sync(
                        timeout=int(self.settings.sync_timeout_s * 1000) if since else 0,
                        since=since,
                        full_state=since is None,
                    )
                except Exception as exc:
                    if not _transport_error(exc):
                        raise
                    await self._homeserver_down(f"{type(exc).__name__}: {exc}")
                    continue
                if isinstance(response, nio.SyncError):
                    if response.status_code == "M_UNKNOWN_TOKEN":
                        raise ConfigError(
                            "the homeserver no longer accepts the bot's access token; "
                            "run: lastword matrix login --homeserver URL --user ID"
                        )
                    await self._homeserver_down(f"sync failed: {response.status_code}")
                    continue
                self._homeserver_up()
                await self._handle_sync(response, first=since is None)
                since = response.next_batch
                self.state.set_next_batch(self.user_id, since)
        finally:
            await self.client.close()

    async def _start(self) -> None:
        nio = _nio()
        while True:
            try:
                who = await self.client.whoami()
            except Exception as exc:  # unreachable at start: same backoff as later
                if not _transport_error(exc):
                    raise
                await self._homeserver_down(f"{type(exc).__name__}: {exc}")
                continue
            if isinstance(who, nio.WhoamiError):
                if who.status_code == "M_UNKNOWN_TOKEN":
                    raise ConfigError(
                        "the homeserver rejects the stored access token; "
                        "run: lastword matrix login --homeserver URL --user ID"
                    )
                await self._homeserver_down(f"whoami failed: {who.status_code}")
                continue
            break
        self._homeserver_up()
        log.info("logged in as %s on %s", self.user_id, self.creds.homeserver)
        name = await self.client.get_displayname(self.user_id)
        if getattr(name, "displayname", None) != self.names[0]:
            await self.client.set_displayname(self.names[0])
        for room in self.settings.allowed_rooms:
            joined = await self.client.join(room)
            if isinstance(joined, nio.JoinError):
                log.warning("could not join allowed room %s: %s", room, joined.message)
            else:
                log.info("joined allowed room %s", joined.room_id)

    async def _homeserver_down(self, why: str) -> None:
        now = time.monotonic()
        if self._down_since is None:
            self._down_since = now
            self._wait = self.settings.retry_initial_s
        log.warning("homeserver unreachable (%s); retrying in %.1f s", why, self._wait)
        await asyncio.sleep(self._wait)
        self._wait = min(self._wait * 2, self.settings.retry_max_s)

    def _homeserver_up(self) -> None:
        if self._down_since is not None:
            log.info(
                "homeserver is back after %.1f s; resuming", time.monotonic() - self._down_since
            )
        self._down_since = None
        self._wait = self.settings.retry_initial_s

    # ------------------------------------------------------------------ one sync
    async def _handle_sync(self, response: Any, first: bool) -> None:
        for room_id, info in response.rooms.invite.items():
            await self._invited(room_id, info)
        for room_id, info in response.rooms.join.items():
            room = self.client.rooms.get(room_id)
            events = [event.source for event in info.timeline.events]
            encrypted = (room is not None and room.encrypted) or any(
                e.get("type") == "m.room.encrypted" for e in events
            )
            if encrypted:
                await self._encrypted(room_id)
                continue
            after = self._after_own_join(events)
            if first and after is None:
                continue  # joined before this first run: the room's timeline is history
            for event in events if after is None else after:
                await self._event(room_id, room, event)

    def _after_own_join(self, events: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """Events after the bot's own join when the timeline holds it (older ones predate it),
        None when it does not.

        On a first run (no stored sync position) a room whose timeline holds the bot's join
        is answered from the join on: a message sent with or right after the join was sent
        after it and is answered, one sent before it never is. A room joined before (no join
        in the timeline) is history and nothing in it is answered.
        """
        for i in range(len(events) - 1, -1, -1):
            event = events[i]
            if (
                event.get("type") == "m.room.member"
                and event.get("state_key") == self.user_id
                and (event.get("content") or {}).get("membership") == "join"
            ):
                return events[i + 1 :]
        return None

    def _inviter_allowed(self, inviter: str | None) -> bool:
        return inviter is not None and any(
            fnmatch.fnmatchcase(inviter, pattern) for pattern in self.settings.allowed_inviters
        )

    def _room_allowed(self, room_id: str, alias: str | None) -> bool:
        allowed = set(self.settings.allowed_rooms)
        return room_id in allowed or (alias is not None and alias in allowed)

    async def _invited(self, room_id: str, info: Any) -> None:
        nio = _nio()
        inviter = None
        alias = None
        for event in info.invite_state:
            source = getattr(event, "source", {}) or {}
            if source.get("type") == "m.room.canonical_alias":
                alias = (source.get("content") or {}).get("alias")
            if (
                getattr(event, "state_key", None) == self.user_id
                and getattr(event, "membership", None) == "invite"
            ):
                inviter = event.sender
        if not (self._inviter_allowed(inviter) or self._room_allowed(room_id, alias)):
            log.warning("declined an invitation to %s from %s (not allowed)", room_id, inviter)
            await self.client.room_leave(room_id)
            return
        joined = await self.client.join(room_id)
        if isinstance(joined, nio.JoinError):
            log.warning("could not join %s: %s", room_id, joined.message)
            return
        self.state.joined(room_id, time.time())
        log.info("joined %s (invited by %s)", room_id, inviter)

    async def _encrypted(self, room_id: str) -> None:
        if self.state.encrypted_notice_sent(room_id):
            return
        log.warning("room %s is end-to-end encrypted; saying so once and reading nothing", room_id)
        content = notice_content(self.settings.encrypted_room_line, self.settings.reply_msgtype)
        event_id = await self._send(room_id, content, f"lw-e2e-{_digest(room_id)}")
        if event_id is not None:
            self.state.add_own_event(event_id, room_id)
        self.state.mark_encrypted_notice(room_id)

    def _mode(self, room_id: str, room: Any) -> str:
        modes = self.settings.reply_mode
        alias = getattr(room, "canonical_alias", None)
        if room_id in modes:
            return modes[room_id]
        if alias and alias in modes:
            return modes[alias]
        return self.settings.default_reply_mode

    async def _event(self, room_id: str, room: Any, event: dict[str, Any]) -> None:
        reason = ignore_reason(event, self.user_id)
        if reason is not None:
            return
        event_id = event.get("event_id")
        if not isinstance(event_id, str):
            return
        if self.state.outcome(event_id) not in (None, "claimed", "retried"):
            log.info("already handled %s; not answering it again", event_id)
            return
        content = event["content"]
        if not is_addressed(
            content, self.user_id, self.names, self.state.own_events(), self._mode(room_id, room)
        ):
            return
        age = time.time() - float(event.get("origin_server_ts", 0)) / 1000
        if age > self.settings.max_message_age_s:
            log.info("skipping %s: %.0f s old (max_message_age_s)", event_id, age)
            self.state.record(event_id, room_id, "skipped_old")
            return
        root = thread_root(content)
        members = {
            user_id: getattr(user, "display_name", None)
            for user_id, user in (getattr(room, "users", None) or {}).items()
        }
        names = mention_names(content, self.user_id, self.names, members)
        key = self._conversation_key(event_id, root, content)
        message = Message(event["sender"], room_id, message_text(content), thread=key, names=names)
        await self._answer(room_id, event_id, message, root)

    def _conversation_key(self, event_id: str, root: str | None, content: dict[str, Any]) -> str:
        """A thread is one conversation; a reply to the bot continues the reply's; anything
        else starts one (which a reply to the bot's answer continues)."""
        if root is not None:
            return root
        parent = replied_to(content)
        return self._conversation_of.get(parent or "", event_id)

    async def _answer(
        self, room_id: str, event_id: str, message: Message, root: str | None = None
    ) -> None:
        sender = message.member_id
        key = message.thread or event_id
        previous = self.state.outcome(event_id)
        if previous == "claimed":
            # taken up before and never finished: the bot died on it. One more try, no more,
            # so an event that crashes the bot cannot loop and spend the member's budget.
            self.state.record(event_id, room_id, "retried")
        elif previous == "retried":
            log.error("%s crashed the bot twice; not answering it again", event_id)
            self.state.record(event_id, room_id, "crashed")
            return
        else:
            self.state.record(event_id, room_id, "claimed")
        started = time.perf_counter()
        await self._typing(room_id, True)
        try:
            reply = await asyncio.to_thread(self.assistant.handle, message)
        except (ConfigError, MissingExtraError):
            raise  # the operator must fix these; a restart retries the event once
        except Exception:
            log.exception("answering %s failed; recorded, not retried", event_id)
            self.state.record(event_id, room_id, "crashed")
            return
        finally:
            await self._typing(room_id, False)
        if reply is None:
            self.state.record(event_id, room_id, "empty")
            return
        content = reply_content(reply, event_id, sender, self.settings.reply_msgtype, root)
        reply_id = await self._send(room_id, content, f"lw-{_digest(event_id)}")
        if reply_id is None:
            self.state.record(event_id, room_id, "send_failed")
            return
        self._conversation_of[reply_id] = key
        if len(self._conversation_of) > 10_000:  # in memory only; the oldest go first
            del self._conversation_of[next(iter(self._conversation_of))]
        self.state.add_own_event(reply_id, room_id)
        self.state.record(event_id, room_id, reply.outcome, reply_id)
        log.info(
            "answered %s in %s: %s (%.0f ms)",
            event_id, room_id, reply.outcome, (time.perf_counter() - started) * 1000,
        )  # fmt: skip

    async def _typing(self, room_id: str, on: bool) -> None:
        try:
            await self.client.room_typing(room_id, on, timeout=30_000)
        except Exception as exc:  # a typing notice is a courtesy; never fail an answer on it
            log.debug("typing notice failed: %s", exc)

    async def _send(self, room_id: str, content: dict[str, Any], txn_id: str) -> str | None:
        """Send until the homeserver takes it (the same transaction id each time)."""
        nio = _nio()
        while True:
            try:
                response = await self.client.room_send(
                    room_id, "m.room.message", content, tx_id=txn_id,
                    ignore_unverified_devices=True,
                )  # fmt: skip
            except Exception as exc:
                if not _transport_error(exc):
                    raise
                await self._homeserver_down(f"send: {type(exc).__name__}")
                continue
            if isinstance(response, nio.RoomSendResponse):
                self._homeserver_up()
                return response.event_id
            if _transient(response):
                await self._homeserver_down(f"send failed: {response.status_code}")
                continue
            log.warning("the homeserver refused a reply in %s: %s", room_id, response.message)
            return None


def _transport_error(exc: BaseException) -> bool:
    """A failure to talk to the homeserver at all (refused, reset, timed out)."""
    return isinstance(exc, OSError | TimeoutError) or type(exc).__module__.startswith("aiohttp")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
