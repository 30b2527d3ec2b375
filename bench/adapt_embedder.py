"""An embedder adapted to each corpus, self-supervised (issue 12, stop 25): shipped vs adapted.

The shipped all-MiniLM-L6-v2 is fine-tuned on pairs its corpus gives for free (``bench/
adapt_train.py``: title -> passage, or inverse cloze), nothing from the claims or questions;
then the corpus is ingested again with the adapted model (the product's ``ingest_paths``, its
ONNX runtime fed the adapted export) and measured against the shipped index:

- SciFact (BEIR: 5,183 abstracts; train claims to decide, the 300 dev claims to report):
  dense nDCG@10 / recall@100, the product's hybrid (shipped tuning) over each index, the dense
  top-cosine AUC (answerable: cited abstracts present; trap: removed), and with ``--gate`` the
  shipped gate's AUC (shipped model and signals, hybrid ranking) over each index;
- PubMedQA (1,000 abstracts; dev half to decide, test half to report): own abstract at rank 1
  and in the top 8 (dense, hybrid), top-cosine AUC, and with ``--gate`` the shipped gate's AUC.
  Adapted on all 1,000 abstracts' text, the test half's included (no question, no label).

One model per process (the ONNX runtime is the process's); results go to ``--out/results``
and ``report`` prints them side by side.

    .venv/bin/python bench/adapt_embedder.py train --variant NAME          # nice -n 15
    .venv/bin/python bench/adapt_embedder.py eval --model shipped|NAME --corpus C [--gate]
    .venv/bin/python bench/adapt_embedder.py report

Numbers from a busy, shared 2-core machine (1 torch / ONNX thread).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import time

import numpy as np

from adapt_train import (
    document_vectors,
    ict_pairs,
    one_per_document,
    title_pairs,
    train,
)
from bench_indexes import CACHE, DATASETS, jsonl, pubmedqa_halves, pubmedqa_index, scifact_index
from lastword.embed import minilm
from lastword.embed.protocol import EmbedderInfo
from lastword.evaluate.metrics import roc_auc
from lastword.evaluate.retrieval import documents_in_order, score_rankings
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.retrieve import retrieve, tuning_from
from lastword.settings import GateSettings, IngestSettings, RetrieveSettings, Settings
from lastword.store.local import LocalStore

OUT = Path("/tmp/s25/adapt")

#: name -> (corpus, pair kind, hard batches, options). Chosen before any result was seen.
VARIANTS = {
    "scifact-title": ("scifact", "title", True, {}),
    "scifact-ict": ("scifact", "ict", True, {}),
    "pubmedqa-ict": ("pubmedqa", "ict", True, {}),
}


def corpus_texts(corpus: str, data: Path) -> dict[str, str]:
    """Each document's text as the product ingests it (abstract only; no claim, no question)."""
    if corpus == "scifact":
        from lastword.evaluate.datasets.scifact import corpus_record

        rows = (json.loads(x) for x in (data / "scifact" / "corpus.jsonl").open(encoding="utf-8"))
        return {r["id"]: r["text"] for r in map(corpus_record, rows)}
    from lastword.evaluate.datasets.pubmedqa import corpus_record, load_pubmedqa

    records, _ = load_pubmedqa(data / "pubmedqa")
    return {p: corpus_record(p, r)["text"] for p, r in records.items()}


def shipped_index(corpus: str, data: Path, cache: Path) -> Path:
    if corpus == "scifact":
        return scifact_index(data / "scifact", cache)
    return pubmedqa_index(data / "pubmedqa", cache)


def make_pairs(variant: str, data: Path, cache: Path) -> list:
    corpus, kind, _, _ = VARIANTS[variant]
    if kind == "title":
        index = shipped_index(corpus, data, cache)
        return one_per_document(title_pairs(index, data / "scifact" / "corpus.jsonl"))
    return ict_pairs(corpus_texts(corpus, data), per_doc=1 if corpus == "scifact" else 3)


def cmd_train(args: argparse.Namespace) -> int:
    corpus, _, hard, options = VARIANTS[args.variant]
    pairs = make_pairs(args.variant, args.data, args.cache)
    vectors = document_vectors(shipped_index(corpus, args.data, args.cache)) if hard else None
    print(f"{args.variant}: {len(pairs)} pairs, e.g. {pairs[0][1][:80]!r} -> {pairs[0][2][:80]!r}")
    record = train(
        pairs,
        args.out / args.variant,
        seq=args.seq,
        batch=args.batch,
        minutes=args.minutes,
        vectors=vectors,
        **options,
    )
    print(json.dumps(record))
    return 0


