"""Answer commands: ask, demo."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lastword.cli.app import app, console, index_dir, preload_embedder, state
from lastword.cli.corpus import IndexOption, _RichProgress
from lastword.cli.filters import (
    AuthorFilter,
    CollectionFilter,
    DocFilter,
    TagFilter,
    YearFilter,
    check_scope,
    scope_from,
)
from lastword.cli.questions import emit_jsonl, read_questions

GeneratorOption = Annotated[
    str | None,
    typer.Option(
        "--generator", "-g", help="extractive (default, no model), anthropic, openai or llamacpp."
    ),
]


@app.command()
def ask(
    question: Annotated[str | None, typer.Argument(help="The question.")] = None,
    index: IndexOption = None,
    generator: GeneratorOption = None,
    questions: Annotated[
        Path | None,
        typer.Option(
            "--questions", "-q", help="File of questions (one a line, or JSONL with 'question')."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    collection: CollectionFilter = None,
    year: YearFilter = None,
    author: AuthorFilter = None,
    tag: TagFilter = None,
    doc: DocFilter = None,
) -> None:
    """Answer from the corpus with every claim cited, or refuse and say who decided.
    --collection, --year, --author, --tag and --doc ask a part of the library only."""
    if (question is None) == (questions is None):
        raise typer.BadParameter("give a QUESTION or --questions FILE (one of them)")
    preload_embedder()
    from lastword.cli.render import render_answer  # here, not at the top: `lastword --help`
    from lastword.pipeline import Pipeline  # loads no pipeline, pydantic or settings
    from lastword.result import Status

    scope = scope_from(collection, year, author, tag, doc)
    with Pipeline.open(state.settings, index_dir(index), generator=generator) as pipeline:
        check_scope(pipeline.store, scope)
        if questions is not None:
            emit_jsonl(read_questions(questions), lambda q: pipeline.ask(q, scope=scope), "asking")
            return
        assert question is not None
        result = pipeline.ask(question, scope=scope)
        if as_json:
            sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        else:
            render_answer(result)
        if result.status is Status.FAILED:
            raise typer.Exit(4)


@app.command()
def demo(
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Where to build the demo index (default: a temp dir)."),
    ] = None,
) -> None:
    """Build a small demo corpus and show one grounded answer and two refusals. No keys needed."""
    import tempfile

    from lastword.cli.render import render_answer
    from lastword.demo import DEMO_QUESTIONS, build_demo_index, demo_settings
    from lastword.pipeline import Pipeline

    settings = demo_settings(state.settings)
    with tempfile.TemporaryDirectory(prefix="lastword-demo-") as scratch:
        target = index or Path(scratch) / "index"
        console.rule("[bold]lastword demo")
        console.print(
            "Building a demo index from five short study summaries shipped with lastword "
            f"(fictional studies) at [bold]{target}[/] with the local MiniLM embedder…"
        )
        report = build_demo_index(target, settings, progress=_RichProgress())
        console.print(f"{report.passages_embedded} passages indexed in {report.seconds:.1f}s\n")
        with Pipeline.open(settings, target) as pipeline:
            for label, question in DEMO_QUESTIONS:
                console.rule(f"[bold]{label}")
                render_answer(pipeline.ask(question))
                console.print()
        console.print(
            "Try your own: [bold]lastword ingest PATH --index DIR[/] then "
            "[bold]lastword ask 'QUESTION' --index DIR[/]"
        )
