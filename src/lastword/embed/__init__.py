"""Step 2: turn text into unit-normalised float32 vectors.

Providers live one per module (``embed/minilm.py`` -> ``MiniLMEmbedder``) behind the
``Embedder`` protocol; ``make_embedder`` picks one by name from settings.
"""

from lastword.embed.protocol import Embedder, EmbedderInfo, TokenEmbedder, TokenVectors
from lastword.embed.registry import EMBEDDERS, make_embedder

__all__ = [
    "EMBEDDERS",
    "Embedder",
    "EmbedderInfo",
    "TokenEmbedder",
    "TokenVectors",
    "make_embedder",
]
