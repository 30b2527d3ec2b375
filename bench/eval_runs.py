"""Shared by the evaluation benchmarks: run an eval set through ``Pipeline.ask`` with a bar."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lastword.evaluate.evalset import EvalSet
from lastword.evaluate.runner import run_evalset
from lastword.pipeline import Pipeline
from lastword.settings import Settings

console = Console(stderr=True)


def run_items(
    settings: Settings, index: Path, evalset: EvalSet, out: Path, label: str = "asking"
) -> dict:
    """Every item through the extractive pipeline; the results document, also written to out."""
    progress = Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )
    with Pipeline.open(settings, index, generator="extractive") as pipeline, progress:
        task = progress.add_task(label, total=len(evalset.items))
        return run_evalset(
            pipeline,
            evalset,
            settings,
            out,
            index_path=index,
            on_item=lambda done, _total, _record: progress.update(task, completed=done),
        )
