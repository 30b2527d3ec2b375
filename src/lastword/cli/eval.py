"""Evaluation commands: ``lastword eval run | report | calibrate | dataset | retrieval``.

Registered by ``lastword.cli`` as ``app.add_typer(eval_app, name="eval")``.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from lastword.cli.app import console, err_console, index_dir, safe, state
from lastword.errors import InputError

if TYPE_CHECKING:
    from lastword.evaluate.records import ItemRecord, Results

eval_app = typer.Typer(
    name="eval",
    help="Evaluate the system on an eval set: run it, report it, calibrate the gate.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _register_fit() -> None:
    from lastword.cli.fit import fit_app

    eval_app.add_typer(fit_app, name="fit")


_register_fit()


@eval_app.command("run")
def run_command(
    evalset: Annotated[Path, typer.Argument(help="Eval set (.yaml or .jsonl).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Results file to write (JSON).")],
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", "-g", help="extractive, anthropic, openai or llamacpp."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(help="Reuse finished items of an interrupted run of the same set."),
    ] = True,
) -> None:
    """Run every item through the same pipeline as `ask`, grade it, and write one JSON file."""
    from lastword.evaluate.evalset import load_evalset
    from lastword.evaluate.runner import run_evalset
    from lastword.pipeline import Pipeline

    loaded = load_evalset(evalset)
    settings = state.settings
    target = index_dir(index)
    with Pipeline.open(settings, target, generator=generator) as pipeline:
        err_console.print(
            f"{len(loaded.items)} items ({len(loaded.traps)} traps, "
            f"{len(loaded.scenarios)} scenarios) on {target} with "
            f"{pipeline.index_info.embedder.describe()}, generator {pipeline.generator_name}"
        )
        progress = Progress(
            TextColumn("[bold]evaluating"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
        )
        failures = 0
        with progress:
            task = progress.add_task("eval", total=len(loaded.items), status="")

            def advance(done: int, total: int, record: ItemRecord) -> None:
                nonlocal failures
                failures += record.passed is False
                progress.update(task, completed=done, status=f"{failures} failing")

            document = run_evalset(
                pipeline, loaded, settings, out, index_path=target, resume=resume, on_item=advance
            )
    from lastword.evaluate.registry import record_run
    from lastword.statedir import state_dir

    record_run(state_dir(settings), out)  # the web Evaluation page lists it too
    _print_run_summary(document, out)


class RetrieveMode(StrEnum):
    hybrid = "hybrid"
    dense = "dense"
    lexical = "lexical"


@eval_app.command("retrieval")
def retrieval_command(
    qrels: Annotated[
        Path, typer.Argument(help="Relevance file, BEIR qrels TSV: query-id, corpus-id, score.")
    ],
    queries: Annotated[
        Path,
        typer.Option("--queries", "-q", help="BEIR queries.jsonl ({_id, text}) or id<TAB>text."),
    ],
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    mode: Annotated[
        RetrieveMode | None,
        typer.Option("--mode", help="Retrieval mode. Default: \\[retrieve] mode in settings."),
    ] = None,
    depth: Annotated[
        int, typer.Option("--k", min=10, max=1000, help="Documents ranked per query (recall@k).")
    ] = 100,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Also write the scores and rankings (JSON).")
    ] = None,
) -> None:
    """Score retrieval against relevance judgements: nDCG@10, recall@10 and @k, MRR.

    A corpus-id may be the document's id, the id its JSONL record carried, its file name or
    its title. Retrieval only: no gate, no model.
    """
    from lastword.evaluate.retrieval import (
        document_aliases,
        evaluate_retrieval,
        load_qrels,
        load_queries,
    )
    from lastword.pipeline import Pipeline
    from lastword.retrieve import retrieve

    judged, texts = load_qrels(qrels), load_queries(queries)
    settings = state.settings
    chosen = mode.value if mode else settings.retrieve.mode
    target = index_dir(index)
    with Pipeline.open(settings, target) as pipeline:
        aliases = document_aliases(pipeline.store.documents())

        def search(question: str) -> list[str]:
            # Passages, several per document: ask deep enough for ``depth`` documents.
            found = retrieve(
                question,
                pipeline.embedder,
                pipeline.store,
                depth * 3,
                mode=chosen,
                tuning=pipeline.retrieve_tuning,
            )
            return [p.doc_id for p in found.passages]

        result = evaluate_retrieval(texts, judged, search, aliases, chosen, (10, depth))
    scores = result.scores.as_dict()
    table = Table(title=f"retrieval on {target} ({chosen})")
    for name in scores:
        table.add_column(name, justify="right")
    table.add_row(*(str(v) for v in scores.values()))
    console.print(table)
    if result.unknown_documents:
        err_console.print(
            f"{result.unknown_documents} judged document(s) are not in the index "
            "(counted as misses)"
        )
    if out is not None:
        from lastword.atomic import replacing

        document = {
            "mode": chosen,
            "index": str(target),
            "scores": scores,
            "unknown_documents": result.unknown_documents,
            "rankings": result.rankings,
        }
        with replacing(out) as handle:
            handle.write(json.dumps(document, indent=2))
        console.print(f"written to [bold]{safe(out)}[/]")


def _print_run_summary(document: Results, out: Path) -> None:
    from lastword.evaluate import summary

    head = summary.headline(document)
    run = document.run
    if run.resumed_items:
        console.print(f"resumed {run.resumed_items} finished item(s) from an interrupted run")
    console.print(
        f"traps declined {head.traps_declined}/{head.traps}, answered without the bait "
        f"(sidestepped) {head.traps_sidestepped}, fooled {head.traps_fooled}; scenarios strong "
        f"{head.scenario_grades['strong']}, adequate {head.scenario_grades['adequate']}, weak "
        f"{head.scenario_grades['weak']}, refused {head.scenario_grades['refused']}, blocked "
        f"{head.scenario_grades['blocked']} (of {head.scenarios}); phantoms {head.phantoms}",
        soft_wrap=True,
    )
    console.print(
        f"results written to [bold]{out}[/] ({run.mean_ms_per_item} ms per item)",
        soft_wrap=True,
    )


@eval_app.command("report")
def report_command(
    results: Annotated[Path, typer.Argument(help="Results file written by `eval run`.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for index.html, report.md, PNGs.")
    ],
    target_far: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="False-accept target for the threshold row.")
    ] = 0.05,
) -> None:
    """Build a static HTML page and a Markdown twin from a results file alone."""
    from lastword.evaluate.report import build_report

    files = build_report(results, out, target_far=target_far)
    console.print(f"wrote {safe(files.html)} and {safe(files.markdown)}", soft_wrap=True)
    for image in files.images:
        console.print(f"wrote {safe(image)}", soft_wrap=True)


class NegativeSet(StrEnum):
    gate = "gate"
    all = "all"


@eval_app.command("calibrate")
def calibrate_command(
    results: Annotated[Path, typer.Argument(help="Results file written by `eval run`.")],
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Store the chosen thresholds in the settings file for this embedder."
        ),
    ] = False,
    target_far: Annotated[
        float,
        typer.Option(min=0.0, max=1.0, help="Target false-accept rate for the weak threshold."),
    ] = 0.05,
    score: Annotated[
        str,
        typer.Option(
            help="Score column inside each result: gate.score (what the gate reads), "
            "top_score, gate.margin, gate.coverage, gate.maxsim."
        ),
    ] = "gate.score",
    negatives: Annotated[
        NegativeSet,
        typer.Option(help="gate: traps assigned to the retrieval gate; all: every trap."),
    ] = NegativeSet.gate,
    refit: Annotated[
        bool,
        typer.Option(
            "--refit",
            help="Refit the gate model's weights on these items' recorded signals first "
            "(for a corpus unlike PubMedQA); --write then stores the new model too.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """ROC AUC, false-accept rate, zero-false-accept point and a target threshold, with
    intervals; --write stores weak (target) and strong (zero false accepts) thresholds."""
    from lastword.evaluate.calibrate import calibrate, write_thresholds
    from lastword.evaluate.records import load_results
    from lastword.evaluate.refit import refit_gate_model
    from lastword.evaluate.report import calibration_rows

    document = load_results(results)
    model = refit_gate_model(document.items, negatives.value) if refit else None
    cal = calibrate(
        document, column=score, negatives=negatives.value, target_far=target_far, refit=model
    )
    if as_json:
        sys.stdout.write(json.dumps(cal.to_json(), indent=2) + "\n")
    else:
        table = Table(title=f"gate calibration from {results.name}", title_justify="left")
        table.add_column("figure")
        table.add_column("value")
        for label, value in calibration_rows(cal):
            table.add_row(label, value)
        console.print(table)
        for note in cal.notes:
            console.print(f"[yellow]note:[/] {safe(note)}", soft_wrap=True)
    if not write:
        return
    strong, weak = cal.chosen()
    from lastword.settings import DEFAULT_CONFIG_NAME, resolve_config_path

    config = resolve_config_path(state.config) or Path(DEFAULT_CONFIG_NAME)
    date = datetime.now(UTC).date().isoformat()
    if cal.refit is not None:
        stored = cal.refit.model_dump()
    else:
        # The model the run's gate scored with (that of the ranking it ran), not the settings'
        # table, which holds the dense ranking's model.
        model = document.run.thresholds.model
        stored = model.model_dump() if model is not None else None
    write_thresholds(
        config, cal.embedder, strong, weak, cal.evidence(results.name, date), model=stored
    )
    err_console.print(
        f"wrote [gate.thresholds.{cal.embedder}] strong = {strong:.4f}, weak = {weak:.4f} "
        + ("and the refitted model " if cal.refit is not None else "")
        + f"to {config}",
        soft_wrap=True,
    )


class DatasetName(StrEnum):
    pubmedqa = "pubmedqa"
    scifact = "scifact"
    titles = "titles"


@eval_app.command("dataset")
def dataset_command(
    name: Annotated[
        DatasetName,
        typer.Argument(help="pubmedqa, scifact, or titles (your own index's document titles)."),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for corpus.jsonl and evalset.jsonl.")
    ],
    data: Annotated[
        Path | None,
        typer.Option(help="The data set's folder. Default: $LASTWORD_DATASETS/<name>."),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(help="pubmedqa: dev or test (default test); scifact: dev or train (dev)."),
    ] = None,
    ablate: Annotated[
        bool, typer.Option("--ablate", help="Add each question again as a trap, its paper removed.")
    ] = False,
    index: Annotated[
        Path | None,
        typer.Option(
            "--index", "-i", help="titles: the index whose titles to use. Default: \\[index] path."
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option(min=1, help="titles: at most this many documents, sampled.")
    ] = 300,
    seed: Annotated[int, typer.Option(help="titles: the sample's random seed.")] = 0,
) -> None:
    """Build a corpus JSONL and an eval set from PubMedQA PQA-L or SciFact, or a label-free
    eval set from an index's own titles (each asked with and without its document)."""
    from lastword.evaluate.datasets import default_data_dir

    if name is DatasetName.titles:
        _title_set(index, out, limit, seed, stray=data is not None or split is not None)
        return
    folder = data or default_data_dir(name.value)
    if folder is None:
        raise InputError(f"no data folder for {name.value}: pass --data DIR")
    if name is DatasetName.pubmedqa:
        from lastword.evaluate.datasets.pubmedqa import build_pubmedqa

        built = build_pubmedqa(folder, split or "test", ablate, out)  # type: ignore[arg-type]
    else:
        from lastword.evaluate.datasets.scifact import build_scifact

        built = build_scifact(folder, split or "dev", ablate, out)  # type: ignore[arg-type]
    console.print(
        f"wrote {built.corpus} ({built.documents} documents) and {built.evalset} "
        f"({built.scenarios} scenarios, {built.traps} traps)",
        soft_wrap=True,
    )
    console.print(
        f"next: lastword ingest {built.corpus} --index INDEX && "
        f"lastword eval run {built.evalset} --index INDEX --out results.json",
        soft_wrap=True,
    )


def _title_set(index: Path | None, out: Path, limit: int, seed: int, stray: bool) -> None:
    """``eval dataset titles``: write OUT/evalset.jsonl from the index's document titles."""
    from lastword.evaluate.datasets.titles import build_title_set
    from lastword.store.open import open_store

    if stray:
        raise InputError("--data and --split are for pubmedqa and scifact; titles reads --index")
    index = index_dir(index)
    evalset = out / "evalset.jsonl"
    with open_store(state.settings, index) as store:
        used, total = build_title_set(store, evalset, limit, seed)
        embedder = store.info().embedder.name
    # An embedder with a fitted gate model needs thresholds only; a cosine-only one gains a
    # combined gate from --refit (measured on SciFact: docs/calibration.md).
    known = state.settings.gate.thresholds.get(embedder)
    refit = "" if known is not None and known.model is not None else " --refit"
    console.print(
        f"wrote {evalset} ({used} of {total} documents' titles: {used} scenarios, "
        f"{used} traps with the document excluded)",
        soft_wrap=True,
    )
    console.print(
        f"next: lastword eval run {evalset} --index {index} --out results.json && "
        f"lastword eval calibrate results.json{refit} --target-far 0.02 --write",
        soft_wrap=True,
    )
