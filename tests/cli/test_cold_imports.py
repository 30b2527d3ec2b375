"""A cold CLI pays only for what its command uses (timings: bench/cold_start.py)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "numpy",
    "onnxruntime",
    "torch",
    "sentence_transformers",
    "httpx",
    "fastapi",
    "openai",
    "anthropic",
    "voyageai",
    "matplotlib",
    "lastword.pipeline",
    "lastword.ingest",
    "lastword.chat",
    "lastword.websearch",
    "lastword.settings",  # pydantic models: loaded by the commands that read settings
    "lastword.result",
    "pydantic",
)


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return eval(out.stdout.strip().splitlines()[-1])  # the last line: --help prints first


def test_importing_the_cli_loads_no_model_runtime_sdk_or_pipeline() -> None:
    assert loaded_after("import lastword.cli") == []


def test_help_loads_none_of_them_either() -> None:
    code = (
        "import sys\nfrom lastword.cli import app\n"
        "try:\n    app(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass"
    )
    assert loaded_after(code) == []
