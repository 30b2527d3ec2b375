"""The persona: name, tone, and the lines it says when it does not answer.

Every line comes from settings (``[chat]``), so an operator can edit each one. The six failure
lines are distinct kinds, never merged: the member can tell which step stopped the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from lastword.settings import ChatSettings


class Failure(StrEnum):
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    ZERO_RESULTS = "zero_results"
    BELOW_FLOOR = "below_floor"
    EMBEDDER_DOWN = "embedder_down"
    MODEL_FAILED = "model_failed"
    GATE_REFUSED = "gate_refused"


class Decline(StrEnum):
    """Refusals that are not failures: the system chose not to answer."""

    NO_EVIDENCE = "no_evidence"
    UNVERIFIED = "unverified"
    RATE_LIMITED = "rate_limited"
    NO_KEY = "no_key"
    EMPTY_QUERY = "empty_query"
    JOINED_QUERY = "joined_query"


@dataclass(frozen=True)
class Persona:
    name: str
    tone: str
    lines: dict[str, str]

    @classmethod
    def from_settings(cls, settings: ChatSettings) -> Persona:
        lines = {kind.value: getattr(settings, f"{kind.value}_line") for kind in Failure}
        lines.update({kind.value: getattr(settings, f"{kind.value}_line") for kind in Decline})
        return cls(name=settings.persona_name, tone=settings.persona_tone, lines=lines)

    def say(self, kind: Failure | Decline) -> str:
        return self.lines[kind.value]
