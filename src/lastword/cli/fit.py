"""``lastword eval fit reader | reader-gate``: re-fit the learned reader and its gate thresholds.

Both read the public data sets (``--data``, default ``$LASTWORD_DATASETS`` or ../shared/datasets
beside the checkout) and write the shipped files under ``src/lastword/data/models/reader/`` (or
``--out``) with their provenance.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lastword.cli.app import console, err_console

fit_app = typer.Typer(
    name="fit",
    help="Re-fit a learned component from public data and write it with its provenance.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _data_dir(data: Path | None) -> Path:
    from lastword.errors import InputError
    from lastword.evaluate.datasets import default_data_dir

    found = data or (default_data_dir("covidqa") or Path("covidqa")).parent
    if not (found / "covidqa").is_dir():
        raise InputError(f"COVID-QA not found under {found}; point --data at the datasets folder")
    return found


DataOption = Annotated[
    Path | None, typer.Option("--data", help="The datasets folder (covidqa/, pubmedqa/, ...).")
]
WorkOption = Annotated[
    Path,
    typer.Option("--work", help="Where indexes and gathered retrievals are cached between runs."),
]


@fit_app.command("reader")
def fit_reader_command(
    data: DataOption = None,
    work: WorkOption = Path("lastword-fit-work"),
    out: Annotated[
        Path | None, typer.Option("--out", help="Write here instead of the shipped folder.")
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, max=20, help="Passes over the data.")] = 2,
    frozen: Annotated[
        int, typer.Option(min=0, max=6, help="Bottom encoder layers kept as shipped.")
    ] = 2,
) -> None:
    """Fine-tune the reader on COVID-QA's TRAIN papers (FIT part), measure it on DEV, export
    int8 ONNX with its provenance. Hours on 2 cores at most; needs torch (scripts/setup)."""
    from lastword.evaluate.reader_fit import FitConfig, run_fit
    from lastword.read.model import MODELS

    config = FitConfig(epochs=epochs, frozen=frozen)
    command = "lastword eval fit reader " + " ".join(sys.argv[4:])
    record = run_fit(
        _data_dir(data), work, out or MODELS, config, command.strip(), log=err_console.print
    )
    console.print_json(json.dumps(record["metrics"]))
    console.print("next: lastword eval fit reader-gate (the gate's thresholds for these weights)")


@fit_app.command("reader-gate")
def fit_reader_gate_command(
    data: DataOption = None,
    work: WorkOption = Path("lastword-fit-work"),
    model: Annotated[
        Path | None, typer.Option("--model", help="The reader's folder (default: shipped).")
    ] = None,
) -> None:
    """Choose the gate's thresholds on the reader's answerability over four corpora (PubMedQA,
    SciFact, COVID-QA, the papers set), judged leave-one-corpus-out; written into the reader's
    provenance file."""
    from lastword.evaluate.reader_fit import _commit, write_provenance
    from lastword.evaluate.reader_gate_fit import answerability, fit_gate
    from lastword.read.model import MODELS, PROVENANCE_FILE, ReaderModel
    from lastword.read.reader import Reader

    directory = model or MODELS
    found = _data_dir(data)
    work.mkdir(parents=True, exist_ok=True)
    cases = gather_gate_cases(found, work, err_console.print)
    reader = Reader(model=ReaderModel(directory))
    gate = fit_gate(answerability(cases, reader))
    gate["commit"] = _commit()
    gate["command"] = "lastword eval fit reader-gate " + " ".join(sys.argv[4:])
    path = directory / PROVENANCE_FILE
    record = json.loads(path.read_text(encoding="utf-8"))
    record["gate"] = gate
    write_provenance(path, record)
    console.print_json(json.dumps(gate))


def gather_gate_cases(data: Path, work: Path, log):
    """Every corpus's questions with their retrieved passages (cached in ``work``)."""
    from lastword.evaluate import gate_cases
    from lastword.evaluate.datasets.covidqa import split_of
    from lastword.evaluate.reader_fit import gathered

    cache = work / "gate-cases.jsonl"
    if cache.is_file():
        return gate_cases.load(cache)
    train = gathered(data, "train", work, log)
    test = gathered(data, "test", work, log)
    dev = [e for e in train if split_of(int(e.doc_id.rsplit("-", 1)[1])) == "dev"]
    # every third question: COVID-QA's papers hold many questions each, one corpus of four
    cases = gate_cases.covidqa_cases({"fit": dev[::3], "report": test[::3]})
    log("PubMedQA: ingest and retrieve")
    cases += gate_cases.evalset_cases(
        "pubmedqa", data, work, (("dev", "fit", 200), ("test", "report", 250))
    )
    log("SciFact: ingest and retrieve")
    cases += gate_cases.evalset_cases(
        "scifact", data, work, (("train", "fit", 150), ("dev", "report", 150))
    )
    log("papers: ingest the folder and retrieve")
    cases += gate_cases.papers_cases(data, work)
    gate_cases.save(cases, cache)
    return cases
