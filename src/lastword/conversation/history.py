"""What a conversation remembers of its earlier turns: questions and cited documents, no answers."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from lastword.result import Result, Status


@dataclass(frozen=True)
class Turn:
    """One earlier turn: the message as written, the standalone question it was asked as, its
    subject terms (carried by a later follow-up) and the documents its answer cited (when it
    cited none: the top retrieved one, to tell whether a short follow-up is about it)."""

    message: str
    asked_as: str
    subject: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()
    answered: bool = False
    #: the titles of ``documents``: the words a paper is known by
    titles: tuple[str, ...] = ()

    @classmethod
    def of(cls, message: str, result: Result, subject: tuple[str, ...] = ()) -> Turn:
        cited = {p.n: p.doc_id for p in result.passages}
        documents = tuple(dict.fromkeys(cited[n] for n in result.citations if n in cited))
        if not documents and result.passages:
            documents = (result.passages[0].doc_id,)
        titles = {p.doc_id: p.title for p in result.passages}
        return cls(
            message=message,
            asked_as=result.asked_as or result.question,
            subject=subject,
            documents=documents,
            answered=result.status is Status.ANSWERED,
            titles=tuple(titles[d] for d in documents if titles.get(d)),
        )


class Conversation:
    """The last ``max_turns`` turns of one thread (a Matrix thread, a terminal session...)."""

    def __init__(self, max_turns: int = 3) -> None:
        self.turns: deque[Turn] = deque(maxlen=max(1, max_turns))

    def add(self, turn: Turn) -> None:
        self.turns.append(turn)

    def history(self) -> tuple[Turn, ...]:
        return tuple(self.turns)

    def clear(self) -> None:
        self.turns.clear()
