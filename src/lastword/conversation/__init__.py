"""Conversations: a follow-up made standalone before retrieval, then asked through ``Pipeline.ask``.

``standalone(message, history)`` decides whether a message leans on the earlier turns (a
pronoun, "and in X?", "what about ...", "the same for ...", no subject of its own) and, if so,
writes the standalone question that is retrieved, gated, answered and shown ("asked as: ...").
``ask(pipeline, message, history)`` is the one way a face asks a follow-up: the rewrite, then
``Pipeline.ask`` unchanged. Only the earlier *questions* (and the documents their answers cited)
are carried, never an earlier answer's text: each turn is answered and verified on passages
retrieved for it.
"""

from lastword.conversation.history import Conversation, Turn
from lastword.conversation.rules import Rewrite, standalone
from lastword.conversation.run import ask, replay

__all__ = ["Conversation", "Rewrite", "Turn", "ask", "replay", "standalone"]
