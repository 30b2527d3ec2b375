"""The embedder seam."""

from __future__ import annotations

from collections.abc import Sequence
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


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as contiguous float32; an all-zero row stays zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"expected a 2-d matrix, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(matrix / norms, dtype=np.float32)
