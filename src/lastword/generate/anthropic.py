"""Claude through the Anthropic Messages API (the ``anthropic`` SDK, optional extra ``anthropic``).

The key comes from ``ANTHROPIC_API_KEY``; ``generate.anthropic_url`` points the SDK elsewhere
(a proxy, or the local wire-format server the tests use). The SDK retries 429/5xx itself
(``generate.max_retries``, honouring ``retry-after``); what is left after that becomes one of
our ``ProviderError``s. Sampling parameters are not sent: API version 2026-10-21, which the
2.x SDK speaks, rejects ``temperature`` for every model.
"""

from __future__ import annotations

from typing import Any

from lastword import provider_edge
from lastword.errors import (
    MissingExtraError,
    ProviderError,
    ProviderRefused,
)
from lastword.generate.pricing import estimate_cost_usd
from lastword.generate.prompt import build_prompt, finish_draft
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.result import Usage
from lastword.settings import GenerateSettings

KEY_VARIABLE = "ANTHROPIC_API_KEY"
PROVIDER = "anthropic"


class AnthropicGenerator:
    """Writes the draft with a Claude model; one ``messages.create`` call per question."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        max_tokens: int = 800,
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise MissingExtraError("anthropic", "anthropic") from exc
        key = provider_edge.api_key(KEY_VARIABLE, PROVIDER, given=api_key)
        self._sdk = anthropic
        self._key = key
        self._model = model
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries
        )

    @classmethod
    def from_settings(cls, settings: GenerateSettings) -> AnthropicGenerator:
        return cls(
            settings.anthropic_model,
            base_url=settings.anthropic_url,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            max_tokens=settings.max_tokens,
        )

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> str:
        return self._model

    def generate(self, request: GenerationRequest) -> Draft:
        prompt = build_prompt(request)
        try:
            message = self._client.messages.create(
                model=self._model,
                max_tokens=self._max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
            )
        except self._sdk.APIError as exc:
            raise self._wrap(exc) from exc
        if message.stop_reason == "refusal":
            raise ProviderRefused("Claude declined to answer (stop_reason: refusal)", PROVIDER)
        text = "".join(
            block.text for block in message.content if getattr(block, "type", "") == "text"
        )
        return finish_draft(text, request, self._usage(message))

    def _usage(self, message: Any) -> Usage:
        model = message.model or self._model
        input_tokens = message.usage.input_tokens or 0
        output_tokens = message.usage.output_tokens or 0
        return Usage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            model=model,
            cost_usd=estimate_cost_usd(model, input_tokens, output_tokens),
        )

    def _wrap(self, exc: Exception) -> ProviderError:
        return provider_edge.wrap_sdk_error(
            self._sdk,
            exc,
            provider=PROVIDER,
            key=self._key,
            key_variable=KEY_VARIABLE,
            timeout_s=self._timeout_s,
            where="the Anthropic API",
        )
