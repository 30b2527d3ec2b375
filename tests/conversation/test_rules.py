"""The deterministic rewrite: which messages lean on the earlier turn, and their standalone form."""

from __future__ import annotations

import pytest

from lastword.conversation import Turn, replay, standalone

BROILERS = "How many broiler chicks were used in the garlic and holy basil feeding trial?"
MIC = "What was the MIC of holy basil oil against Fusarium graminearum?"


def after(question: str, documents: tuple[str, ...] = ()) -> list[Turn]:
    return [Turn(question, question, documents=documents)]


def test_the_first_message_stands_alone():
    made = standalone("What dose did they use?", [])
    assert made.asked_as == "What dose did they use?" and not made.followed_up


@pytest.mark.parametrize(
    "message",
    ["Which commercial strain were they?", "What dose did they use?", "And why?", "Why?"],
)
def test_a_message_without_a_subject_carries_the_earlier_one(message):
    made = standalone(message, after(BROILERS))
    assert made.followed_up and made.kind in ("refers", "elliptic")
    assert made.asked_as.startswith(message.rstrip("?"))
    assert {"broiler", "chicks", "garlic", "basil"} <= {w.lower() for w in made.carried}
    # nouns name the subject ("feeding" says what was done); a third turn carries it again
    assert "feeding" not in made.carried and made.subject


def test_and_in_x_swaps_the_phrase_of_that_preposition():
    made = standalone("And in turkeys?", after(BROILERS))
    assert made.kind == "replace"
    assert made.asked_as == "How many broiler chicks were used in turkeys?"


def test_what_about_a_property_takes_the_place_of_what_was_asked():
    made = standalone("What about the MFC?", after(MIC))
    assert made.asked_as == "What was the MFC of holy basil oil against Fusarium graminearum?"


def test_what_about_a_name_is_added_not_swapped():
    made = standalone("What about Acacia arabica?", after(MIC))
    assert made.asked_as == f"{MIC.rstrip('?')}, and Acacia arabica?"


@pytest.mark.parametrize(
    "message",
    [
        "How long do giant panda mothers go without food after they give birth?",
        "What are the products of ACC breakdown by ACC deaminase?",
        "And what is the scientific name of the tadpole-bearing fanged frog from Sulawesi?",
        "Which organism causes basil downy mildew?",
    ],
)
def test_a_new_subject_carries_nothing(message):
    made = standalone(message, after(BROILERS))
    assert made.asked_as == message and not made.carried and not made.followed_up


def test_a_new_topic_marker_always_stands_alone_and_is_dropped():
    made = standalone("New question: why?", after(BROILERS))
    assert made.kind == "new_topic" and made.asked_as == "why?"


def test_a_short_message_in_the_cited_documents_continues_them():
    text = {"panda": "Serial milk samples were collected from six giant panda animals."}
    history = after("How long did the colostrum phase last in giant pandas?", ("panda",))
    made = standalone("How many animals gave serial samples?", history, text.get)
    assert made.followed_up and "panda" in made.asked_as.lower()
    # the same words, absent from the cited documents: a question of its own
    other = standalone("How many animals gave serial samples?", history, {"panda": ""}.get)
    assert not other.followed_up
    # a name is never "grounded": it is a subject of its own
    named = standalone("What about Efaw?", [Turn("q", "Which seeds grew?")], text.get)
    assert named.kind == "replace"


def test_replay_makes_each_question_standalone_after_the_ones_before():
    turns = replay([BROILERS, "Which strain were they?", "And what did they weigh?"], 3)
    assert len(turns) == 3 and "garlic" in turns[2].asked_as
    assert replay([BROILERS, "x", "y", "z"], 2)[0].message == "y"
    assert replay(["", BROILERS], 3)[0].message == BROILERS
    assert replay([BROILERS, "Which strain were they?"], 3, enabled=False)[1].asked_as == (
        "Which strain were they?"
    )
