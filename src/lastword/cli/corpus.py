"""Corpus commands: ingest, inspect, sources."""

from __future__ import annotations

import sys
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

from lastword.cli.app import app, console, err_console, index_dir, preload_embedder, safe, state
from lastword.cli.filters import AuthorFilter, CollectionFilter, DocFilter, TagFilter, YearFilter
from lastword.cli.questions import emit_jsonl, read_questions

# The library is imported inside each command: `lastword --help` and `sources` need none of
# the embedding, gate or ingest modules (bench/cold_start.py).
if TYPE_CHECKING:
    from lastword.ingest import IngestReport
    from lastword.settings import Settings
    from lastword.store.protocol import Store

IndexOption = Annotated[
    Path | None,
    typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
]


def rate_text(done: int, elapsed_s: float) -> str:
    """Passages per second for the bar; a slow start (the model loading) is not shown as 0/s."""
    if not elapsed_s:
        return ""
    rate = done / elapsed_s
    return f"{rate:.0f}/s" if rate >= 10 else f"{rate:.2g}/s"


class _RichProgress:
    """A progress bar with counts, rate and time left, on stderr (stdout stays clean)."""

    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("[bold]embedding"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("passages"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err_console,
            transient=False,
        )
        self._task = None
        self._done = 0
        self._ocr: Progress | None = None
        self._ocr_tasks: dict[str, object] = {}

    def start(self, total_passages: int, documents: int) -> None:
        if self._ocr is not None:  # every file is read (and OCR'd) before embedding starts
            self._ocr.stop()
            self._ocr, self._ocr_tasks = None, {}
        if total_passages:
            err_console.print(f"{documents} document(s) to embed, {total_passages} passages")
        elif documents:  # on Ray the passages are counted as the workers chunk them
            err_console.print(f"{documents} file(s) to read, chunk and embed on the cluster")
        if total_passages or documents:
            self._progress.start()
            self._task = self._progress.add_task("embed", total=total_passages or None, rate="")

    def advance(self, passages: int) -> None:
        if self._task is not None:
            self._done += passages
            elapsed = self._progress.tasks[0].elapsed or 0.0
            rate = rate_text(self._done, elapsed)
            self._progress.update(self._task, advance=passages, rate=rate)

    def finish(self) -> None:
        if self._task is not None:
            self._progress.stop()
        if self._ocr is not None:
            self._ocr.stop()

    def ocr_page(self, source: str, done: int, total: int) -> None:
        """A bar per PDF read by OCR: its pages as they are read."""
        if self._ocr is None:
            self._ocr = Progress(
                TextColumn("[bold]OCR"),
                TextColumn("{task.fields[name]}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("pages"),
                TimeElapsedColumn(),
                console=err_console,
                transient=False,
            )
            self._ocr.start()
        if source not in self._ocr_tasks:
            name = Path(source).name
            self._ocr_tasks[source] = self._ocr.add_task("ocr", total=total, name=name)
        self._ocr.update(self._ocr_tasks[source], completed=done)


def _print_report(report: IngestReport) -> None:
    # File names and JSONL ids are the user's data: every one goes through ``safe`` (no
    # terminal escape, no rich markup reaches the terminal)
    def names(items: list[str]) -> str:
        shown = ", ".join(safe(Path(i).name if "/" in i else i) for i in items[:5])
        return shown + (f" and {len(items) - 5} more" if len(items) > 5 else "")

    for label, items, colour in (
        ("added", report.added, "green"),
        ("replaced", report.replaced, "yellow"),
        ("skipped (unchanged)", report.skipped, "dim"),
        ("removed", report.removed, "magenta"),
    ):
        if items:
            console.print(f"[{colour}]{label}:[/] {len(items)}  [dim]{names(items)}[/]")
    for error in report.failed:
        err_console.print(f"[bold red]failed:[/] {safe(error)}", soft_wrap=True)
    for warning in report.warnings:
        err_console.print(f"[yellow]warning:[/] {safe(warning)}", soft_wrap=True)
    rate = f", {report.passages_per_second:.1f} passages/s" if report.passages_embedded else ""
    console.print(
        f"{report.passages_embedded} passages embedded in {report.seconds:.1f}s{rate}; "
        f"{len(report.failed)} file(s) or record(s) failed"
    )


@app.command()
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="PDF, .txt, .md or .jsonl files, or folders (recursive).")
    ],
    index: IndexOption = None,
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", "-e", help="minilm (default), voyage or openai."),
    ] = None,
    sync: Annotated[
        bool, typer.Option("--sync", help="Remove documents whose files are gone.")
    ] = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Read, chunk and embed on a Ray cluster: 'auto' or its ADDRESS "
            "(needs lastword\\[ray]; every node must see the files).",
        ),
    ] = None,
    ocr: Annotated[
        str | None,
        typer.Option(
            "--ocr",
            help="PDF pages read by OCR: auto (no or a broken text layer), always or never. "
            "Default: \\[ingest] ocr.",
        ),
    ] = None,
    bib: Annotated[
        Path | None,
        typer.Option(
            "--bib",
            help="The reference manager's export (.bib BibTeX/BibLaTeX, .json CSL-JSON, .ris): "
            "titles, authors, years, venues, DOIs, tags and collections; what matched is listed.",
        ),
    ] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", "-C", help="Put every file ingested in this collection."),
    ] = None,
) -> None:
    """Add, update or (with --sync) remove documents in an index. Unchanged files are skipped.
    With --bib, metadata is matched again on every run (changed entries update, nothing is
    re-embedded)."""
    from lastword.embed.for_index import embedder_for_index
    from lastword.ingest import index_embedder, ingest_paths
    from lastword.store.open import describe_location

    settings = state.settings
    if ocr is not None:
        if ocr not in ("auto", "always", "never"):
            raise typer.BadParameter("--ocr is auto, always or never")
        settings = settings.model_copy(
            update={"ingest": settings.ingest.model_copy(update={"ocr": ocr})}
        )
    target = index_dir(index)
    where = describe_location(settings, target)
    chosen = embedder_for_index(
        settings.embed, index_embedder(target, settings.store), embedder, where
    )
    console.print(f"index [bold]{safe(where)}[/] with {safe(chosen.info.describe())}")
    if ray is not None:
        if sync:
            raise typer.BadParameter("--sync runs without --ray (it reads no file)")
        from lastword.ingest.distributed import ingest_paths_ray

        embed = settings.embed.model_copy(update={"embedder": chosen.info.name})
        report = ingest_paths_ray(
            paths,
            target,
            embed,
            settings.ingest,
            address=ray,
            progress=_RichProgress(),
            store_settings=settings.store,
        )
    else:
        report = ingest_paths(
            paths,
            target,
            chosen,
            settings.ingest,
            sync=sync,
            progress=_RichProgress(),
            store_settings=settings.store,
            library=bib,
            collections=collection or (),
        )
    _print_report(report)

    if report.library is not None:
        for line in report.library.lines():
            console.print(safe(line), soft_wrap=True)
    from lastword.gate.auto import calibrate_after_ingest

    calibration = calibrate_after_ingest(settings, target, chosen)
    if calibration is not None:
        console.print(f"gate: {safe(calibration.describe())}")
    if report.failed:
        raise typer.Exit(1)


