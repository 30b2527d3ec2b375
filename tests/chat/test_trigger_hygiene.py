"""The deterministic trigger and what leaves the machine."""

from __future__ import annotations

from lastword.chat.hygiene import build_query, corpus_question, outbound_query
from lastword.chat.trigger import (
    find_trigger,
    lookup_request,
    names_specific_thing,
)
from lastword.settings import ChatSettings

PHRASES = ChatSettings().trigger_phrases


def test_trigger_needs_a_listed_phrase_on_whole_words():
    assert find_trigger("what is the half-life of caffeine?", PHRASES) is None
    assert find_trigger("what's the latest news on caffeine?", PHRASES) is None
    assert find_trigger("googleplex history", PHRASES) is None  # whole words only
    assert find_trigger("lookup tables in python", PHRASES) is None
    match = find_trigger("Please SEARCH the  web for caffeine", PHRASES)
    assert match.phrase == "search the web for"  # the longest phrase starting there
    assert find_trigger("can you google caffeine", PHRASES).phrase == "google"
    assert find_trigger("busca en internet la cafeína", PHRASES).phrase == "busca en internet"


def test_outbound_query_is_the_members_words_without_trigger_name_or_mentions():
    text = "@Lastword hey, search the web for caffeine half-life in adults (@maria, too)"
    trigger = find_trigger(text, PHRASES)
    query = outbound_query(text, trigger, ("Lastword",))
    assert query == "caffeine half-life in adults ( too)"
    # a mention between two words would join them: refused, not sent
    joined = "@Lastword search the web for caffeine half-life (ask @maria too)"
    built = build_query(joined, find_trigger(joined, PHRASES), ("Lastword",))
    assert built.joined == ("(ask", "too)")


def test_outbound_query_is_cut_to_300_characters_and_the_word_limit():
    long = "look up " + " ".join(f"w{i}" for i in range(200))
    query = outbound_query(long, find_trigger(long, PHRASES), (), 300, 50)
    assert len(query.split()) == 50 and len(query) <= 300
    longer = "look up " + "x" * 1000
    assert len(outbound_query(longer, find_trigger(longer, PHRASES), (), 300, 50)) == 300
    words = "look up " + " ".join(["caffeinated"] * 40)
    cut = outbound_query(words, find_trigger(words, PHRASES), (), 300, 50)
    assert len(cut) <= 300 and cut.endswith("caffeinated")


def test_nothing_left_after_the_trigger_is_an_empty_query():
    text = "Lastword, search the web for"
    assert outbound_query(text, find_trigger(text, PHRASES), ("Lastword",)) == ""


def test_a_lookup_the_model_asks_for_is_recognised():
    assert lookup_request("Caffeine lasts [1].\nSEARCH: caffeine 2026 guidance") == (
        "caffeine 2026 guidance"
    )
    assert lookup_request("web_search: x") == "x"
    assert lookup_request("Caffeine lasts about 5 hours [1].") is None
    assert lookup_request(None) is None


def test_specific_things_for_the_widening_switch():
    assert names_specific_thing("what does BRCA1 do")
    assert names_specific_thing('what is "lace plant" PCD')
    assert names_specific_thing("COVID-19 mortality")
    assert not names_specific_thing("does coffee help sleep")


CORPUS = ChatSettings().corpus_phrases


def test_a_message_pointing_at_our_material_is_a_corpus_question():
    from lastword.chat.trigger import points_at_corpus, web_trigger

    issue = "Can you look up in our papers how many seed sites TrustRank used?"
    assert find_trigger(issue, PHRASES).phrase == "look up"  # a trigger is there...
    assert web_trigger(issue, PHRASES, CORPUS) is None  # ...but the message is a corpus question
    for text in (
        "search the web for what the corpus says about BRCA1",
        "Look it up in our notes: which buffer did we use?",
        "google what OUR  PAPERS report on zebrafish",
        "busca en internet en nuestros artículos la dosis",
    ):
        assert points_at_corpus(text, CORPUS) is not None, text
        assert web_trigger(text, PHRASES, CORPUS) is None, text
    web = web_trigger("search the web for newspapers on caffeine", PHRASES, CORPUS)
    assert web is not None and web.phrase == "search the web for"  # "papers" alone is not ours
    assert points_at_corpus("what do other labs' papers say?", CORPUS) is None


def test_matrix_user_ids_leave_no_server_name_behind():
    text = "@lastword:lab.example.org search the web for caffeine, ask @tom:lab.org:8448"
    query = outbound_query(text, find_trigger(text, PHRASES), ("Lastword",))
    assert query == "caffeine, ask"


def test_the_corpus_is_asked_the_question_without_the_words_that_route_it():
    chat = ChatSettings()

    def asked(text: str) -> str:
        return corpus_question(text, chat.trigger_phrases, chat.corpus_phrases, ("Lastword",))

    text = "Lastword, can you look up in our papers how many seed sites TrustRank used?"
    assert asked(text) == "how many seed sites TrustRank used?"
    assert asked("According to our papers, which dose was used?") == "which dose was used?"
    assert asked("@lastword:example.org how long did the trial last?") == (
        "how long did the trial last?"
    )
    # "our papers" as what is asked about stays: only "in/from ... our papers" says where
    assert asked("What do our papers say about statins?") == "What do our papers say about statins?"
    assert asked("Could you please tell me the dose in the corpus") == "tell me the dose"
