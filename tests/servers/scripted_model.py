"""The "model" behind the chat wire-format servers: a plain function from the call to the text.

Tests script what the model writes (a phantom ``[9]`` of 8 passages, a bibliography number,
an invented dose, an uncited claim) and the server wraps it in the real response shape::

    def cites_beyond_the_passages(call: ModelCall) -> str:
        return f"Aspirin helps [1]. It is also cheap [{len(call.passages) + 1}]."

    with AnthropicAPI(model=cites_beyond_the_passages) as api: ...
    api.model = constant("The passages do not answer this question.")  # swap per test

``ModelCall`` hands the scripted model what a real one would read: the system prompt, the
messages, and (parsed back out of lastword's prompt) the numbered passages and the question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_PASSAGE = re.compile(r'<passage n="(\d+)"(?P<attrs>[^>]*)>\n?(?P<body>.*?)\n?</passage>', re.S)
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class ModelCall:
    """One chat request as the model sees it."""

    model: str
    system: str
    #: ``{"role": ..., "content": <text>}`` in order, content blocks joined into text
    messages: tuple[dict[str, str], ...]
    body: dict[str, Any] = field(repr=False)

    @property
    def user(self) -> str:
        """The last user message."""
        for message in reversed(self.messages):
            if message["role"] == "user":
                return message["content"]
        return ""

    @property
    def passages(self) -> dict[int, str]:
        """Passage number -> text, as lastword's prompt showed them (neutralised)."""
        return {int(m.group(1)): m.group("body") for m in _PASSAGE.finditer(self.user)}

    @property
    def passage_attributes(self) -> dict[int, dict[str, str]]:
        """Passage number -> its delimiter attributes (title, page, url)."""
        return {
            int(m.group(1)): dict(_ATTRIBUTE.findall(m.group("attrs")))
            for m in _PASSAGE.finditer(self.user)
        }

    @property
    def question(self) -> str:
        _, _, question = self.user.rpartition("Question:")
        return question.strip()


ScriptedModel = Callable[[ModelCall], str]


def constant(text: str) -> ScriptedModel:
    """A model that always writes ``text``."""
    return lambda call: text


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def quotes_passages(count: int = 2) -> ScriptedModel:
    """A well-behaved model: the first sentence of each of the first ``count`` passages, each
    cited with its own number (and ``USED:`` for web prompts)."""

    def model(call: ModelCall) -> str:
        chosen = sorted(call.passages.items())[:count]
        if not chosen:
            return "The passages do not answer this question."
        text = " ".join(f"{first_sentence(body).rstrip('.')} [{n}]." for n, body in chosen)
        if "USED:" in call.system:
            text += "\nUSED: " + ", ".join(str(n) for n, _ in chosen)
        return text

    return model


def estimate_tokens(text: str) -> int:
    """A stable stand-in for a tokenizer (about 4 characters a token), never zero."""
    return max(1, (len(text) + 3) // 4)
