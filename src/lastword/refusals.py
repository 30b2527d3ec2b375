"""Refusal values: what the user is told when the system does not answer, and why.

Each reason is named by the mechanism that decided (scope guard, retrieval gate, generator,
verifier) and its message says what actually happened, in words that fit any lab. The messages
are settings (``[refusals]`` in lastword.toml), so an operator can reword them. A refusal never
cites anything.
"""

from __future__ import annotations

from lastword.result import Refusal
from lastword.settings import RefusalSettings

#: every reason a refusal can carry, in the order the pipeline can reach them
REASONS: tuple[str, ...] = tuple(RefusalSettings.model_fields)
#: reasons decided by the verifier (the draft existed and was withheld)
VERIFIER_REASONS = frozenset({"no_citations", "unsupported_answer", "injected_answer"})

_DEFAULTS = RefusalSettings()


def refusal(reason: str, detail: str = "", messages: RefusalSettings | None = None) -> Refusal:
    """The refusal for ``reason``, worded from ``messages`` (the settings' ``[refusals]``)."""
    if reason not in REASONS:
        raise ValueError(f"unknown refusal reason {reason!r}; known: {', '.join(REASONS)}")
    message = getattr(messages or _DEFAULTS, reason)
    if detail:
        message = f"{message} ({detail})"
    return Refusal(reason=reason, message=message)


def reword(refused: Refusal, messages: RefusalSettings) -> Refusal:
    """A refusal made with the default wording (the scope guard's), in the configured words.

    The detail in brackets after the message is kept.
    """
    default = getattr(_DEFAULTS, refused.reason, None)
    if default is None or not refused.message.startswith(default):
        return refused
    configured = getattr(messages, refused.reason)
    return refused.model_copy(update={"message": configured + refused.message[len(default) :]})
