"""Eval runs from the web: the sets on offer, runs in the background, their reports.

Results files of runs started here live in the evals folder as ``<set>-<UTC time>.json``; runs
made with ``lastword eval run`` are listed from the state folder's run list
(``lastword.evaluate.registry``). Each report is built by ``build_report`` into
``<evals>/<name>.report`` on first view (again when the results or the corpus change), with
links back to the app and a warning when the run was made on another corpus.
"""

from __future__ import annotations

import hashlib
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
    origin: str = "web"  # "web": started on this site; "cli": made by `lastword eval run`


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
    """Every run, newest first: those started here and those the CLI noted."""
    from lastword.evaluate.registry import recorded_runs

    folder = state.config.evals
    files: list[RunFile] = []
    if folder.is_dir():
        files = [
            RunFile(p.stem, p, p.stat().st_mtime)
            for p in folder.glob("*.json")
            if _RUN_NAME.match(p.stem)
        ]
    own = {f.path.resolve() for f in files}
    for path in recorded_runs(state.config.state_dir):
        if path.resolve() in own:
            continue
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", path.stem)
        tag = hashlib.sha256(str(path).encode()).hexdigest()[:8]
        files.append(RunFile(f"{stem}-cli-{tag}", path, path.stat().st_mtime, "cli"))
    return sorted(files, key=lambda r: r.modified, reverse=True)


def current_fingerprint(state: ServerState) -> str | None:
    return state.pipeline().index_info.fingerprint if state.has_index else None


def corpus_warning(state: ServerState, run_fingerprint: str | None) -> str | None:
    """A sentence when a run was made on another corpus than the one served now."""
    now = current_fingerprint(state)
    if not run_fingerprint or now is None or run_fingerprint == now:
        return None
    return (
        f"this run was made on another corpus (fingerprint {run_fingerprint}; the index served "
        f"now is {now}): its figures describe that corpus, not this one"
    )


def evalset_warnings(state: ServerState) -> dict[str, str]:
    """Eval sets built for another corpus: by the fingerprint an item records
    (``metadata.corpus_fingerprint``), or by the documents it names that this index lacks."""
    from lastword.evaluate.evalset import load_evalset
    from lastword.evaluate.grading import document_matches

    now = current_fingerprint(state)
    if now is None:
        return {}
    with state.open_store() as store:
        held = [(d.doc_id, d.source) for d in store.documents()]
    warnings: dict[str, str] = {}
    for name, path in evalsets(state).items():
        try:
            loaded = load_evalset(path)
        except InputError as exc:
            warnings[name] = f"unreadable: {exc}"
            continue
        fingerprints = {
            str(i.metadata["corpus_fingerprint"])
            for i in loaded.items
            if i.metadata.get("corpus_fingerprint")
        }
        if fingerprints and now not in fingerprints:
            warnings[name] = (
                f"built for another corpus (fingerprint {', '.join(sorted(fingerprints))}; "
                f"this index is {now})"
            )
            continue
        named = {d for i in loaded.items for d in (*i.expected_docs, *i.exclude_docs)}
        missing = [
            d
            for d in named
            if not any(document_matches(d, doc) or document_matches(d, src) for doc, src in held)
        ]
        if missing:
            warnings[name] = (
                f"built for another corpus: {len(missing)} of the {len(named)} documents it "
                f"names are not in this index (e.g. {sorted(missing)[0]})"
            )
    return warnings


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
    stamp = out / ".corpus"  # the index fingerprint the page's warning was written against
    now = current_fingerprint(state) or ""
    stale = not stamp.is_file() or stamp.read_text() != now
    if not page.is_file() or page.stat().st_mtime < run.modified or stale:
        head = headline(state, run)
        warning = head.get("warning") if head else None
        build_report(run.path, out, app_url="", warnings=(warning,) if warning else ())
        stamp.write_text(now)
    return out


def headline(state: ServerState, run: RunFile) -> dict[str, Any] | None:
    from lastword.evaluate import summary
    from lastword.evaluate.records import load_results

    try:
        document = load_results(run.path)
    except InputError:
        return None
    head = summary.headline(document)
    fingerprint = document.run.index.fingerprint or None
    return {
        "set": document.run.evalset.name,
        "date": document.run.date,
        "generator": document.run.generator,
        "origin": run.origin,
        "items": head.items,
        "traps": head.traps,
        "traps_declined": head.traps_declined,
        "traps_sidestepped": head.traps_sidestepped,
        "traps_fooled": head.traps_fooled,
        "scenarios": head.scenarios,
        "strong": head.scenario_grades["strong"],
        "adequate": head.scenario_grades["adequate"],
        "phantoms": head.phantoms,
        "mean_ms": head.mean_ms,
        "fingerprint": fingerprint,
        "warning": corpus_warning(state, fingerprint),
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
            **(headline(state, run) or {}),
        }
        job.message = "finished"

    return work
