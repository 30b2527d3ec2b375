"""What the bot reads and what it posts, on Matrix event JSON (no homeserver needed)."""

from __future__ import annotations

from lastword.chat.platforms.matrix_format import (
    formatted_source_line,
    ignore_reason,
    is_addressed,
    message_text,
    reply_content,
)
from lastword.chat.reply import Reply
from lastword.chat.sourceline import corpus_source_line, source_line
from lastword.result import Result, RetrievedPassage, Status

BOT = "@lastword:lab.org"


def event(body: str, sender: str = "@maria:lab.org", **content) -> dict:
    return {
        "type": "m.room.message",
        "sender": sender,
        "event_id": "$e1",
        "origin_server_ts": 0,
        "content": {"msgtype": "m.text", "body": body, **content},
    }


def test_only_members_text_messages_are_read():
    assert ignore_reason(event("hi"), BOT) is None
    assert ignore_reason(event("hi", sender=BOT), BOT) == "own message"
    assert ignore_reason(event("hi", msgtype="m.notice"), BOT).startswith("notice")
    edit = event("* hi", **{"m.relates_to": {"rel_type": "m.replace", "event_id": "$x"}})
    assert ignore_reason(edit, BOT) == "edit"
    assert ignore_reason(event("pic", msgtype="m.image"), BOT) == "msgtype m.image"
    assert ignore_reason({**event("x"), "type": "m.reaction"}, BOT) == "not a message"


def test_addressed_by_mention_name_user_id_reply_or_room_mode():
    names = ("Lastword",)
    plain = event("what is the dose?")["content"]
    assert not is_addressed(plain, BOT, names, set(), "mention")
    assert is_addressed(plain, BOT, names, set(), "all")
    assert is_addressed(event("lastword: the dose?")["content"], BOT, names, set(), "mention")
    assert not is_addressed(event("lastwords matter")["content"], BOT, names, set(), "mention")
    assert is_addressed(event(f"{BOT} dose?")["content"], BOT, names, set(), "mention")
    assert is_addressed(event("@lastword the dose?")["content"], BOT, names, set(), "mention")
    other = event("@lastword:other.org the dose?")["content"]
    assert not is_addressed(other, BOT, names, set(), "mention")
    pill = event("hey", **{"m.mentions": {"user_ids": [BOT]}})["content"]
    assert is_addressed(pill, BOT, names, set(), "mention")
    reply = event(
        "> <@lastword:lab.org> 5 mg\n\nand for children?",
        **{"m.relates_to": {"m.in_reply_to": {"event_id": "$bot1"}}},
    )["content"]
    assert is_addressed(reply, BOT, names, {"$bot1"}, "mention")
    # a reply to someone else that only quotes the bot is not addressed
    assert not is_addressed(reply, BOT, ("Lastword",), {"$other"}, "mention")


def test_message_text_drops_reply_quotes_and_the_query_drops_user_ids():
    from lastword.chat.hygiene import outbound_query
    from lastword.chat.trigger import request_trigger

    content = event(
        "> <@tom:lab.org> earlier\n\n"
        "@lastword:lab.org search the web for caffeine, ask @tom:lab.org"
    )["content"]
    text = message_text(content)
    assert text == "@lastword:lab.org search the web for caffeine, ask @tom:lab.org"
    phrases = ("search the web for",)
    assert outbound_query(text, request_trigger(text, phrases), ()) == "caffeine, ask"


def test_mention_names_lists_the_bot_and_mentioned_people():
    from lastword.chat.platforms.matrix_format import mention_names

    members = {BOT: "Lastword", "@maria:lab.org": "Maria López", "@tom:lab.org": "Tom"}
    pill = {
        "body": "Maria López: look up caffeine",
        "formatted_body": '<a href="https://matrix.to/#/@maria:lab.org">Maria López</a>: look up',
    }
    names = mention_names(pill, BOT, ("Lastword",), members)
    assert {"Maria López", "maria", "@maria:lab.org", "Lastword", "lastword"} <= set(names)
    assert "Tom" not in names  # not mentioned
    plain = {"body": "Tom: look up caffeine, @maria?"}
    assert {"Tom", "tom", "maria", "Maria López"} <= set(mention_names(plain, BOT, (), members))


def _web_result() -> Result:
    passages = tuple(
        RetrievedPassage(
            n=n,
            passage_id=0,
            doc_id=url,
            title=t,
            page=None,
            score=0.8,
            text="snippet",
            metadata={"url": url, "source": "web"},
        )
        for n, (t, url) in enumerate(
            [
                ("Caffeine", "https://en.wikipedia.org/wiki/Caffeine"),
                ("Odd <b>", 'https://www.example.org/a?b=1&c="x"'),
            ],
            start=1,
        )
    )
    return Result(
        question="q", status=Status.ANSWERED, answer="About 5 hours [1] <i>[2]</i>.",
        citations=(1, 2), declared=(1, 2), passages=passages,
    )  # fmt: skip


def test_web_reply_is_a_matrix_reply_with_real_links_and_plain_body():
    result = _web_result()
    reply = Reply(result.answer, source_line(result, result.declared), result, "answered", "q")
    content = reply_content(reply, "$member", "@maria:lab.org")
    assert content["m.relates_to"] == {"m.in_reply_to": {"event_id": "$member"}}
    assert content["format"] == "org.matrix.custom.html"
    assert content["body"] == reply.render()
    html = content["formatted_body"]
    assert 'en.wikipedia.org <a href="https://en.wikipedia.org/wiki/Caffeine">1</a>' in html
    assert 'example.org <a href="https://www.example.org/a?b=1&amp;c=%22x%22">2</a>' in html
    assert "&lt;i&gt;[2]&lt;/i&gt;" in html  # the answer's text is escaped, never markup
    assert content["m.mentions"] == {"user_ids": ["@maria:lab.org"]}


def test_corpus_line_names_paper_and_page_in_both_bodies():
    passage = RetrievedPassage(
        n=1, passage_id=3, doc_id="trustrank.pdf", title="TrustRank & spam", page=2,
        score=0.7, text="178 seed sites",
    )  # fmt: skip
    result = Result(
        question="q", status=Status.ANSWERED, answer="178 sites [1].", citations=(1,),
        passages=(passage,),
    )  # fmt: skip
    reply = Reply(result.answer, corpus_source_line(result), result, "answered")
    assert formatted_source_line(reply) == "📚 From our papers: TrustRank &amp; spam, p. 2 [1]"
    assert "TrustRank & spam, p. 2 [1]" in reply_content(reply, "$m", "@a:b")["body"]
