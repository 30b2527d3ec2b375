"""The embedder seam."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict


class EmbedderInfo(BaseModel):
    """What an index records about the embedder that built it."""

    model_config = ConfigDict(frozen=True)

    name: str  # the settings name: minilm, voyage, openai
    model: str
    dim: int

    def describe(self) -> str:
        return f"{self.name} ({self.model}, {self.dim}-d)"


@runtime_checkable
class Embedder(Protocol):
    """Embeds passages and questions. Every returned row has unit L2 norm, dtype float32."""

    @property
    def info(self) -> EmbedderInfo: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dim). Used for passages at ingest time."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Shape (len(texts), dim). Used for questions (some models embed them differently)."""
        ...


@dataclass(frozen=True)
class TokenVectors:
    """One text's contextual token embeddings: ``vectors[i]`` (unit length) is ``tokens[i]``.

    Special tokens ([CLS], [SEP], padding) are left out; a text longer than the model's window
    is cut where the model cuts it.
    """

    tokens: tuple[str, ...]
    vectors: np.ndarray  # shape (len(tokens), dim), float32


@runtime_checkable
class TokenEmbedder(Protocol):
    """An embedder that can also return per-token vectors (local models only; APIs cannot).

    The retrieval gate uses them for a late-interaction signal (``gate/late_interaction.py``).
    """

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]: ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as contiguous float32; an all-zero row stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"expected a 2-d matrix, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(matrix / norms, dtype=np.float32)