@app.command()
def recalibrate(index: IndexOption = None) -> None:
    """Calibrate the gate on an index's own titles and sentences now (ingest does it after a
    change) and store the thresholds in the index. Retrieval only: no model writes."""
    from lastword.embed.for_index import embedder_for_index
    from lastword.gate.auto import calibrate_and_store
    from lastword.store.open import open_store

    settings = state.settings
    target = index_dir(index)
    with open_store(settings, target) as reader:
        info = reader.embedder
    chosen = embedder_for_index(settings.embed, info, None, str(target))
    with open_store(settings, target, write_as=chosen.info) as store:
        calibration = calibrate_and_store(store, chosen, settings, force=True)
    assert calibration is not None
    console.print(f"gate: {safe(calibration.describe())}")
    if settings.gate.explicit(info.name):
        console.print(
            f"[yellow]the settings give [gate.thresholds.{info.name}]: those stay in use[/]"
        )


@app.command()
def inspect(
    question: Annotated[str | None, typer.Argument(help="The question.")] = None,
    index: IndexOption = None,
    k: Annotated[int | None, typer.Option("--k", "-k", min=1, max=100, help="Passages.")] = None,
    questions: Annotated[
        Path | None,
        typer.Option(
            "--questions", "-q", help="File of questions (one a line, or JSONL with 'question')."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    collection: CollectionFilter = None,
    year: YearFilter = None,
    author: AuthorFilter = None,
    tag: TagFilter = None,
    doc: DocFilter = None,
) -> None:
    """Show what retrieval finds for a question: top-k passages with scores. No generation.
    --collection, --year, --author, --tag and --doc search a part of the library only."""
    if (question is None) == (questions is None):
        raise typer.BadParameter("give a QUESTION or --questions FILE (one of them)")
    preload_embedder()
    from lastword.cli.filters import check_scope, scope_from
    from lastword.pipeline import Pipeline

    scope = scope_from(collection, year, author, tag, doc)
    with Pipeline.open(state.settings, index_dir(index)) as pipeline:
        check_scope(pipeline.store, scope)
        if questions is not None:
            emit_jsonl(
                read_questions(questions),
                lambda q: pipeline.inspect(q, k=k, scope=scope),
                "inspecting",
            )
            return
        assert question is not None
        result = pipeline.inspect(question, k=k, scope=scope)
        if as_json:
            sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        else:
            from lastword.cli.render import render_retrieval

            render_retrieval(result, pipeline.thresholds)
            console.print(
                f"[dim]gate thresholds from {pipeline.thresholds_source}: "
                f"{safe(pipeline.thresholds.evidence or '')}[/]"
            )


def gate_line(settings: Settings, store: Store) -> str:
    """Which gate thresholds this index gets, and the index's own calibration."""
    from lastword.gate.auto import stored_calibration, thresholds_for_index

    if settings.gate.decide == "reader":
        from lastword.gate.reader_gate import reader_thresholds

        chosen = reader_thresholds(settings.gate)
        return safe(
            f"gate: the reader's answerability, weak {chosen.weak:.4f}, strong "
            f"{chosen.strong:.4f} ({chosen.evidence}); no per-index calibration"
        )
    thresholds, source = thresholds_for_index(settings, store)
    calibration = stored_calibration(store)
    line = f"gate: weak {thresholds.weak:.4f}, strong {thresholds.strong:.4f} from {source}"
    if calibration is None:
        line += "; this index has not calibrated its gate (lastword recalibrate)"
    else:
        stale = (
            ""
            if calibration.fingerprint == store.info().fingerprint
            else " (stale: the corpus changed since)"
        )
        line += f"\n  index calibration{stale}: {calibration.describe()}"
    return safe(line)


@app.command()
def sources(index: IndexOption = None) -> None:
    """List the documents in an index with their passage counts and the embedder."""
    from lastword.store.open import open_store

    target = index_dir(index)
    with open_store(state.settings, target) as store:
        info = store.info()
        title = f"{store.location}  ·  {info.embedder.describe()}"
        table = Table(title=title, title_justify="left")
        documents = list(store.documents())
        # year and authors only when a document has them (a .bib library, PDF metadata)
        cited = any(d.metadata.get("year") or _authors(d.metadata) for d in documents)
        table.add_column("title")
        table.add_column("document", overflow="fold", style="dim")
        table.add_column("pages", justify="right")
        table.add_column("passages", justify="right")
        if cited:
            table.add_column("year")
            table.add_column("authors")
        table.add_column("added")
        for doc in documents:
            about = [str(doc.metadata.get("year", "")), safe(_authors(doc.metadata))]
            table.add_row(
                safe(doc.title),
                safe(str(doc.metadata.get("path") or doc.doc_id)),
                _pages(doc.pages, doc.metadata),
                str(doc.passages),
                *(about if cited else []),
                doc.added_at[:10],
            )
        console.print(table)
        console.print(
            f"{info.documents} documents, {info.passages} passages; "
            f"fingerprint {info.fingerprint}, updated {info.updated_at}"
        )
        console.print(gate_line(state.settings, store))


def _authors(metadata: dict) -> str:
    """The first author's family name, "et al." for more (from a --bib library)."""
    authors = metadata.get("authors") or []
    if not isinstance(authors, list) or not authors:
        return ""
    first = str(authors[0]).split()[-1] if str(authors[0]).split() else ""
    return first + (" et al." if len(authors) > 1 else "")


def _pages(pages: int | None, metadata: dict) -> str:
    """ "9", or "9 (printed 121-129)" when the printed page numbers are not the PDF's."""
    from lastword.result import page_range_label

    if pages is None:
        return ""
    printed = page_range_label(metadata)
    return f"{pages} (printed {printed})" if printed else str(pages)
