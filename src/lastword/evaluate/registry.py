"""Where eval runs are: a list of results files made outside the web app, kept in the state
folder, so the web Evaluation page shows runs made with ``lastword eval run`` too.

One JSON line per run (``{"path": ABSOLUTE, "at": UNIX TIME}``), appended; a file that has
since been moved or deleted is skipped when the list is read.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

REGISTRY_NAME = "runs.jsonl"


def registry_path(state_dir: Path) -> Path:
    return Path(state_dir) / "evals" / REGISTRY_NAME


def record_run(state_dir: Path, results: Path) -> None:
    """Note a results file made by the CLI (once per path)."""
    path = str(Path(results).resolve())
    if path in {str(p) for p in recorded_runs(state_dir, existing_only=False)}:
        return
    target = registry_path(state_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"path": path, "at": time.time()}) + "\n")


def recorded_runs(state_dir: Path, existing_only: bool = True) -> list[Path]:
    """The results files noted so far, oldest first (unreadable lines are skipped)."""
    target = registry_path(state_dir)
    if not target.is_file():
        return []
    found: list[Path] = []
    for line in target.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            path = Path(json.loads(line)["path"])
        except (ValueError, KeyError, TypeError):
            continue
        if path not in found and (not existing_only or path.is_file()):
            found.append(path)
    return found
