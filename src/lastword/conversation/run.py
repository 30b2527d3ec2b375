"""Ask a message in a conversation: the rewrite, then ``Pipeline.ask`` unchanged."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lastword.conversation.history import Turn
from lastword.conversation.rules import Corpus, CorpusView, Rewrite, standalone
from lastword.result import FollowUp, Result
from lastword.settings import Settings

if TYPE_CHECKING:
    from lastword.pipeline import Pipeline

Rewriter = Callable[[str, Sequence[Turn], Corpus | None], Rewrite]
#: one model rewriter per pipeline (its client), built on first use
_REWRITERS: weakref.WeakKeyDictionary[Any, Rewriter] = weakref.WeakKeyDictionary()


def rewriter_for(settings: Settings, owner: Any = None) -> Rewriter:
    """The rewrite ``[conversation] rewrite`` names: the rules, or a model checked by them."""
    if settings.conversation.rewrite == "rules":
        return standalone
    if owner is not None and owner in _REWRITERS:
        return _REWRITERS[owner]
    from lastword.conversation.openai_rewriter import OpenAIRewriter

    made = OpenAIRewriter(settings.generate)
    if owner is not None:
        _REWRITERS[owner] = made
    return made


def rewrite(
    message: str,
    history: Sequence[Turn],
    enabled: bool = True,
    corpus: Corpus | None = None,
    rewriter: Rewriter = standalone,
) -> Rewrite:
    """The standalone question for ``message`` (the message itself when follow-ups are off)."""
    if not enabled:
        text = " ".join(message.split())
        return Rewrite(text, text)
    return rewriter(message, history, corpus)


def ask(
    pipeline: Pipeline,
    message: str,
    history: Sequence[Turn] = (),
    *,
    scope: Any = None,
    enabled: bool | None = None,
) -> tuple[Result, Turn]:
    """Answer ``message`` after ``history``: the standalone question is what ``Pipeline.ask``
    retrieves, gates, answers and verifies; the result names it (``asked_as``) when it differs
    from the message. ``enabled`` defaults to ``[conversation] followups``. ``scope`` is handed
    to ``Pipeline.ask`` as given when set (collections and filters belong to the library, not
    here). Returns the result and this turn, to remember."""
    settings = pipeline.settings.conversation
    on = settings.followups if enabled is None else enabled
    made = rewrite(
        message,
        history,
        on,
        CorpusView.of(pipeline.store),
        rewriter_for(pipeline.settings, pipeline) if on and history else standalone,
    )
    options: dict[str, Any] = {} if scope is None else {"scope": scope}
    result = pipeline.ask(made.asked_as, **options)
    if made.followed_up:
        result = result.model_copy(
            update={
                "question": made.message,
                "asked_as": made.asked_as,
                "followup": FollowUp(
                    kind=made.kind,
                    carried=made.carried,
                    documents=made.documents,
                    method=made.method,
                ),
            }
        )
    return result, Turn.of(made.message, result, made.subject)


def replay(questions: Sequence[str], max_turns: int = 3, enabled: bool = True) -> list[Turn]:
    """The turns of a conversation known only by its earlier questions (an API ``messages``
    list): each made standalone by the rules after the ones before it, as it would have been
    asked. No retrieval runs and no earlier answer is read: the assistant's messages are never
    evidence."""
    turns: list[Turn] = []
    for question in questions:
        if not question.strip():
            continue
        made = rewrite(question, turns[-max_turns:], enabled)
        turns.append(Turn(made.message, made.asked_as, made.subject))
    return turns[-max_turns:]
