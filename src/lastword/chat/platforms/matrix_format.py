"""Matrix events in, Matrix message content out: the pure half of the Matrix adapter.

No SDK here: events are the client-server API's JSON objects (``event["content"]`` etc.), so
everything the bot decides about a message is tested without a homeserver.

Which messages are read: ``m.room.message`` events of msgtype ``m.text`` from someone else.
Notices (``m.notice``, what bots send), edits (``rel_type: m.replace``), other msgtypes and the
bot's own messages are ignored. A message is addressed to the bot when it mentions the bot
(``m.mentions``, the user id, or the display name as a whole word), replies to one of the
bot's messages, or arrives in a room whose reply mode is ``all``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable
from typing import Any

from lastword.chat.reply import Reply
from lastword.chat.sourceline import PREFIX, _domain, _safe_link, cited_results

HTML_FORMAT = "org.matrix.custom.html"
_MARKER = re.compile(r"\[(\d+)\]")


def ignore_reason(event: dict[str, Any], bot_user_id: str) -> str | None:
    """Why the bot does not read ``event``, or None when it is a member's text message."""
    if event.get("type") != "m.room.message":
        return "not a message"
    if event.get("sender") == bot_user_id:
        return "own message"
    content = event.get("content") or {}
    relates = content.get("m.relates_to") or {}
    if relates.get("rel_type") == "m.replace" or "m.new_content" in content:
        return "edit"
    msgtype = content.get("msgtype")
    if msgtype == "m.notice":
        return "notice (bots send notices)"
    if msgtype != "m.text" or not isinstance(content.get("body"), str):
        return f"msgtype {msgtype}"
    return None


def replied_to(content: dict[str, Any]) -> str | None:
    """The event id ``content`` replies to, if any."""
    relates = content.get("m.relates_to") or {}
    reply = relates.get("m.in_reply_to") or {}
    event_id = reply.get("event_id")
    return event_id if isinstance(event_id, str) else None


def thread_root(content: dict[str, Any]) -> str | None:
    """The root event of the thread ``content`` belongs to (``rel_type: m.thread``), if any."""
    relates = content.get("m.relates_to") or {}
    root = relates.get("event_id") if relates.get("rel_type") == "m.thread" else None
    return root if isinstance(root, str) else None


def strip_reply_fallback(body: str) -> str:
    """A reply's body without the quoted ``> <@user> ...`` lines older clients put first."""
    lines = body.split("\n")
    if not lines or not lines[0].startswith("> "):
        return body
    while lines and lines[0].startswith(">"):
        lines.pop(0)
    return "\n".join(lines).strip()


def is_addressed(
    content: dict[str, Any],
    bot_user_id: str,
    names: Iterable[str],
    bot_event_ids: Collection[str],
    mode: str,
) -> bool:
    """Whether a member's message is for the bot (see the module docstring)."""
    if mode == "all":
        return True
    mentions = content.get("m.mentions") or {}
    if bot_user_id in (mentions.get("user_ids") or []):
        return True
    parent = replied_to(content)
    if parent is not None and parent in bot_event_ids:
        return True
    body = strip_reply_fallback(str(content.get("body") or ""))
    formatted = str(content.get("formatted_body") or "")
    if bot_user_id.casefold() in body.casefold() or f"/#/{bot_user_id}" in formatted:
        return True
    localpart = bot_user_id[1:].split(":", 1)[0]
    for name in {*names, localpart}:
        # "lwbot", "@lwbot", "lwbot:" (not "@lwbot:other.server", another user)
        pattern = rf"(?<![\w@])@?{re.escape(name.strip())}(?!\w)(?!:[\w-]+\.)"
        if name.strip() and re.search(pattern, body, re.I):
            return True
    return False


def message_text(content: dict[str, Any]) -> str:
    """What the member wrote: the body without a reply quote.

    User ids, @names and the names ``mention_names`` lists stay in the text: the assistant's
    query hygiene (``lastword.chat.hygiene``) removes them in one place, and refuses a query
    whose words a removal would join. Nothing of them reaches a search provider.
    """
    body = strip_reply_fallback(str(content.get("body") or ""))
    return re.sub(r"[ \t]{2,}", " ", body).strip()


