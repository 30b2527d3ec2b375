"""Step 2: turn text into unit-normalised float32 vectors.

Providers live one per module (``embed/minilm.py`` -> ``MiniLMEmbedder``) behind the
``Embedder`` protocol; ``make_embedder`` picks one by name from settings.

The names below load on first use (PEP 562): importing ``lastword.embed.minilm`` to start the
ONNX session on another thread must not pull in pydantic and the settings, which the command's
main thread is importing at the same time.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lastword.embed.protocol import Embedder, EmbedderInfo, TokenEmbedder, TokenVectors
    from lastword.embed.registry import EMBEDDERS, make_embedder

_WHERE = {
    "Embedder": "protocol",
    "EmbedderInfo": "protocol",
    "TokenEmbedder": "protocol",
    "TokenVectors": "protocol",
    "EMBEDDERS": "registry",
    "make_embedder": "registry",
}

__all__ = [
    "EMBEDDERS",
    "Embedder",
    "EmbedderInfo",
    "TokenEmbedder",
    "TokenVectors",
    "make_embedder",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(import_module(f"lastword.embed.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'lastword.embed' has no attribute {name!r}")
