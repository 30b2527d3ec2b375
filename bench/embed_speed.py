"""MiniLM on torch (sentence-transformers) against ONNX Runtime variants, side by side.

The same real passages (PubMedQA contexts, the first --passages of them) are embedded by each
runtime in one run, --repeat rounds, the runtimes taking turns within each round so a burst of
load on the shared machine hits them alike; the best run counts and the spread is printed.
Besides passages per wall second it prints passages per CPU-second of this process (user +
system), which a busy machine disturbs far less, and the multiply-adds done per CPU-second
against this CPU's AVX2 FMA peak. Cosine agreement is to the torch vectors (to ``minilm`` with
--no-torch).

    .venv/bin/python bench/embed_speed.py [--passages 2000] [--repeat 2] [--threads 0]
        [--batch-size 32] [--no-torch] [--only NAME,NAME]

"minilm" is the shipped runtime (the fused fp32 export, length-sorted batches); the other rows
are the variants of bench/embed_variants.py: session settings, batching, and int8 copies of the
graph (dynamic, feed-forward only, static QDQ calibrated on other PubMedQA passages), measured
and not shipped unless their vectors agree (cosine >= 0.999).

The gate's PubMedQA AUC with the ONNX embedder: bench/gate_calibration_pubmedqa.py (it embeds
through MiniLMEmbedder, which is the ONNX runtime).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from embed_variants import (
    Variant,
    calibration_feeds,
    quantised_variants,
    runtime_variants,
)
from lastword.embed.minilm import _Runtime, usable_cores
from lastword.embed.onnx_export import MAX_TOKENS, ensure_exported, weights_dir

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
LAYERS, HIDDEN, FFN = 6, 384, 1536
CALIBRATION = 128  # passages from the end of the file, never measured


def all_passages(data: Path) -> list[str]:
    records = json.loads((data / "ori_pqal.json").read_text(encoding="utf-8"))
    texts = [part.strip() for record in records.values() for part in record["CONTEXTS"]]
    return [t for t in texts if t]


def timed(embed: Callable[[list[str]], np.ndarray], texts: list[str]):
    """(vectors, wall seconds, CPU seconds of this process) of one run."""
    cpu = time.process_time()
    started = time.perf_counter()
    vectors = embed(texts)
    return vectors, time.perf_counter() - started, time.process_time() - cpu


def multiply_adds(pieces: int) -> int:
    """Multiply-adds of one MiniLM forward pass over ``pieces`` word pieces: per layer the
    Q, K, V and output projections (4 d^2 per piece), the feed-forward pair (2 d * 4d) and the
    attention scores and mix (2 n d per piece); embeddings, LayerNorm, GELU, softmax are
    elementwise and left out."""
    n, d = pieces, HIDDEN
    return LAYERS * (n * (4 * d * d + 2 * d * FFN) + 2 * n * n * d)


def cpu_clock_ghz() -> float:
    text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    found = re.findall(r"cpu MHz\s*:\s*([\d.]+)", text)
    return float(found[0]) / 1000 if found else float("nan")


def cpu_flags() -> set[str]:
    text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    found = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(found.group(1).split()) if found else set()


def arithmetic(lengths: list[int]) -> tuple[float, float]:
    """Prints the FLOP arithmetic; returns (GFLOP per passage, per-core fp32 peak GFLOP/s)."""
    flops = sum(2 * multiply_adds(n) for n in lengths) / len(lengths)
    ghz = cpu_clock_ghz()
    flags = cpu_flags()
    vector = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni") if f in flags]
    # AVX2 + FMA: two 256-bit FMA pipes per core (Zen 2/3, Haswell on) = 2 x 8 lanes x 2 FLOP.
    per_cycle = 32 if "fma" in flags else 16
    peak = per_cycle * ghz
    cores = usable_cores()
    print(
        f"word pieces per passage (with [CLS]/[SEP], cut at {MAX_TOKENS}): mean "
        f"{np.mean(lengths):.1f}, median {np.median(lengths):.0f}, max {max(lengths)}\n"
        f"arithmetic: {flops / 1e9:.2f} GFLOP per passage (2 x multiply-adds, matrix products "
        f"only); CPU {ghz:.3f} GHz, {' '.join(vector)}: fp32 FMA peak {per_cycle} FLOP/cycle = "
        f"{peak:.1f} GFLOP/s per core, {peak * cores:.1f} on {cores} cores\n"
        f"150 passages/s needs {150 * flops / 1e9:.0f} GFLOP/s = "
        f"{150 * flops / 1e9 / (peak * cores):.0%} of the {cores}-core fp32 peak; "
        f"at 100% of that peak fp32 gives at most {peak * cores * 1e9 / flops:.0f} p/s"
    )
    return flops / 1e9, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="0: every usable core")
    parser.add_argument("--no-torch", action="store_true", help="ONNX only (cosine to minilm)")
    parser.add_argument("--only", default="", help="comma-separated variant names to run")
    args = parser.parse_args()
    threads = args.threads or usable_cores()
    everything = all_passages(args.data)
    texts = everything[: args.passages]
    calibration_texts = everything[-CALIBRATION:]
    assert not set(calibration_texts) & set(texts), "calibration passages must not be measured"
    print(
        f"{len(texts)} PubMedQA passages, batch {args.batch_size}, {threads} threads on "
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} "
        "(a shared machine: numbers are noisy)"
    )

    rows: dict[str, Callable[[list[str]], np.ndarray]] = {}
    what: dict[str, str] = {}
    if not args.no_torch:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        model = SentenceTransformer(str(weights_dir()), device="cpu", local_files_only=True)

        def torch_embed(batch: list[str]) -> np.ndarray:
            return model.encode(
                batch, batch_size=args.batch_size, normalize_embeddings=True, convert_to_numpy=True
            )

        rows["torch"] = torch_embed
        what["torch"] = "sentence-transformers on torch (the reference)"

    exported = ensure_exported()
    shipped = _Runtime(threads)
    lengths = [len(e.ids) for e in shipped.tokenizer.encode_batch(texts)]
    gflop, peak = arithmetic(lengths)
    rows["minilm"] = lambda batch: shipped.run(batch, args.batch_size, False)[0]
    what["minilm"] = "shipped: fused fp32, level ALL, no spinning, length-sorted batches"
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    with tempfile.TemporaryDirectory() as scratch:
        feeds = calibration_feeds(shipped.tokenizer, calibration_texts)
        variants = runtime_variants()
        if not only or any(name.startswith("int8") for name in only):
            variants += quantised_variants(exported.onnx_path, Path(scratch), feeds)
        for variant in variants:
            if only and variant.name not in only:
                continue
            what[variant.name] = variant.what
            rows[variant.name] = make_row(variant, threads, args.batch_size)
        sizes = {
            v.name: v.model.stat().st_size / 1e6 for v in variants if v.model and v.model.exists()
        }
    print(
        f"model files: fp32 {exported.onnx_path.stat().st_size / 1e6:.0f} MB; "
        + ", ".join(f"{name} {mb:.0f} MB" for name, mb in sizes.items())
    )
    for name, text in what.items():
        print(f"  {name:16} {text}")

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, embed in rows.items():
            vectors[name], wall, cpu = timed(embed, texts)
            runs[name].append((len(texts) / wall, len(texts) / cpu))
    first = next(iter(rows))
    reference = vectors[first]
    base = max(rate for rate, _ in runs[first])
    header = ("runtime", "best p/s", "runs p/s", f"x {first}", "p/cpu-s", "GF/cpu-s", "% peak")
    print(
        "{:16} {:>9} {:>12} {:>8} {:>8} {:>9} {:>7} {:>9} {:>9}".format(
            *header, "cos min", "cos mean"
        )
    )
    for name, rates in runs.items():
        best = max(rate for rate, _ in rates)
        per_cpu = max(c for _, c in rates)
        cosines = (vectors[name] * reference).sum(axis=1)
        print(
            f"{name:16} {best:9.1f} {' '.join(f'{r:.1f}' for r, _ in rates):>12} "
            f"{best / base:8.2f} {per_cpu:8.1f} {per_cpu * gflop:9.1f} "
            f"{per_cpu * gflop / peak:7.0%} {cosines.min():9.5f} {cosines.mean():9.5f}",
            flush=True,
        )
    print(
        "GF/cpu-s: useful GFLOP (no padding) per CPU-second; % peak: of one core's fp32 FMA "
        "peak (int8 rows can exceed it: their multiply-adds are not fp32)"
    )
    return 0


def make_row(variant: Variant, threads: int, batch_size: int) -> Callable[[list[str]], np.ndarray]:
    runtime = _Runtime(variant.threads or threads, onnx_model=variant.model, tune=variant.tune)
    size = variant.batch_size or batch_size
    return lambda batch: runtime.run(batch, size, False, by_length=variant.by_length)[0]


if __name__ == "__main__":
    sys.exit(main())
