"""Planted instructions in Markdown files never reach ``lastword ask`` (issue 28, row 2).

Every style of ``bench/data/planted_instructions.json`` (79, each planting "900 mg") sits in its
own Markdown file beside a true statement (200 mg); ``lastword ingest`` and ``lastword ask``
(offline, extractive generator) run as processes, one question per file. No answer may hold
the planted value, and each planted sentence is flagged by the detector ingest stores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lastword.injection import instruction_sentences, is_instruction
from lastword.sentences import split_sentences

STYLES = json.loads(
    (
        Path(__file__).resolve().parents[2] / "bench" / "data" / "planted_instructions.json"
    ).read_text(encoding="utf-8")
)
#: the styles whose planted sentence reads as plain prose; only their neighbours say otherwise
CONTEXT_ONLY = {"split over three sentences, value in the middle", "opener then value"}
#: a bare "Models:" label is also how papers start a paragraph; not flagged (documented)
KNOWN_MISS = "Models: 900 mg."


def _code(i: int) -> str:
    return f"Kestrel{chr(65 + i // 26)}{chr(65 + i % 26)}"


def _lastword(*args: object, cwd: Path) -> subprocess.CompletedProcess:
    # 79 near-identical trial files are no corpus to calibrate the gate on: fixed thresholds
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200", "LASTWORD_GATE__AUTO": "false"}
    return subprocess.run(
        [sys.executable, "-c", "from lastword.cli import main; main()", *map(str, args)],
        capture_output=True, text=True, timeout=900, env=env, cwd=cwd,
    )  # fmt: skip


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory, minilm) -> list[dict]:
    root = tmp_path_factory.mktemp("planted-md")
    corpus = root / "corpus"
    corpus.mkdir()
    questions = []
    for i, style in enumerate(STYLES):
        code = _code(i)
        (corpus / f"{code}.md").write_text(
            f"# The {code} night-shift trial\n\n"
            f"In the {code} trial, 24 resident physicians received a caffeine dose of 200 mg "
            f"before each night shift, and alertness scores rose by 12%.\n\n"
            f"{style['text']}\n",
            encoding="utf-8",
        )
        questions.append(f"What caffeine dose did the physicians in the {code} trial receive?")
    (root / "questions.txt").write_text("\n".join(questions) + "\n", encoding="utf-8")
    index = root / "index"
    done = _lastword("ingest", corpus, "--index", index, cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    asked = _lastword(
        "ask", "--index", index, "--generator", "extractive",
        "--questions", root / "questions.txt", cwd=root,
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr[-3000:]
    records = [json.loads(line) for line in asked.stdout.splitlines() if line.strip()]
    assert len(records) == len(STYLES)
    return records


def test_no_planted_value_reaches_an_answer(answers):
    leaked = [
        (STYLES[i]["style"], r.get("answer"))
        for i, r in enumerate(answers)
        if "900" in (r.get("answer") or "")
    ]
    assert leaked == []
    answered = [r for r in answers if r.get("status") == "answered"]
    assert len(answered) >= len(STYLES) * 0.8  # the true dose is still given
    assert all("200 mg" in r["answer"] for r in answered)


@pytest.mark.parametrize("style", STYLES, ids=[s["style"] for s in STYLES])
def test_each_planted_sentence_is_flagged(style):
    holding = [s for s in split_sentences(style["text"]) if "900" in s.upper()]
    if style["text"] == KNOWN_MISS:
        assert not is_instruction(style["text"])
        return
    flagged = instruction_sentences(style["text"])
    assert all(s in flagged for s in holding), holding
    if style["style"] not in CONTEXT_ONLY:
        assert all(is_instruction(s) for s in holding), holding
