"""The reader's fitted network, run on ONNX Runtime, loaded only as shipped.

The weights are a data file (``data/models/reader/reader.onnx``) beside their provenance
(``reader.json``: data set and split, commit, command, metrics, the file's SHA-256). A file
whose hash is not the recorded one is never run (``ModelFileError``). Re-fit with
``lastword eval fit reader``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from lastword.errors import ConfigError
from lastword.read.encoding import Batch, encode

MODELS = Path(__file__).resolve().parents[1] / "data" / "models" / "reader"
ONNX_FILE = "reader.onnx"
PROVENANCE_FILE = "reader.json"
#: rows per ONNX run (a question's passages usually fit in one or two)
BATCH_ROWS = 16


class ModelFileError(ConfigError):
    """A fitted model's file is missing or is not the one its provenance records."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance(directory: Path = MODELS) -> dict:
    path = directory / PROVENANCE_FILE
    if not path.is_file():
        raise ModelFileError(
            f"the reader's provenance {path} is missing; run: lastword eval fit reader"
        )
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Scores:
    """Per passage: each word piece's logit against its row's "none of them" logit (in
    passage-text order) with its character span, and each row's "none" logit."""

    starts: tuple[np.ndarray, ...]
    ends: tuple[np.ndarray, ...]
    token_logits: tuple[np.ndarray, ...]
    row_logits: np.ndarray


class ReaderModel:
    def __init__(self, directory: Path = MODELS, threads: int | None = None) -> None:
        record = provenance(directory)
        path = directory / ONNX_FILE
        if not path.is_file():
            raise ModelFileError(f"the reader's weights {path} are missing")
        if sha256(path) != record.get("sha256"):
            raise ModelFileError(
                f"{path} is not the file its provenance records (SHA-256 differs); "
                "re-fit with: lastword eval fit reader"
            )
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.provenance = record

    def run(self, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        tokens, rows = [], []
        for i in range(0, len(batch.rows), BATCH_ROWS):
            part = slice(i, i + BATCH_ROWS)
            mask = batch.attention_mask[part]
            width = int(mask.sum(axis=1).max())
            t, r = self.session.run(
                None,
                {
                    "input_ids": batch.input_ids[part, :width],
                    "attention_mask": mask[:, :width],
                    "token_type_ids": batch.token_type_ids[part, :width],
                },
            )
            pad = batch.input_ids.shape[1] - width
            tokens.append(np.pad(t, ((0, 0), (0, pad)), constant_values=-1e4))
            rows.append(r)
        return np.concatenate(tokens), np.concatenate(rows)

    def score(self, question: str, passages: list[str]) -> Scores:
        if not passages:
            empty = np.zeros(0)
            return Scores((), (), (), empty)
        batch = encode(question, passages)
        token_logits, row_logits = self.run(batch)
        return collect(batch, token_logits, row_logits, len(passages))


def collect(batch: Batch, token_logits: np.ndarray, row_logits: np.ndarray, count: int) -> Scores:
    """Rows back to passages: a word piece two rows share keeps its higher logit."""
    starts: list[list[np.ndarray]] = [[] for _ in range(count)]
    ends: list[list[np.ndarray]] = [[] for _ in range(count)]
    logits: list[list[np.ndarray]] = [[] for _ in range(count)]
    best = np.full(count, -np.inf)
    for i, row in enumerate(batch.rows):
        width = len(row.starts)
        starts[row.passage].append(row.starts)
        ends[row.passage].append(row.ends)
        # relative to the row's "none of them" logit: comparable across rows and passages
        piece = token_logits[i, row.offset : row.offset + width] - float(row_logits[i])
        logits[row.passage].append(piece)
        best[row.passage] = max(best[row.passage], float(row_logits[i]))
    out_s, out_e, out_l = [], [], []
    for n in range(count):
        s = np.concatenate(starts[n]) if starts[n] else np.zeros(0, dtype=np.int64)
        e = np.concatenate(ends[n]) if ends[n] else np.zeros(0, dtype=np.int64)
        lg = np.concatenate(logits[n]) if logits[n] else np.zeros(0)
        # overlapping pieces: one entry per character span, the higher logit
        order = np.lexsort((-lg, s))
        s, e, lg = s[order], e[order], lg[order]
        keep = np.ones(len(s), dtype=bool)
        keep[1:] = s[1:] != s[:-1]
        out_s.append(s[keep])
        out_e.append(e[keep])
        out_l.append(lg[keep])
    return Scores(tuple(out_s), tuple(out_e), tuple(out_l), best)


@lru_cache(maxsize=2)
def shipped_model(directory: str = str(MODELS)) -> ReaderModel:
    return ReaderModel(Path(directory))
