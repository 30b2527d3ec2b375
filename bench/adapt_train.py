"""Self-supervised adaptation of the shipped all-MiniLM-L6-v2 to one corpus (no labels).

Pairs the corpus gives for free, nothing from the claims or questions:

- ``title``: a document's title -> each of its passages (the product's own chunks, read from
  the shipped index), for corpora with titles (SciFact);
- ``ict``: inverse cloze: one sentence -> the sentences around it (up to two before and two
  after, the sentence itself removed), for corpora without titles (PubMedQA contexts).

One epoch of MultipleNegativesRankingLoss (in-batch negatives, scale 20), AdamW 2e-5 with a
10% linear warm-up; every batch holds pairs of distinct documents, so no in-batch negative is
the anchor's own document. CPU, 1 torch thread. The model is saved (sentence-transformers
layout) and exported to ONNX with the product's recipe (``lastword.embed.onnx_export.export``)
under ``--out``, never in the repository. Used by ``bench/adapt_embedder.py``.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.split(text) if len(s.strip()) > 20]


def title_pairs(index: Path, corpus: Path) -> list[tuple[str, str, str]]:
    """(doc id, title, passage) for each passage of the shipped index whose document has a title."""
    titles = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line:
            raw = json.loads(line)
            if raw.get("title"):
                titles[str(raw["doc_id"])] = raw["title"]
    with sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT doc_id, text FROM passages ORDER BY doc_id, position")
        return [(d, titles[d], text) for d, text in rows if d in titles]


def one_per_document(pairs: list, seed: int = 0) -> list:
    """One pair a document, chosen at random (a shorter epoch on a busy machine)."""
    rng = random.Random(seed)
    by_doc: dict[str, list] = {}
    for pair in pairs:
        by_doc.setdefault(pair[0], []).append(pair)
    return [rng.choice(found) for _, found in sorted(by_doc.items())]


def ict_pairs(documents: dict[str, str], per_doc: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """(doc id, one sentence, its neighbours without it): ``per_doc`` sentences a document."""
    rng = random.Random(seed)
    pairs = []
    for doc_id, text in sorted(documents.items()):
        found = sentences(text)
        if len(found) < 3:
            continue
        for i in sorted(rng.sample(range(len(found)), min(per_doc, len(found)))):
            context = found[max(0, i - 2) : i] + found[i + 1 : i + 3]
            pairs.append((doc_id, found[i], " ".join(context)))
    return pairs


def distinct_batches(pairs: list, size: int, seed: int = 0) -> list[list]:
    """Shuffled batches of ``size`` pairs, no two pairs from the same document in one batch (a
    last pair with no other document left to share a batch with is left out)."""
    rng = random.Random(seed)
    pending = pairs[:]
    rng.shuffle(pending)
    batches: list[list] = []
    while pending:
        batch, seen, rest = [], set(), []
        for pair in pending:
            if len(batch) < size and pair[0] not in seen:
                batch.append(pair)
                seen.add(pair[0])
            else:
                rest.append(pair)
        if len(batch) < 2:
            break
        batches.append(batch)
        pending = rest
    return batches


def document_vectors(index: Path) -> dict[str, np.ndarray]:
    """Each document's mean passage vector in the shipped index (unit length)."""
    import numpy as np

    sums: dict[str, np.ndarray] = {}
    with sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True) as conn:
        for doc_id, blob in conn.execute("SELECT doc_id, vector FROM passages"):
            vector = np.frombuffer(blob, dtype="<f4")
            sums[doc_id] = sums.get(doc_id, 0) + vector
    return {d: v / np.linalg.norm(v) for d, v in sums.items()}


def clustered_batches(
    pairs: list, vectors: dict, size: int, seed: int = 0, per_cluster: int = 64
) -> list[list]:
    """Hard in-batch negatives: documents grouped by spherical k-means over the shipped
    model's document vectors (about ``per_cluster`` documents a cluster), batches drawn within
    a cluster (distinct documents), the leftovers batched together; batch order shuffled."""
    import numpy as np

    docs = sorted({p[0] for p in pairs})
    matrix = np.stack([vectors[d] for d in docs]).astype(np.float32)
    k = max(1, len(docs) // per_cluster)
    rng = np.random.default_rng(seed)
    centres = matrix[rng.choice(len(docs), k, replace=False)]
    for _ in range(15):
        labels = (matrix @ centres.T).argmax(axis=1)
        for c in range(k):
            members = matrix[labels == c]
            if len(members):
                centre = members.sum(axis=0)
                centres[c] = centre / np.linalg.norm(centre)
    cluster = dict(zip(docs, labels.tolist(), strict=True))
    groups: dict[int, list] = {}
    for pair in pairs:
        groups.setdefault(cluster[pair[0]], []).append(pair)
    batches, rest = [], []
    for c, members in sorted(groups.items()):
        for chunk in distinct_batches(members, size, seed + c):
            (batches if len(chunk) == size else rest).append(chunk)
    batches += distinct_batches([p for chunk in rest for p in chunk], size, seed)
    random.Random(seed).shuffle(batches)
    return batches


def train(
    pairs: list[tuple[str, str, str]],
    out: Path,
    *,
    seq: int = 128,
    batch: int = 32,
    lr: float = 2e-5,
    minutes: float = 30.0,
    seed: int = 0,
    vectors: dict | None = None,
) -> dict:
    """One epoch of in-batch-negative contrastive training from the shipped weights; stops early
    at ``minutes`` (the report says how many steps ran). Saves to ``out/st`` and exports
    ``out/onnx``; returns the cost record (also written to ``out/train.json``)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.losses import MultipleNegativesRankingLoss

    from lastword.embed.onnx_export import export, weights_dir

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = SentenceTransformer(str(weights_dir()), device="cpu")
    model.max_seq_length = seq
    loss_fn = MultipleNegativesRankingLoss(model)
    if vectors is None:
        batches = distinct_batches(pairs, batch, seed)
    else:
        batches = clustered_batches(pairs, vectors, batch, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    warm = max(1, len(batches) // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: min(
            (step + 1) / warm, max(0.0, (len(batches) - step) / (len(batches) - warm))
        ),
    )
    model.train()
    started = time.monotonic()
    losses = []
    steps = 0
    for chunk in batches:
        if time.monotonic() - started > minutes * 60:
            break
        anchors = model.tokenize([p[1] for p in chunk])
        positives = model.tokenize([p[2] for p in chunk])
        loss = loss_fn([anchors, positives], None)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        losses.append(float(loss))
        steps += 1
        if steps % 20 == 0:
            rate = (time.monotonic() - started) / steps
            print(
                f"  step {steps}/{len(batches)}  loss {sum(losses[-20:]) / 20:.3f}  "
                f"{rate:.1f} s a step",
                flush=True,
            )
    train_s = time.monotonic() - started
    model.eval()
    (out / "st").mkdir(parents=True, exist_ok=True)
    model.save(str(out / "st"))
    export_started = time.monotonic()
    export(out / "st", out / "onnx")
    record = {
        "pairs": len(pairs),
        "pairs_trained": sum(len(b) for b in batches[:steps]),
        "steps": steps,
        "batches": len(batches),
        "batch": batch,
        "seq": seq,
        "lr": lr,
        "hard_batches": vectors is not None,
        "train_min": round(train_s / 60, 2),
        "export_s": round(time.monotonic() - export_started, 1),
        "loss_first20": round(sum(losses[:20]) / max(1, len(losses[:20])), 3),
        "loss_last20": round(sum(losses[-20:]) / max(1, len(losses[-20:])), 3),
        "complete": steps == len(batches),
    }
    (out / "train.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return record
