"""Chat models behind an OpenAI-compatible API (the ``openai`` SDK, optional extra ``openai``).

``generate.openai_url`` None means OpenAI itself, which needs ``OPENAI_API_KEY``. Any other
URL is taken for a server of the same wire format (Ollama, vLLM, llama.cpp's server...):
those usually want no key, so a placeholder is sent when the variable is unset. The SDK
retries 429/5xx itself (``generate.max_retries``, honouring ``retry-after``).
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

KEY_VARIABLE = "OPENAI_API_KEY"
PROVIDER = "openai"


class OpenAIGenerator:
    """Writes the draft with one ``chat.completions.create`` call per question."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        max_tokens: int = 800,
        temperature: float = 0.0,
    ) -> None:
        try:
            import openai
        except ImportError as exc:
            raise MissingExtraError("openai", "openai") from exc
        key = provider_edge.api_key(
            KEY_VARIABLE,
            PROVIDER,
            given=api_key,
            keyless_url=base_url,
            hint=" (or set generate.openai_url to a local OpenAI-compatible server)",
        )
        self._sdk = openai
        self._key = key
        self._model = model
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries
        )

    @classmethod
    def from_settings(cls, settings: GenerateSettings) -> OpenAIGenerator:
        return cls(
            settings.openai_model,
            base_url=settings.openai_url,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
        )

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> str:
        return self._model

    def generate(self, request: GenerationRequest) -> Draft:
        prompt = build_prompt(request)
        # OpenAI itself has replaced max_tokens with max_completion_tokens (its reasoning
        # models reject the old name); compatible servers mostly know only max_tokens.
        limit = "max_completion_tokens" if self._base_url is None else "max_tokens"
        try:
            completion = self._client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                temperature=self._temperature,
                **{limit: self._max_tokens},
            )
        except self._sdk.APIError as exc:
            raise self._wrap(exc) from exc
        if not completion.choices:
            raise ProviderError("the response held no choices", PROVIDER)
        choice = completion.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            raise ProviderRefused(f"the model declined to answer: {refusal}", PROVIDER)
        if choice.finish_reason == "content_filter":
            raise ProviderRefused("the content filter stopped the answer", PROVIDER)
        return finish_draft(choice.message.content or "", request, self._usage(completion))

    def _usage(self, completion: Any) -> Usage | None:
        usage = completion.usage
        if usage is None:  # some compatible servers leave it out
            return None
        model = completion.model or self._model
        input_tokens = usage.prompt_tokens or 0
        output_tokens = usage.completion_tokens or 0
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
            where=self._base_url or "the OpenAI API",
            keyless_url=self._base_url,
        )
