"""MiniLM on torch (sentence-transformers) against ONNX Runtime fp32 and int8, side by side.

The same real passages (PubMedQA contexts, the first --passages of them) are embedded by each
runtime in one run, --repeat rounds, the runtimes taking turns within each round so a burst of
load on the shared machine hits them alike; the best run counts and the spread is printed.
Besides passages per wall second it prints passages per CPU-second of this process (user +
system), which a busy machine disturbs far less. Cosine agreement is to the torch vectors.

    .venv/bin/python bench/embed_speed.py [--passages 2000] [--repeat 2] [--threads 0]
        [--batch-size 32] [--no-torch]

"onnx fp32" is the shipped ``minilm`` runtime (the fused export); "onnx int8" is that graph with
dynamic int8 weights (per-channel, reduced range), measured and not shipped.

The gate's PubMedQA AUC with the ONNX embedder: bench/gate_calibration_pubmedqa.py (it embeds
through MiniLMEmbedder, which is the ONNX runtime).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lastword.embed.minilm import _Runtime, usable_cores
from lastword.embed.onnx_export import ensure_exported, quantize_int8, weights_dir

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def passages(data: Path, count: int) -> list[str]:
    records = json.loads((data / "ori_pqal.json").read_text(encoding="utf-8"))
    texts = [part.strip() for record in records.values() for part in record["CONTEXTS"]]
    return [t for t in texts if t][:count]


def timed(embed: Callable[[list[str]], np.ndarray], texts: list[str]):
    """(vectors, wall seconds, CPU seconds of this process) of one run."""
    cpu = time.process_time()
    started = time.perf_counter()
    vectors = embed(texts)
    return vectors, time.perf_counter() - started, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="0: every usable core")
    parser.add_argument("--no-torch", action="store_true", help="ONNX only (cosine to fp32)")
    args = parser.parse_args()
    threads = args.threads or usable_cores()
    texts = passages(args.data, args.passages)
    load = os.getloadavg()[0]
    print(
        f"{len(texts)} PubMedQA passages, batch {args.batch_size}, {threads} threads on "
        f"{os.cpu_count()} cores; load average {load:.1f} (a shared machine: numbers are noisy)"
    )

    rows: dict[str, Callable[[list[str]], np.ndarray]] = {}
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

    exported = ensure_exported()
    with tempfile.TemporaryDirectory() as scratch:
        int8 = quantize_int8(exported.onnx_path, Path(scratch) / "model.int8.onnx")
        runtimes = {
            "onnx fp32": _Runtime(threads),
            "onnx int8": _Runtime(threads, onnx_model=int8.read_bytes()),
        }
        int8_mb = int8.stat().st_size / 1e6
    fp32_mb = exported.onnx_path.stat().st_size / 1e6
    print(f"model files: fp32 {fp32_mb:.0f} MB ({exported.directory.name}), int8 {int8_mb:.0f} MB")
    for name, runtime in runtimes.items():
        rows[name] = lambda batch, r=runtime: r.run(batch, args.batch_size, False)[0]

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.repeat):
        for name, embed in rows.items():
            vectors[name], wall, cpu = timed(embed, texts)
            runs[name].append((len(texts) / wall, len(texts) / cpu))
    reference = vectors[next(iter(rows))]
    base = max(rate for rate, _ in runs[next(iter(rows))])
    header = (
        "runtime",
        "best p/s",
        "runs p/s",
        "x " + next(iter(rows)),
        "p/cpu-s",
        "cos min",
        "mean",
    )
    print("{:10} {:>9} {:>18} {:>9} {:>8} {:>8} {:>8}".format(*header))
    for name, rates in runs.items():
        best = max(rate for rate, _ in rates)
        cosines = (vectors[name] * reference).sum(axis=1)
        print(
            f"{name:10} {best:9.1f} {' '.join(f'{r:.1f}' for r, _ in rates):>18} "
            f"{best / base:9.2f} {max(c for _, c in rates):8.1f} "
            f"{cosines.min():8.5f} {cosines.mean():8.5f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
