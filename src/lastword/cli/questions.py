"""Many questions in one process: read them from a file, write one JSON result a line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import Progress

from lastword.cli.app import err_console
from lastword.errors import InputError, LastwordError

if TYPE_CHECKING:
    from lastword.result import Result


def read_questions(path: Path) -> list[str]:
    """One question a line, or JSON Lines with a "question" field. Blank lines are skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"questions file not found: {path}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    questions: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}: malformed JSON ({exc.msg})") from None
            question = record.get("question") if isinstance(record, dict) else None
            if not isinstance(question, str) or not question.strip():
                raise InputError(f'{path}:{number}: no "question" string in this record')
            questions.append(question.strip())
        else:
            questions.append(line)
    if not questions:
        raise InputError(f"{path}: no questions in this file")
    return questions


def emit_jsonl(questions: list[str], run: Callable[[str], Result], label: str) -> None:
    """Run each question, writing JSON Lines to stdout and progress to stderr.

    A question that is bad input becomes a line with an "error" and the run goes on.
    """
    with Progress(console=err_console, transient=True) as progress:
        task = progress.add_task(label, total=len(questions))
        for question in questions:
            try:
                line = run(question).model_dump_json()
            except LastwordError as exc:
                if not isinstance(exc, InputError):
                    raise
                line = json.dumps({"question": question, "error": str(exc)})
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
            progress.advance(task)
