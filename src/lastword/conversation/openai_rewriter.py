"""The follow-up rewrite by a chat model behind an OpenAI-compatible API (``[conversation]
rewrite = "openai"``; the ``openai`` SDK, the ``[generate] openai_*`` server and model).

The model sees only the earlier *questions* and the new message, never an answer, and returns
one standalone question. Its output is checked before use: one line, at most ``MAX_CHARS``,
and every word of it either in the message, in an earlier question, or a function word. A
question the model invents words for, an answer, or an error falls back to the rules
(``rules.standalone``), and the result says so (``method``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace

from lastword import provider_edge
from lastword.conversation.history import Turn
from lastword.conversation.rules import Corpus, Rewrite, standalone, subject_of, words
from lastword.errors import MissingExtraError
from lastword.settings import GenerateSettings
from lastword.terms import STOPWORDS

log = logging.getLogger("lastword.conversation")
KEY_VARIABLE = "OPENAI_API_KEY"
PROVIDER = "openai"
MAX_CHARS = 600
SYSTEM = (
    "You rewrite a follow-up question so that it stands alone. You are given the earlier "
    "questions of a conversation and the new message. If the new message depends on an earlier "
    "question (a pronoun, 'and in X?', 'what about ...'), write it as one self-contained "
    "question using the earlier question's words for its subject. If it brings a new subject, "
    "return it unchanged. Use only words from the questions and the message. Reply with the "
    "question alone, on one line."
)


class OpenAIRewriter:
    def __init__(self, settings: GenerateSettings) -> None:
        try:
            import openai
        except ImportError as exc:
            raise MissingExtraError("openai", "openai") from exc
        key = provider_edge.api_key(
            KEY_VARIABLE, PROVIDER, keyless_url=settings.openai_url, hint=""
        )
        self._sdk = openai
        self._model = settings.openai_model
        self._client = openai.OpenAI(
            api_key=key,
            base_url=settings.openai_url,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )

    def __call__(
        self, message: str, history: Sequence[Turn], corpus: Corpus | None = None
    ) -> Rewrite:
        rules = standalone(message, history, corpus)
        if not history:
            return rules
        earlier = "\n".join(f"- {turn.asked_as}" for turn in history)
        try:
            completion = self._client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": SYSTEM},
                    {
                        "role": "user",
                        "content": f"Earlier questions:\n{earlier}\n\nNew message: {message}",
                    },
                ],
                temperature=0,
                max_tokens=200,
            )
            text = (completion.choices[0].message.content or "").strip()
        except (self._sdk.APIError, IndexError) as exc:
            log.warning("the model rewrite failed (%s); the rules decide", type(exc).__name__)
            return replace(rules, method="rules (model failed)")
        problem = check(text, message, history)
        if problem is not None:
            log.info("the model's rewrite was rejected (%s); the rules decide", problem)
            return replace(rules, method=f"rules (model output rejected: {problem})")
        asked = " ".join(text.split())
        if asked.casefold() == " ".join(message.split()).casefold():
            return Rewrite(rules.message, rules.message, method="openai", subject=rules.subject)
        known = {w.lower() for w in words(message)}
        carried = tuple(w for w in subject_of(asked) if w.lower() not in known)
        return Rewrite(
            rules.message,
            asked,
            "model",
            carried,
            history[-1].documents,
            subject_of(asked),
            method="openai",
        )


def check(text: str, message: str, history: Sequence[Turn]) -> str | None:
    """Why the model's rewrite cannot be used, or None: it must be one question of at most
    ``MAX_CHARS`` whose words all come from the message, the earlier questions or the function
    words (so it can carry nothing else: no answer, no invention)."""
    if not text or "\n" in text.strip():
        return "not one line"
    if len(text) > MAX_CHARS:
        return "too long"
    allowed = {w.lower() for source in (message, *(t.asked_as for t in history))
               for w in words(source)}  # fmt: skip
    new = [
        w for w in words(text)
        if w.lower() not in allowed and w.lower() not in STOPWORDS and not re.fullmatch(r"\d+", w)
    ]  # fmt: skip
    return f"words not asked: {', '.join(new[:5])}" if new else None
