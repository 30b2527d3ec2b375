"""A question and passages as the reader's model reads them: word pieces with character offsets.

Each row is ``[CLS] question [SEP] piece of a passage [SEP]``; a passage longer than one row is
read in overlapping pieces (``stride`` word pieces shared), and each of its word pieces keeps
the character span it covers in the passage's text, so scores come back to sentences and table
rows by position. Training (``evaluate/reader_fit.py``) and reading use this one function.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

#: word pieces in one row, question and markers included
MAX_TOKENS = 192
#: the question's word pieces at most
QUESTION_TOKENS = 48
#: word pieces two pieces of one passage share
STRIDE = 48


@lru_cache(maxsize=1)
def tokenizer(path: str | None = None):
    """MiniLM's word-piece tokenizer (the shipped ``tokenizer.json``), without padding."""
    from tokenizers import Tokenizer

    from lastword.embed.onnx_export import weights_dir

    tok = Tokenizer.from_file(str(Path(path) if path else weights_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


@dataclass(frozen=True)
class Row:
    passage: int
    #: character spans, in the passage's text, of the row's passage word pieces
    starts: np.ndarray
    ends: np.ndarray
    #: where the passage's word pieces begin in the row
    offset: int


@dataclass(frozen=True)
class Batch:
    input_ids: np.ndarray
    attention_mask: np.ndarray
    token_type_ids: np.ndarray
    rows: tuple[Row, ...]


def encode(
    question: str,
    passages: list[str],
    max_tokens: int = MAX_TOKENS,
    stride: int = STRIDE,
) -> Batch:
    tok = tokenizer()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    q = tok.encode(question, add_special_tokens=False).ids[:QUESTION_TOKENS]
    room = max_tokens - len(q) - 3
    ids_rows: list[list[int]] = []
    rows: list[Row] = []
    for n, text in enumerate(passages):
        enc = tok.encode(text, add_special_tokens=False)
        ids = enc.ids
        offsets = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
        start = 0
        while True:
            piece = ids[start : start + room]
            ids_rows.append([cls, *q, sep, *piece, sep])
            rows.append(
                Row(
                    n,
                    offsets[start : start + len(piece), 0],
                    offsets[start : start + len(piece), 1],
                    len(q) + 2,
                )
            )
            if start + room >= len(ids):
                break
            start += room - stride
    width = max(len(r) for r in ids_rows)
    input_ids = np.zeros((len(ids_rows), width), dtype=np.int64)
    mask = np.zeros_like(input_ids)
    types = np.zeros_like(input_ids)
    for i, (r, row) in enumerate(zip(ids_rows, rows, strict=True)):
        input_ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
        types[i, row.offset : len(r)] = 1
    return Batch(input_ids, mask, types, tuple(rows))
