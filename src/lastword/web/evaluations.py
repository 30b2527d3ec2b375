"""Eval runs from the web: the sets on offer, runs in the background, their reports.

Results files live in the evals folder as ``<set>-<UTC time>.json``; each report is built by the
eval issue's ``build_report`` into a folder of the same stem, on first view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from lastword.errors import InputError
from lastword.web.errors import WebError
from lastword.web.jobs import Job
from lastword.web.server_state import ServerState

_RUN_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
EVALSET_SUFFIXES = (".yaml", ".yml", ".jsonl")


@dataclass(frozen=True)
class RunFile:
    name: str  # the stem: also the report folder and the URL segment
    path: Path
    modified: float


def shipped_evalsets_dir() -> Path:
    return Path(str(resources.files("lastword") / "data" / "evalsets"))


def evalsets(state: ServerState) -> dict[str, Path]:
    """Eval sets by file name: the shipped ones, then the operator's (which win on a clash)."""
    found: dict[str, Path] = {}
    for folder in (
        shipped_evalsets_dir(),
        state.config.state_dir / "evalsets",
        *state.config.evalset_dirs,
    ):
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.suffix.lower() in EVALSET_SUFFIXES and path.is_file():
                    found[path.name] = path
    return found


def runs(state: ServerState) -> list[RunFile]:
    folder = state.config.evals
    if not folder.is_dir():
        return []
    files = [
        RunFile(p.stem, p, p.stat().st_mtime)
        for p in folder.glob("*.json")
        if _RUN_NAME.match(p.stem)
    ]
    return sorted(files, key=lambda r: r.modified, reverse=True)


def run_file(state: ServerState, name: str) -> RunFile:
    if not _RUN_NAME.match(name):
        raise WebError(404, "not_found", "no such eval run")
    for run in runs(state):
        if run.name == name:
            return run
    raise WebError(404, "not_found", f"no eval run named {name}")


def report_dir(state: ServerState, run: RunFile) -> Path:
    """The report folder for a run, built now if it is missing or older than the results."""
    from lastword.evaluate.report import HTML_NAME, build_report

    out = state.config.evals / f"{run.name}.report"
    page = out / HTML_NAME
    if not page.is_file() or page.stat().st_mtime < run.modified:
        build_report(run.path, out)
    return out


def headline(run: RunFile) -> dict[str, Any] | None:
    from lastword.evaluate import summary
    from lastword.evaluate.records import load_results

    try:
        document = load_results(run.path)
    except InputError:
        return None
    head = summary.headline(document)
    return {
        "set": document.run.evalset.name,
        "date": document.run.date,
        "generator": document.run.generator,
        "items": head.items,
        "traps": head.traps,
        "traps_passed": head.traps_passed,
        "scenarios": head.scenarios,
        "strong": head.scenario_grades["strong"],
        "adequate": head.scenario_grades["adequate"],
        "phantoms": head.phantoms,
        "mean_ms": head.mean_ms,
    }


def eval_job(state: ServerState, evalset_path: Path):
    def work(job: Job) -> None:
        from lastword.evaluate.evalset import load_evalset
        from lastword.evaluate.runner import run_evalset

        loaded = load_evalset(evalset_path)
        pipeline = state.pipeline()
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", loaded.name)
        out = state.config.evals / f"{safe}-{stamp}.json"
        job.unit = "items"
        job.total = len(loaded.items)
        job.message = f"asking {len(loaded.items)} questions"

        def on_item(done: int, total: int, record: object) -> None:
            job.advance(done, total)

        run_evalset(
            pipeline, loaded, state.settings, out, index_path=state.index_dir, on_item=on_item
        )
        run = run_file(state, out.stem)
        report_dir(state, run)
        job.result = {
            "run": out.stem,
            "report": f"/evaluation/runs/{out.stem}/",
            **(headline(run) or {}),
        }
        job.message = "finished"

    return work