class AdaptedMiniLM(minilm.MiniLMEmbedder):
    """The product's MiniLM embedder (ONNX Runtime, 1 thread) running another export of the
    same graph: the process's runtime is replaced, so one model per process."""

    def __init__(self, variant: str, onnx: Path) -> None:
        super().__init__(threads=1)
        minilm._runtime = minilm._Runtime(1, onnx_model=onnx)
        model = f"{minilm.MODEL_NAME}+adapted:{variant}"
        self._info = EmbedderInfo(name="minilm", model=model, dim=minilm.DIM)


def model_index(args: argparse.Namespace, corpus: str) -> tuple[object, Path, dict]:
    """(embedder, index, cost): the shipped index, or the corpus ingested with the adapted
    model under ``--out/MODEL/index-CORPUS`` (built once; its cost recorded beside it)."""
    if args.model == "shipped":
        return minilm.MiniLMEmbedder(threads=1), shipped_index(corpus, args.data, args.cache), {}
    embedder = AdaptedMiniLM(args.model, args.out / args.model / "onnx" / "model.onnx")
    index = args.out / args.model / f"index-{corpus}"
    cost_file = args.out / args.model / f"embed-{corpus}.json"
    if not (index / "complete").exists():
        shipped_index(corpus, args.data, args.cache)  # writes the corpus file it was built from
        started = time.perf_counter()
        ingest_paths([args.cache / f"{corpus}.jsonl"], index, embedder, IngestSettings())
        seconds = time.perf_counter() - started
        with LocalStore.open(index) as store:
            passages = store.info().passages
        cost = {"ingest_s": round(seconds, 1), "passages": passages}
        cost_file.write_text(json.dumps(cost), encoding="utf-8")
        (index / "complete").write_text("ok\n")
    return embedder, index, json.loads(cost_file.read_text(encoding="utf-8"))


class Matrix:
    """Every passage vector of an index, grouped by document: exact dense scores in numpy."""

    def __init__(self, index: Path) -> None:
        import sqlite3

        with sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT doc_id, vector FROM passages ORDER BY doc_id").fetchall()
        self.vectors = np.stack([np.frombuffer(v, dtype="<f4") for _, v in rows])
        docs = [d for d, _ in rows]
        self.docs = list(dict.fromkeys(docs))
        self.starts = np.array([i for i, d in enumerate(docs) if i == 0 or docs[i - 1] != d])
        self.row_of = {d: i for i, d in enumerate(self.docs)}

    def doc_scores(self, query: np.ndarray) -> np.ndarray:
        """Each document's best passage cosine."""
        return np.maximum.reduceat(self.vectors @ query, self.starts)

    def ranking(self, scores: np.ndarray, depth: int = 100) -> list[str]:
        top = np.argsort(-scores, kind="stable")[:depth]
        return [self.docs[i] for i in top]

    def top_without(self, scores: np.ndarray, excluded) -> float:
        rows = [self.row_of[d] for d in excluded if d in self.row_of]
        kept = np.delete(scores, rows)
        return float(kept.max())


def auc_where(pos: list[float], keep: list[bool], neg: list[float]) -> float:
    """The AUC over the answerable questions ``keep`` marks (their own document ranked first)."""
    return roc_auc([p for p, k in zip(pos, keep, strict=True) if k], neg)


def retrieval_lines(matrix: Matrix, embedder, store, sets: dict) -> dict:
    """Per set of (id, question, evidence docs): dense and hybrid nDCG@10 / recall@100 /
    rank 1 / top 8, and the dense top-cosine AUC (answerable vs evidence removed)."""
    tuning = tuning_from(RetrieveSettings())
    out = {}
    for name, items in sets.items():
        vectors = embedder.embed_queries([q for _, q, _ in items])
        qrels = {i: dict.fromkeys(ev, 1) for i, _, ev in items}
        dense, hybrid, pos, neg, first = {}, {}, [], [], []
        for (qid, question, evidence), vector in zip(items, vectors, strict=True):
            scores = matrix.doc_scores(vector)
            dense[qid] = matrix.ranking(scores)
            pos.append(float(scores.max()))
            neg.append(matrix.top_without(scores, evidence))
            first.append(dense[qid][0] in evidence)
            found = retrieve(question, embedder, store, 100, mode="hybrid", tuning=tuning)
            hybrid[qid] = documents_in_order(p.doc_id for p in found.passages)
        row = {"n": len(items)}
        for mode, rankings in (("dense", dense), ("hybrid", hybrid)):
            scores = score_rankings(rankings, qrels, (8, 100))
            row[f"{mode} nDCG@10"] = scores.ndcg_at_10
            row[f"{mode} recall@100"] = scores.recall[100]
            row[f"{mode} rank1"] = sum(rankings[i][0] in ev for i, _, ev in items) / len(items)
            row[f"{mode} top8"] = sum(
                bool(set(rankings[i][:8]) & set(ev)) for i, _, ev in items
            ) / len(items)
        row["top-cosine AUC"] = roc_auc(pos, neg)
        row["top-cosine AUC, own first"] = auc_where(pos, first, neg)
        out[name] = row
    return out