_PILL = re.compile(
    r"""<a\s[^>]*href=["']https://matrix\.to/#/(@[^"'/?]+)["'][^>]*>(.*?)</a>""", re.I | re.S
)
_TAG = re.compile(r"<[^>]+>")


def _localpart(user_id: str) -> str:
    return user_id[1:].split(":", 1)[0] if user_id.startswith("@") else user_id


def mention_names(
    content: dict[str, Any],
    bot_user_id: str,
    bot_names: Iterable[str],
    members: dict[str, str | None],
) -> tuple[str, ...]:
    """Every name in ``content`` that stands for a person, for the query hygiene to remove.

    The bot's own forms (user id, localpart, display names), and for each person mentioned
    (``m.mentions``, a pill in ``formatted_body``, "@localpart", or "Name:" opening the
    message) their user id, localpart and display name in the room (``members``: user id ->
    display name).
    """
    names: set[str] = {bot_user_id, _localpart(bot_user_id), *bot_names}
    people: set[str] = set((content.get("m.mentions") or {}).get("user_ids") or [])
    formatted = str(content.get("formatted_body") or "")
    for user_id, label in _PILL.findall(formatted):
        people.add(html.unescape(user_id))
        names.add(html.unescape(_TAG.sub("", label)).strip())
    body = strip_reply_fallback(str(content.get("body") or ""))
    folded = body.casefold()
    opening = body.split(":", 1)[0].strip().casefold() if ":" in body[:80] else None
    for user_id, display in members.items():
        forms = [f for f in (_localpart(user_id), display) if f]
        if any(f"@{f.casefold()}" in folded or f.casefold() == opening for f in forms):
            people.add(user_id)
    for user_id in people:
        if not isinstance(user_id, str):
            continue
        names.update({user_id, _localpart(user_id)})
        display = members.get(user_id)
        if display:
            names.add(display)
    return tuple(sorted(n for n in names if n and n.strip()))


def _html_text(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def formatted_source_line(reply: Reply) -> str | None:
    """The source line as HTML: web results as real links (number as link text, domain beside
    it); the corpus line (paper and page) as text."""
    if reply.source_line is None:
        return None
    if reply.outbound_query is None:
        return _html_text(reply.source_line)
    parts = []
    for passage in cited_results(reply.result, reply.result.declared):
        url = str(passage.metadata["url"])
        link = html.escape(_safe_link(url) or "", quote=True)
        parts.append(f'{html.escape(_domain(url))} <a href="{link}">{passage.n}</a>')
    if not parts:
        return _html_text(reply.source_line)
    return f"{html.escape(PREFIX)} {', '.join(parts)}"


def reply_content(
    reply: Reply,
    in_reply_to: str,
    member_id: str,
    msgtype: str = "m.notice",
    thread: str | None = None,
) -> dict[str, Any]:
    """The ``m.room.message`` content of a reply: plain ``body``, HTML ``formatted_body``, a
    Matrix reply relation to the member's message (inside ``thread`` when the message was in
    one), and a mention of the member only."""
    parts = [_html_text(reply.asked_as)] if reply.asked_as else []
    parts.append(_html_text(reply.text))
    if reply.warning:
        parts.append(_html_text(reply.warning))
    line = formatted_source_line(reply)
    if line:
        parts.append(line)
    return {
        "msgtype": msgtype,
        "body": reply.render(),
        "format": HTML_FORMAT,
        "formatted_body": "<br><br>".join(parts),
        "m.relates_to": _relation(in_reply_to, thread),
        "m.mentions": {"user_ids": [member_id]},
    }


def _relation(in_reply_to: str, thread: str | None) -> dict[str, Any]:
    if thread is None:
        return {"m.in_reply_to": {"event_id": in_reply_to}}
    return {
        "rel_type": "m.thread",
        "event_id": thread,
        "is_falling_back": False,
        "m.in_reply_to": {"event_id": in_reply_to},
    }


def notice_content(text: str, msgtype: str = "m.notice") -> dict[str, Any]:
    return {"msgtype": msgtype, "body": text, "m.mentions": {}}
