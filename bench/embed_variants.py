"""The MiniLM variants that bench/embed_speed.py measures against the shipped ``minilm`` runtime.

Each variant is the same fused ONNX graph run differently (session options, batching) or with
int8 arithmetic (a quantised copy of the graph, made here in a scratch directory). None of the
int8 copies is shipped: ``minilm`` must give the torch model's vectors (cosine >= 0.999).

Quantisation recipes (onnxruntime.quantization):

- dynamic: int8 weights, activations quantised per batch at run time (MatMulInteger /
  DynamicQuantizeMatMul, QAttention). ``per_channel`` gives each output column its own scale;
  ``reduce_range`` uses 7-bit weights, which AVX2 without VNNI needs (its u8 x s8 multiply-add,
  ``vpmaddubsw``, saturates at 16 bits).
- FFN only: the two feed-forward MatMuls of each layer (two thirds of the multiply-adds) in
  int8; attention stays fp32.
- weights only: 8-bit weights dequantised into fp32 MatMuls (ONNX Runtime's MatMulNBits).
- static QDQ: activation scales fixed beforehand from real passages (calibration texts disjoint
  from the measured ones), QuantizeLinear/DequantizeLinear pairs around each MatMul, run as
  QLinearMatMul.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lastword.embed.onnx_export import INPUTS


@dataclass
class Variant:
    name: str
    what: str
    model: Path | None = None  # None: the shipped export
    tune: Callable[[Any], None] | None = None
    by_length: bool = True
    batch_size: int | None = None  # None: the bench's --batch-size
    threads: int | None = None  # None: the bench's thread count
    notes: list[str] = field(default_factory=list)


def _level(name: str) -> Callable[[Any], None]:
    def tune(options: Any) -> None:
        import onnxruntime as ort

        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, name)

    return tune


def _spinning(options: Any) -> None:
    options.add_session_config_entry("session.intra_op.allow_spinning", "1")


def runtime_variants() -> list[Variant]:
    """The shipped graph in fp32, run with other session settings or batching."""
    return [
        Variant("fp32 basic", "graph optimisation level BASIC", tune=_level("ORT_ENABLE_BASIC")),
        Variant("fp32 ext", "level EXTENDED", tune=_level("ORT_ENABLE_EXTENDED")),
        Variant("fp32 spin", "intra-op threads spin between operators", tune=_spinning),
        Variant("fp32 1thr", "one intra-op thread (per CPU-s: the per-core rate)", threads=1),
        Variant("fp32 b8", "batches of at most 8 texts", batch_size=8),
        Variant("fp32 unsort", "batches in input order, not by length", by_length=False),
    ]


FFN = ("/intermediate/dense/MatMul", "/output/dense/MatMul")


def _ffn_nodes(model_path: Path) -> list[str]:
    import onnx

    graph = onnx.load(str(model_path), load_external_data=False).graph
    return [
        n.name
        for n in graph.node
        if n.op_type == "MatMul"
        and any(n.name.endswith(s) and "attention" not in n.name for s in FFN)
    ]


def quantised_variants(
    fp32: Path, scratch: Path, calibration: list[dict[str, np.ndarray]]
) -> list[Variant]:
    """int8 copies of ``fp32`` in ``scratch``; ``calibration``: input feeds of real passages."""
    import logging

    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    # the quantiser warns once per tensor it cannot type (the fused contrib operators)
    logging.getLogger().setLevel(logging.ERROR)
    float_tensors = {"DefaultTensorType": onnx.TensorProto.FLOAT}
    out: list[Variant] = []

    def dynamic(name: str, what: str, **kwargs: Any) -> None:
        path = scratch / f"{name.replace(' ', '-')}.onnx"
        quantize_dynamic(str(fp32), str(path), extra_options=float_tensors, **kwargs)
        out.append(Variant(name, what, model=path))

    dynamic(
        "int8 dyn",
        "dynamic, all MatMuls + attention, per-channel, 7-bit (was: onnx int8)",
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
    )
    dynamic(
        "int8 dyn pt",
        "dynamic, all, per-tensor weight scales, 7-bit",
        weight_type=QuantType.QInt8,
        per_channel=False,
        reduce_range=True,
    )
    dynamic(
        "int8 dyn u8",
        "dynamic, all, uint8 weights (u8 x u8 kernel: no 16-bit saturation), per-channel",
        weight_type=QuantType.QUInt8,
        per_channel=True,
        reduce_range=False,
    )
    ffn = _ffn_nodes(fp32)
    dynamic(
        "int8 ffn",
        f"dynamic, the {len(ffn)} feed-forward MatMuls only, per-channel, 7-bit",
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        nodes_to_quantize=ffn,
    )

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter(calibration)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.feeds, None)

    # Without pre-processing the quantiser cannot type the activations between the fused
    # operators, so only the weights get Quantize/Dequantize pairs: ONNX Runtime runs that as
    # MatMulNBits (8-bit weights, fp32 arithmetic). With ``quant_pre_process`` (symbolic shape
    # inference, which knows the fused operators) the activations are quantised too, with ranges
    # from the calibration passages, and the MatMuls become QLinearMatMul.
    from onnxruntime.quantization.shape_inference import quant_pre_process

    typed = scratch / "preprocessed.onnx"
    quant_pre_process(str(fp32), str(typed), skip_optimization=True)
    passages = sum(len(f["input_ids"]) for f in calibration)
    qdq = (
        ("int8 weights", fp32, True, False, "weights only (MatMulNBits), per-channel, 8-bit"),
        ("int8 qdq pc", typed, True, True, "static QDQ, per-channel weights, 7-bit"),
        ("int8 qdq pt", typed, False, True, "static QDQ, per-tensor weights, 7-bit"),
    )
    for name, source, per_channel, reduce_range, label in qdq:
        path = scratch / f"{name.replace(' ', '-')}.onnx"
        quantize_static(
            str(source),
            str(path),
            Reader(),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["MatMul"],
            per_channel=per_channel,
            reduce_range=reduce_range,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            extra_options=float_tensors,
        )
        out.append(
            Variant(name, f"{label}, calibrated (min/max) on {passages} other passages", model=path)
        )
    return out


def calibration_feeds(
    tokenizer: Any, texts: list[str], batch: int = 8
) -> list[dict[str, np.ndarray]]:
    """Model inputs for ``texts``, ``batch`` at a time, padded to each batch's longest."""
    feeds = []
    for start in range(0, len(texts), batch):
        encodings = tokenizer.encode_batch(texts[start : start + batch])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds.append(dict(zip(INPUTS, (ids, mask, np.zeros_like(ids)), strict=True)))
    return feeds