def gate_lines(embedder, index: Path, sets: dict, limit: int | None) -> dict:
    """The shipped gate (its model and signals, no automatic thresholds: the AUC reads only the
    score) over ``index``, each question with its evidence and again without it."""
    settings = Settings(gate=GateSettings(auto=False), retrieve={"mode": "hybrid"})
    out = {}
    with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
        for name, items in sets.items():
            started = time.perf_counter()
            pos, neg, tops = [], [], []
            for _, question, evidence in items[:limit]:
                for answerable in (True, False):
                    result = pipeline.inspect(question, () if answerable else tuple(evidence), 8)
                    score = result.gate.score if result.gate else 0.0
                    (pos if answerable else neg).append(score)
                    if answerable:
                        tops.append(bool(result.passages) and result.passages[0].doc_id in evidence)
            out[name] = {
                "gate AUC": roc_auc(pos, neg),
                "gate AUC, own first": auc_where(pos, tops, neg),
                "gate n": len(pos),
                "gate s a question": round((time.perf_counter() - started) / len(pos), 3),
            }
            print(f"  {name}: {out[name]}", flush=True)
    return out


def question_sets(corpus: str, data: Path) -> dict:
    if corpus == "pubmedqa":
        return {
            name.split()[1]: [(f"q{i}", q, tuple(ev)) for i, (q, ev) in enumerate(items)]
            for name, items in pubmedqa_halves(data / "pubmedqa").items()
        }
    sets = {}
    for half in ("train", "dev"):
        claims = [c for c in jsonl(data / "scifact" / f"claims_{half}.jsonl") if c["cited_doc_ids"]]
        sets[half] = [
            (str(c["id"]), c["claim"], tuple(map(str, c["cited_doc_ids"]))) for c in claims
        ]
    return sets


def cmd_eval(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    embedder, index, cost = model_index(args, args.corpus)
    print(f"{args.model} / {args.corpus}: index {index} ({cost or 'shipped, cached'})", flush=True)
    sets = question_sets(args.corpus, args.data)
    matrix = Matrix(index)
    with LocalStore.open(index) as store:
        results = retrieval_lines(matrix, embedder, store, sets)
    for name, row in results.items():
        print(f"  {name}: " + ", ".join(f"{k} {v:.4f}" for k, v in row.items()), flush=True)
    if args.gate:
        for name, row in gate_lines(embedder, index, sets, args.limit).items():
            results[name].update(row)
    results["cost"] = {**cost, "eval_s": round(time.perf_counter() - started, 1)}
    target = args.out / "results" / f"{args.model}--{args.corpus}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    saved = json.loads(target.read_text()) if target.exists() else {}
    for name, row in results.items():
        saved.setdefault(name, {}).update(row)
    target.write_text(json.dumps(saved, indent=1), encoding="utf-8")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    found = sorted((args.out / "results").glob("*.json"))
    for corpus in ("scifact", "pubmedqa"):
        print(f"== {corpus} ==")
        for path in found:
            model, name = path.stem.split("--")
            if name != corpus:
                continue
            saved = json.loads(path.read_text())
            train = args.out / model / "train.json"
            if train.exists():
                t = json.loads(train.read_text())
                print(
                    f"{model}: trained on {t['pairs_trained']}/{t['pairs']} pairs, {t['steps']} "
                    f"steps, {t['train_min']} min, loss {t['loss_first20']} -> {t['loss_last20']}"
                )
            print(f"{model}: cost {saved.pop('cost', {})}")
            for half, row in saved.items():
                cells = ", ".join(
                    f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()
                )
                print(f"  {model:20} {half:6} {cells}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--data", type=Path, default=DATASETS)
    parser.add_argument("--out", type=Path, default=OUT)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="Adapt MiniLM to one corpus (one epoch, 1 thread).")
    t.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    t.add_argument("--seq", type=int, default=128)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--minutes", type=float, default=25.0)
    e = sub.add_parser("eval", help="Measure one model on one corpus (see the docstring).")
    e.add_argument("--model", required=True, help="shipped, or a trained variant's name")
    e.add_argument("--corpus", choices=("scifact", "pubmedqa"), required=True)
    e.add_argument("--gate", action="store_true", help="Also the shipped gate's AUC (slower).")
    e.add_argument("--limit", type=int, help="Gate: the first N questions of each set.")
    sub.add_parser("report", help="Print every saved result side by side.")
    args = parser.parse_args()
    print("(numbers from a busy, shared 2-core machine; 1 thread)")
    commands = {"train": cmd_train, "eval": cmd_eval, "report": cmd_report}
    return commands[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
