"""Refusal values: what the user is told when the system does not answer.

A refusal never cites anything. Its message says the current corpus does not hold the answer
and points to a licensed professional or the primary source.
"""

from __future__ import annotations

from lastword.result import Refusal

_NOT_HELD = (
    "The current corpus does not hold the answer to this question, so I will not guess. "
    "Please consult the primary literature or a licensed professional."
)

MESSAGES: dict[str, str] = {
    "out_of_scope": "This question is outside the scope this corpus was set up for. " + _NOT_HELD,
    "not_in_scope": "This question does not concern the topics this corpus covers. " + _NOT_HELD,
    "empty_index": "The corpus is empty. Add documents with 'lastword ingest'.",
    "weak_retrieval": "No passage in the corpus is close enough to this question. " + _NOT_HELD,
    "generator_declined": "The passages retrieved do not answer this question. " + _NOT_HELD,
    "unsupported_answer": (
        "A draft answer was written, but none of its statements could be verified against the "
        "passages it cited, so it is withheld. " + _NOT_HELD
    ),
}


def refusal(reason: str, detail: str = "") -> Refusal:
    message = MESSAGES[reason]
    if detail:
        message = f"{message} ({detail})"
    return Refusal(reason=reason, message=message)
