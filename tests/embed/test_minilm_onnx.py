"""MiniLM on ONNX Runtime: the torch model's vectors, no torch on the query path, a checked export.

The reference is the sentence-transformers model itself (torch, in the dev environment), run on
the same texts; the ONNX vectors must agree to cosine >= 0.999, or existing indexes would be
invalid under the same embedder name.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lastword.embed import onnx_export
from lastword.embed.minilm import MiniLMEmbedder, length_batches

TEXTS = [
    "Statins lowered LDL cholesterol by a third in adults over 65.",
    "To assess whether the timing of antibiotic prophylaxis affects surgical site infection, "
    "we reviewed 4,472 consecutive caesarean deliveries between 2004 and 2009. "
    "Infection rates were 2.1% with prophylaxis before incision and 4.8% after cord clamping.",
    "Ké? Ñandú — β-blockers (e.g. metoprolol) in HFrEF: 34% fewer deaths [12].",
    " ".join(["Long passages are cut at 256 word pieces, exactly where the model cuts them."] * 30),
]


@pytest.fixture(scope="module")
def reference():
    sentence_transformers = pytest.importorskip("sentence_transformers")
    model = sentence_transformers.SentenceTransformer(
        str(onnx_export.weights_dir()), device="cpu", local_files_only=True
    )
    return model


def test_sentence_vectors_agree_with_the_torch_model(reference, minilm: MiniLMEmbedder) -> None:
    expected = reference.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    got = MiniLMEmbedder(cache_size=0).embed_documents(TEXTS)
    cosines = (got * expected).sum(axis=1)
    assert cosines.min() >= 0.999, cosines
    assert minilm.info.name == "minilm" and minilm.info.model == onnx_export.MODEL_NAME


def test_token_vectors_agree_with_the_torch_model(reference) -> None:
    outputs = reference.encode(TEXTS[:3], output_value=None, convert_to_numpy=False)
    special = set(reference.tokenizer.all_special_ids)
    got = MiniLMEmbedder().embed_tokens(TEXTS[:3])
    for output, tokens in zip(outputs, got, strict=True):
        ids = output["input_ids"].tolist()
        keep = [i for i, t in enumerate(ids) if t not in special]
        names = reference.tokenizer.convert_ids_to_tokens([ids[j] for j in keep])
        assert tokens.tokens == tuple(names)
        expected = output["token_embeddings"].float().numpy()[keep]
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        assert (tokens.vectors * expected).sum(axis=1).min() >= 0.999


def test_the_query_path_imports_neither_torch_nor_sentence_transformers() -> None:
    code = (
        "import sys\n"
        "from lastword.embed.minilm import MiniLMEmbedder\n"
        "e = MiniLMEmbedder()\n"
        "assert e.embed_queries(['Do statins cause muscle pain?']).shape == (1, 384)\n"
        "assert len(e.embed_tokens(['Do statins lower LDL?'])[0].tokens) > 3\n"
        "print(sorted({'torch', 'sentence_transformers', 'transformers'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_torch_a_missing_export_is_one_clear_message(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from lastword.errors import ConfigError\n"
        "from lastword.embed.minilm import MiniLMEmbedder\n"
        "try:\n"
        "    MiniLMEmbedder().embed_queries(['a question'])\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "LASTWORD_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert "needs torch" in out.stdout and "python -m lastword.embed.onnx_export" in out.stdout
    assert not list((tmp_path / "models").glob("minilm-onnx-*/model.onnx"))  # nothing half-made


def test_a_damaged_export_is_never_run_and_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    source = onnx_export.weights_dir()
    real = onnx_export.ensure_exported()
    monkeypatch.setenv("LASTWORD_CACHE_DIR", str(tmp_path))
    copy = onnx_export.export_dir(source)
    shutil.copytree(real.directory, copy)
    assert onnx_export.load_checked(copy, source) is not None
    data = bytearray((copy / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the weights
    (copy / "model.onnx").write_bytes(bytes(data))
    assert onnx_export.load_checked(copy, source) is None
    remade = onnx_export.ensure_exported()  # a real export, with torch
    assert remade.directory == copy and remade.onnx_bytes == real.onnx_bytes


def test_a_checked_export_is_hashed_once_then_trusted_by_its_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = onnx_export.weights_dir()
    real = onnx_export.ensure_exported()
    copy = tmp_path / "export"
    shutil.copytree(real.directory, copy)
    (copy / onnx_export.STAMP_FILE).unlink(missing_ok=True)
    assert onnx_export.load_checked(copy, source) is not None  # hashed, then stamped
    assert (copy / onnx_export.STAMP_FILE).exists()

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} was hashed again")

    monkeypatch.setattr(onnx_export, "sha256_file", no_hashing)
    assert onnx_export.load_checked(copy, source) is not None  # a stat, no read
    # Same size, new bytes: the modification time moves, so the stamp no longer vouches for it.
    data = bytearray((copy / "model.onnx").read_bytes())
    data[-10] ^= 0xFF
    (copy / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(AssertionError, match="hashed again"):
        onnx_export.load_checked(copy, source)
    monkeypatch.undo()
    assert onnx_export.load_checked(copy, source) is None


def test_batches_are_length_sorted_and_capped_in_texts_and_padded_tokens() -> None:
    lengths = [90, 5, 300, 40, 41, 39, 256, 7]
    batches = length_batches(lengths, max_texts=3, max_tokens=120)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    widths = [max(lengths[i] for i in batch) for batch in batches]
    assert widths == sorted(widths)  # shortest first
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 120
    assert [lengths[i] for i in batches[0]] == [5, 7, 39]


def test_unsorted_batches_keep_the_order_and_the_same_caps() -> None:
    lengths = [90, 5, 300, 40, 41, 39, 256, 7]
    batches = length_batches(lengths, max_texts=3, max_tokens=120, by_length=False)
    assert [i for batch in batches for i in batch] == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 120
    assert batches[:4] == [[0], [1], [2], [3, 4]]  # 2 x 90 and 2 x 300 pieces do not fit


def test_the_export_runs_the_fused_graph() -> None:
    """Each of the six layers' attention, GELU and residual LayerNorms are single operators."""
    import json

    exported = onnx_export.ensure_exported()
    manifest = json.loads((exported.directory / onnx_export.MANIFEST_FILE).read_text())
    assert manifest["recipe"] == onnx_export.RECIPE
    assert manifest["fused"]["Attention"] == 6
    assert manifest["fused"]["SkipLayerNormalization"] == 12


def test_preload_creates_the_session_that_the_first_embedding_uses(minilm) -> None:
    from lastword.embed import minilm as module

    module.preload().join(timeout=120)
    assert module._runtime is not None
    runtime = module._runtime
    vector = minilm.embed_queries(["vitamin D and bone density"])[0]
    assert module._runtime is runtime and abs(float(vector @ vector) - 1.0) < 1e-4


def test_a_preload_with_another_thread_count_is_replaced_not_used(minilm) -> None:
    """The CLI preloads on every core before it reads the settings; an embedder configured with
    another thread count gets a session of its own, with the same vectors."""
    from lastword.embed import minilm as module

    module.preload().join(timeout=120)
    everywhere = module._runtime
    assert everywhere is not None and everywhere.threads == module.usable_cores()
    other = module.usable_cores() + 1
    one = MiniLMEmbedder(threads=other).embed_queries(["vitamin D and bone density"])[0]
    assert module._runtime is not everywhere and module._runtime.threads == other
    again = MiniLMEmbedder().embed_queries(["vitamin D and bone density"])[0]
    assert module._runtime.threads == module.usable_cores()
    assert float(one @ again) > 0.9999
