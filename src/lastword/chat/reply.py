"""What the chat core receives and returns, independent of any chat platform."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lastword.result import Result


@dataclass(frozen=True)
class Message:
    member_id: str
    chat_id: str
    text: str
    #: whether the assistant was addressed (mentioned, replied to, or a direct chat)
    addressed: bool = True
    #: the conversation this message continues (a Matrix thread or reply chain, a terminal
    #: session); None: it stands alone and starts nothing (``lastword.conversation``)
    thread: str | None = None
    #: names the platform knows stand for people in ``text`` (the bot's localpart and display
    #: name, a mentioned colleague's display name): removed from any outbound query
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reply:
    text: str
    #: minted by the application from declared results; None for refusals and failures
    source_line: str | None
    result: Result
    #: "answered", or the failure / refusal kind (persona.Failure, persona.Decline values)
    outcome: str
    #: the exact query that left the machine, when one did
    outbound_query: str | None = None
    #: added when a web answer states a number taken from a search preview
    warning: str | None = None
    #: a lookup the model asked for on its own, refused and logged
    refused_lookup: str | None = None

    @property
    def asked_as(self) -> str | None:
        """A follow-up's standalone question, shown before the answer."""
        return f"(Asked as: {self.result.asked_as})" if self.result.asked_as else None

    def render(self) -> str:
        """The chat message as posted: "asked as", answer, the warning, the source line."""
        parts = (self.asked_as, self.text, self.warning, self.source_line)
        return "\n\n".join(part for part in parts if part)

    def record(self) -> dict[str, Any]:
        """One JSON-able line for ``lastword chat --json``."""
        return {
            "text": self.text,
            "source_line": self.source_line,
            "warning": self.warning,
            "status": self.result.status.value,
            "decided_by": self.result.decided_by.value if self.result.decided_by else None,
            "outcome": self.outcome,
            "outbound_query": self.outbound_query,
            "asked_as": self.result.asked_as,
            "refused_lookup": self.refused_lookup,
            "citations": list(self.result.citations),
            "declared": list(self.result.declared) if self.result.declared is not None else None,
        }
