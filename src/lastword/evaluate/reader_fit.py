"""Fitting the reader: MiniLM fine-tuned to pick, among a passage's sentences and table rows,
the one that answers a question, or none (``lastword eval fit reader``).

The encoder starts from the shipped all-MiniLM-L6-v2 weights. Two heads read its last layer:
one logit per word piece (a candidate's logit is the mean of its word pieces') and one per row
on ``[CLS]`` ("none of them"); the loss is listwise, the probability of the answering
candidates (or of "none") under a softmax over the row. A logistic model then sets the
network's score beside retrieval and the question's words (``fit_combination``,
``read/features.py``). Rows come from the labelled examples of
``reader_data.gather``: the passages holding the answer, the best-ranked passages that do not
(same paper and others), and the top passage with the question's paper removed. The bottom
``frozen`` layers keep their weights (less to learn from a thousand questions, and a third of
the backward pass). The fitted graph is exported to ONNX, quantised to int8, and written with
its provenance (``read/model.py`` checks both on load). Needs torch (the ``export`` extra).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lastword.evaluate.reader_data import Example, Seen
from lastword.read.encoding import MAX_TOKENS, encode


@dataclass(frozen=True)
class FitConfig:
    epochs: int = 2
    batch: int = 16
    lr: float = 1e-4
    head_lr: float = 2e-3
    frozen: int = 2
    #: best-ranked non-answer passages per question, of the question's paper and of others
    negatives: int = 1
    seed: int = 0
    threads: int = 2


@dataclass
class TrainRow:
    ids: list[int]
    types: list[int]
    #: per position: the index of the sentence (or table row) the word piece is in, else -1
    sentence: list[int]
    #: the sentences of the row that overlap the answer (empty: the row does not answer)
    positives: list[int]


def _labelled(question: str, seen: Seen) -> list[TrainRow]:
    """The passage's rows, each word piece tagged with the candidate (sentence or table row,
    as the reader cuts them: ``read.reader.units_of``) it belongs to."""
    from lastword.read.reader import units_of
    from lastword.result import RetrievedPassage

    passage = RetrievedPassage(
        n=1,
        passage_id=0,
        doc_id=seen.doc_id,
        title="",
        page=None,
        score=0.0,
        text=seen.text,
        kind=seen.kind,
    )
    units = units_of([passage])
    batch = encode(question, [seen.text])
    out = []
    for i, row in enumerate(batch.rows):
        width = int(batch.attention_mask[i].sum())
        sentence = [-1] * width
        present: dict[int, int] = {}
        for j, (s, e) in enumerate(zip(row.starts, row.ends, strict=True)):
            for k, unit in enumerate(units):
                if s < unit.end and e > unit.start:
                    sentence[row.offset + j] = present.setdefault(k, len(present))
                    break
        positives = sorted(
            present[k]
            for k, unit in enumerate(units)
            if k in present and any(unit.start < b and unit.end > a for a, b in seen.spans)
        )
        out.append(
            TrainRow(
                batch.input_ids[i, :width].tolist(),
                batch.token_type_ids[i, :width].tolist(),
                sentence,
                positives,
            )
        )
    return out


def training_rows(examples: list[Example], config: FitConfig) -> list[TrainRow]:
    rng = random.Random(config.seed)
    rows: list[TrainRow] = []
    for e in examples:
        gold = [p for p in e.passages if p.spans]
        if not gold:
            continue
        others = [p for p in e.passages if not p.spans and p.kind != "references"]
        picked = gold + others[: config.negatives]
        if len(others) > config.negatives:
            picked.append(rng.choice(others[config.negatives :]))
        if e.ablated:
            picked.append(e.ablated[0])
        for seen in picked:
            for r in _labelled(e.question, seen):
                # a gold passage's rows without the answer teach little and cost a lot
                if seen.spans and not r.positives and len(picked) > 1 and rng.random() < 0.5:
                    continue
                rows.append(r)
    return rows


def _batches(rows: list[TrainRow], size: int, rng: random.Random):
    import torch

    order = list(range(len(rows)))
    rng.shuffle(order)
    # similar lengths together: less padding
    chunks = [order[i : i + size * 20] for i in range(0, len(order), size * 20)]
    for chunk in chunks:
        chunk.sort(key=lambda i: len(rows[i].ids))
        groups = [chunk[i : i + size] for i in range(0, len(chunk), size)]
        rng.shuffle(groups)
        for group in groups:
            width = max(len(rows[i].ids) for i in group)
            count = max(max(rows[i].sentence) for i in group) + 1
            ids = torch.zeros((len(group), width), dtype=torch.long)
            mask = torch.zeros_like(ids)
            types = torch.zeros_like(ids)
            member = torch.zeros((len(group), max(count, 1), width))
            target = torch.zeros((len(group), max(count, 1) + 1))
            for k, i in enumerate(group):
                r = rows[i]
                n = len(r.ids)
                ids[k, :n] = torch.tensor(r.ids)
                mask[k, :n] = 1
                types[k, :n] = torch.tensor(r.types)
                for t, sentence in enumerate(r.sentence):
                    if sentence >= 0:
                        member[k, sentence, t] = 1.0
                if r.positives:
                    for p in r.positives:
                        target[k, p + 1] = 1.0
                else:
                    target[k, 0] = 1.0
            yield ids, mask, types, member, target


def build_model(frozen: int):
    import torch
    from transformers import AutoModel

    from lastword.embed.onnx_export import weights_dir

    class ReaderNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(
                str(weights_dir()), attn_implementation="eager"
            )
            hidden = self.encoder.config.hidden_size
            self.token_head = torch.nn.Linear(hidden, 1)
            self.row_head = torch.nn.Linear(hidden, 1)

        def forward(self, input_ids, attention_mask, token_type_ids):
            states = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            return self.token_head(states).squeeze(-1), self.row_head(states[:, 0]).squeeze(-1)

    net = ReaderNet()
    for p in net.encoder.embeddings.parameters():
        p.requires_grad = False
    for layer in net.encoder.encoder.layer[:frozen]:
        for p in layer.parameters():
            p.requires_grad = False
    return net


def fit(
    rows: list[TrainRow],
    config: FitConfig,
    log: Callable[[str], None] = print,
):
    import torch

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    rng = random.Random(config.seed)
    net = build_model(config.frozen)
    encoder_params = [p for p in net.encoder.parameters() if p.requires_grad]
    heads = [*net.token_head.parameters(), *net.row_head.parameters()]
    optimizer = torch.optim.AdamW(
        [{"params": encoder_params, "lr": config.lr}, {"params": heads, "lr": config.head_lr}],
        weight_decay=0.01,
    )
    steps = config.epochs * math.ceil(len(rows) / config.batch)
    warm = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / steps)
    )
    net.train()
    step, started = 0, time.perf_counter()
    for epoch in range(config.epochs):
        total = 0.0
        for ids, mask, types, member, target in _batches(rows, config.batch, rng):
            token_logits, row_logits = net(ids, mask, types)
            # a candidate's logit is the mean of its word pieces' (the head is linear, so this
            # is the head over its mean state); the row's own logit stands for "none of them"
            counts = member.sum(-1)
            pooled = (member @ token_logits.unsqueeze(-1)).squeeze(-1) / counts.clamp(min=1)
            pooled = pooled.masked_fill(counts == 0, -1e4)
            logits = torch.cat([row_logits.unsqueeze(-1), pooled], dim=-1)
            log_p = torch.log_softmax(logits, dim=-1)
            # the probability of any answering candidate (or of none, for a row without one)
            loss = -torch.logsumexp(log_p.masked_fill(target == 0, -1e4), dim=-1).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
            total += float(loss.detach())
            if step % 20 == 0:
                elapsed = time.perf_counter() - started
                log(f"epoch {epoch + 1} step {step}/{steps} loss {total / 20:.4f} {elapsed:.0f}s")
                total = 0.0
    net.eval()
    return net


def export_onnx(net, path: Path, quantise: bool = True) -> Path:
    """The fitted network as ONNX (dynamic batch and length); int8 weights when ``quantise``."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    batch = encode("what is it?", ["a passage of text that says what it is."])
    args = tuple(
        torch.tensor(a) for a in (batch.input_ids, batch.attention_mask, batch.token_type_ids)
    )
    plain = path.with_suffix(".fp32.onnx") if quantise else path
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            net,
            args,
            str(plain),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["token_logits", "row_logits"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "token_logits": axes,
                "row_logits": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    if quantise:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        quantize_dynamic(str(plain), str(path), weight_type=QuantType.QInt8)
        plain.unlink()
    return path


def row_count(rows: list[TrainRow]) -> dict[str, int]:
    return {
        "rows": len(rows),
        "answer_rows": sum(bool(r.positives) for r in rows),
        "tokens": int(sum(len(r.ids) for r in rows)),
        "max_tokens": MAX_TOKENS,
    }


def write_provenance(path: Path, record: dict) -> None:
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def gathered(
    data: Path, split: str, work: Path, log: Callable[[str], None] = print
) -> list[Example]:
    """The labelled examples of COVID-QA's ``split``, gathered through the product's own path
    (JSON Lines ingest, ``Pipeline.inspect``) and cached in ``work``. The index holds the
    papers of TRAIN (FIT and DEV) for the fit and DEV splits, and of TEST for TEST."""
    from lastword.embed.minilm import MiniLMEmbedder
    from lastword.evaluate import reader_data
    from lastword.evaluate.datasets.covidqa import load_papers, write_jsonl
    from lastword.ingest import ingest_paths
    from lastword.pipeline import Pipeline
    from lastword.settings import Settings

    cache = work / f"examples-{split}.jsonl"
    if cache.is_file():
        return reader_data.load(cache)
    corpus = "test" if split == "test" else "train"
    papers = load_papers(data, corpus)
    index = work / f"index-{corpus}"
    if not (index / "index.sqlite").is_file():
        source = work / f"covidqa-{corpus}"
        source.mkdir(parents=True, exist_ok=True)
        write_jsonl(papers, source / "papers.jsonl")
        log(f"ingesting {len(papers)} COVID-QA {corpus} papers into {index}")
        ingest_paths([source], index, MiniLMEmbedder(), Settings().ingest)
    from lastword.evaluate.datasets.covidqa import split_of

    chosen = [p for p in papers if split in ("train", "test") or split_of(p.position) == split]
    with Pipeline.open(Settings(), index) as pipeline:
        examples = reader_data.gather(pipeline.inspect, chosen)
    reader_data.save(examples, cache)
    return examples


def _commit() -> str | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def run_fit(
    data: Path,
    work: Path,
    out: Path,
    config: FitConfig,
    command: str,
    log: Callable[[str], None] = print,
) -> dict:
    """Gather, fit on COVID-QA's FIT papers, export, measure on DEV, write the provenance.
    The gate's thresholds (``lastword eval fit reader-gate``) are kept from the file being
    replaced only when they were fitted on this same network, else left out."""
    from lastword.evaluate.datasets.covidqa import split_of
    from lastword.evaluate.reader_eval import evaluate, reader_scorer
    from lastword.read.model import ONNX_FILE, PROVENANCE_FILE, ReaderModel, sha256
    from lastword.read.reader import Reader

    work.mkdir(parents=True, exist_ok=True)
    examples = gathered(data, "train", work, log)
    position = {e.doc_id: int(e.doc_id.rsplit("-", 1)[1]) for e in examples}
    fit_part = [e for e in examples if split_of(position[e.doc_id]) == "fit"]
    dev_part = [e for e in examples if split_of(position[e.doc_id]) == "dev"]
    rows = training_rows(fit_part, config)
    log(f"{len(fit_part)} FIT questions, {len(dev_part)} DEV; {row_count(rows)}")
    started = time.perf_counter()
    net = fit(rows, config, log)
    seconds = time.perf_counter() - started
    staging = work / "staging"
    path = export_onnx(net, staging / ONNX_FILE)
    record = {
        "model": "MiniLM-L6 (all-MiniLM-L6-v2 weights) fine-tuned: a word-piece answer-span "
        "head and a row answerability head, int8 ONNX",
        "data": "COVID-QA (deepset-ai/COVID-QA, Apache-2.0): papers at position 0 or 1 mod 3 "
        "(TRAIN); fitted on FIT (not 1 mod 6), measured on DEV (1 mod 6); TEST (2 mod 3) unread",
        "examples": row_count(rows),
        "config": config.__dict__,
        "commit": _commit(),
        "command": command,
        "fit_seconds": round(seconds, 1),
        "sha256": sha256(path),
        "selection": {"sentences": 3, "neighbour": 0.5, "follow": 0.5, "redundancy": 0.6},
    }
    write_provenance(staging / PROVENANCE_FILE, record)
    record["combine"] = fit_combination(fit_part, ReaderModel(staging), log)
    write_provenance(staging / PROVENANCE_FILE, record)
    figures = evaluate(dev_part, reader_scorer(Reader(model=ReaderModel(staging))))
    record["metrics"] = {"covidqa_dev": figures.row()}
    log(f"DEV: {figures.row()}")
    out.mkdir(parents=True, exist_ok=True)
    previous = out / PROVENANCE_FILE
    if previous.is_file():
        old = json.loads(previous.read_text(encoding="utf-8"))
        if old.get("sha256") == record["sha256"] and "gate" in old:
            record["gate"] = old["gate"]
    (out / ONNX_FILE).write_bytes(path.read_bytes())
    write_provenance(out / PROVENANCE_FILE, record)
    return record


def combination_rows(examples: list[Example], model, every_ablated: int = 3):
    """Per FIT question: the features of every candidate the network read (``read/features``)
    and whether it overlaps the answer; every ``every_ablated``-th question also asked with its
    paper removed (all candidates wrong)."""
    from lastword.evaluate.reader_eval import as_passages, right
    from lastword.read.features import features
    from lastword.read.reader import Reader

    network = Reader(model=model)
    xs, ys = [], []
    for k, e in enumerate(examples):
        asked = [(e.passages, True)] + ([(e.ablated, False)] if k % every_ablated == 0 else [])
        for seen, present in asked:
            passages = as_passages(seen)
            reading = network.run(e.question, passages, combine=False)
            if not reading.units:
                continue
            xs.append(features(e.question, passages, reading.units, reading.probability))
            ys.append(
                np.array([present and right(reading, i, seen) for i in range(len(reading.units))])
            )
    return np.concatenate(xs), np.concatenate(ys).astype(float)


def fit_combination(examples: list[Example], model, log: Callable[[str], None] = print) -> dict:
    from lastword.gate.fit import fit_logistic
    from lastword.read.features import FEATURES

    x, y = combination_rows(examples, model)
    intercept, weights = fit_logistic(x, y, ridge=1.0)
    log(f"combination fitted on {len(y)} candidates ({int(y.sum())} answering)")
    return {"intercept": round(intercept, 6)} | {
        name: round(float(w), 6) for name, w in zip(FEATURES, weights, strict=True)
    }
