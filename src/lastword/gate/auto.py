"""The gate calibrates itself on each index, from the index's own titles and sentences.

Thresholds fitted on one corpus do not hold on another (PubMedQA's let through 6% of SciFact's
unanswerable claims; docs/calibration.md), and a lab will not label hundreds of questions. Its
corpus offers two kinds of question by itself:

- *answerable*: a document's title, or a sentence from one of its passages, asked against the
  whole index;
- *unanswerable*: the same text asked with its own document excluded from retrieval (corpus
  ablation, as the PubMedQA and SciFact benches do): only its neighbours remain.

Each is retrieved (the mode the pipeline uses) and scored by the gate (``Gate.run``, the same
model and signals as at question time); no model generates anything. ``weak`` is the loosest
threshold that lets through at most ``auto_target_far`` of the unanswerable ones, ``strong``
the one at a quarter of that, never below ``weak``. The result, with its evidence, is stored in
the index's meta (``gate_auto``: works on every store) and used by the pipeline unless the
operator's settings give this embedder's thresholds (``thresholds_for_index``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np

from lastword.embed.protocol import Embedder, TokenEmbedder
from lastword.evaluate import metrics
from lastword.gate.decide import Gate
from lastword.gate.signals import DEPTH
from lastword.retrieve import HybridTuning, Mode, retrieve
from lastword.settings import Settings, Thresholds, shipped_thresholds
from lastword.store.protocol import Store
from lastword.terms import terms

#: the meta key the automatic calibration is stored under
META_KEY = "gate_auto"
#: below this many documents, excluding one leaves too few neighbours to say anything
MIN_DOCUMENTS = 10
#: a sentence that stands in for a question: this many words
SENTENCE_WORDS = (8, 40)
#: and at least this many content terms
MIN_TERMS = 4
#: queries per document at most, when the corpus is small
MAX_PER_DOCUMENT = 12
#: the tail of the unanswerable sentences' gate scores that places a corpus against PubMedQA
#: (dense ranking; each ranking's own: ``SHIFT_QUANTILES``)
SHIFT_QUANTILE = 0.85
#: per ranking, each chosen end to end on the papers' DEV half (below)
SHIFT_QUANTILES = {"dense": SHIFT_QUANTILE, "hybrid": 0.90}
#: fewer unanswerable sentences than this cannot place that tail
MIN_SHIFT_QUERIES = 20
#: how the calibration samples its queries and reads the tail; a stored calibration made with
#: another version is made again at the next ingest. 1: one shuffled stream over all documents,
#: the tail a sample quantile. 2: each document's queries chosen by a hash of its own id and
#: text (an edit elsewhere changes none of them), the tail a Harrell-Davis quantile of the
#: scores' log-odds (a weighted mean of every order statistic, so one changed score moves it
#: a little, never by a jump to the next order statistic); a document that gives one query
#: gives a sentence (v1: a title or a sentence, alternately), so the tail is read from about
#: twice as many sentences on a large corpus. docs/calibration.md, "Stability".
VERSION = 2
#: that tail on PubMedQA PQA-L (1,000 abstracts; 120 sentences, seed 0), where the shipped
#: MiniLM thresholds were chosen on labelled dev questions. The quantile was first chosen (0.8)
#: for the gate alone: at most 3% false accepts on the dev halves of PubMedQA, SciFact and the
#: papers. Since the extractive generator refuses too (its answer floor), it is chosen end to
#: end on the papers' DEV half: of 0.8 (weak 0.912: 5/25 right), 0.85 (0.858: 7/25, no false
#: accept) and 0.9 (0.794: 7/25, one), the most right with the fewest false accepts
#: (docs/calibration.md, bench/answer_scorer.py --weak). On PubMedQA the shift is nil whatever
#: the quantile.
#: The hybrid ranking's tail is measured the same way (same index, 120 sentences, seed 0) with
#: the hybrid gate model (bench/auto_calibration.py pubmedqa --mode hybrid), and its quantile
#: chosen the same way on the papers' DEV half (bench/answer_scorer.py --weak, hybrid): 0.75
#: (weak 0.859), 0.8 (0.866) and 0.95 (0.881) each 9/25 right, no false accept; 0.85 (0.807)
#: and 0.9 (0.808) 9/25 with one. Of the tied, the one nearest the dense 0.85: 0.8.
#: Measured again for version 2 (its own sample and estimator; bench/gate_jitter.py
#: --base-only on PubMedQA, seed 0): dense 0.0643 at 0.85 (v1 0.0763). Under v2 the hybrid
#: quantile was chosen again on the DEV halves (papers DEV answers, SciFact odd-id claims'
#: false accepts): 0.80 (tail 0.0479; papers weak 0.902, a11 refused) or 0.90 (tail 0.1596;
#: papers weak 0.871): SciFact dev 3/100 either way, so 0.90. docs/calibration.md.
REFERENCE_TAIL = {("minilm", "dense"): 0.0643, ("minilm", "hybrid"): 0.1596}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
#: a reference-list entry or a citation line, not a statement
_CITATION = re.compile(r"^\(?\d{4}[a-z]?\)|\bet al\b|\bdoi\b|https?:|\bvol\.|\bpp\.", re.I)

ThresholdSource = Literal["settings", "index", "default"]


@dataclass(frozen=True)
class SyntheticQuery:
    text: str
    doc_id: str
    kind: Literal["title", "sentence"]


@dataclass(frozen=True)
class AutoCalibration:
    """What the automatic calibration chose, and the evidence, as stored in the index."""

    embedder: str
    mode: str
    #: the gate model the scores came from (None: the top cosine), as settings would write it
    model: dict[str, float] | None
    fingerprint: str
    calibrated_at: str
    documents: int
    #: why no thresholds were chosen (too few documents, ...); None when they were
    skipped: str | None = None
    strong: float | None = None
    weak: float | None = None
    target_far: float | None = None
    #: "shift": the shipped thresholds moved by this corpus's tail against PubMedQA's;
    #: "quantile": this corpus's own tail at ``target_far`` (no reference for the gate in use)
    rule: str = "quantile"
    #: the unanswerable sentences' gate score at ``quantile`` (the "shift" rule)
    tail: float | None = None
    #: the ``SHIFT_QUANTILE`` it was made with (None: before it was recorded); a calibration
    #: made with another is made again
    quantile: float | None = None
    titles: int = 0
    sentences: int = 0
    auc: float | None = None
    #: on the synthetic questions, at ``weak``
    far: float | None = None
    kept: float | None = None
    seconds: float = 0.0
    #: the gate scores (answerable, unanswerable), rounded, so the choice can be checked
    scores: dict[str, list[float]] = field(default_factory=dict)
    #: each query's kind, in the order of the scores
    kinds: list[str] = field(default_factory=list)
    #: how it was sampled and read (``VERSION``); 1 for a calibration stored before it was
    #: recorded
    version: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> AutoCalibration | None:
        try:
            data = json.loads(text)
            return cls(**data)
        except (ValueError, TypeError):
            return None  # written by another version: as if never calibrated

    def describe(self) -> str:
        if self.skipped or self.weak is None:
            return f"not calibrated on this index: {self.skipped}"
        auc = f"{self.auc:.3f}" if self.auc is not None else "n/a"
        how = (
            f"the shipped thresholds shifted by this corpus's unanswerable tail "
            f"({self.tail:.3f} at {self.quantile or SHIFT_QUANTILE:.0%}; PubMedQA's is the "
            "reference)"
            if self.rule == "shift"
            else f"at most {self.target_far:.0%} of its unanswerable questions let through"
        )
        return (
            f"weak {self.weak:.4f}, strong {self.strong:.4f}: calibrated on this index "
            f"({self.calibrated_at[:16]}, {self.mode} ranking) from {self.titles} titles and "
            f"{self.sentences} sentences of its own documents, each also asked without its "
            f"document: {how}; AUC {auc}, {self.far:.1%} of those let through at weak, "
            f"{self.kept:.1%} of the answerable kept; {self.seconds:.1f}s"
        )


def _sentences(text: str) -> list[str]:
    chosen = []
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        words = sentence.split()
        if not SENTENCE_WORDS[0] <= len(words) <= SENTENCE_WORDS[1]:
            continue
        letters = sum(c.isalpha() for c in sentence)
        if letters < 0.6 * len(sentence) or len(terms(sentence)) < MIN_TERMS:
            continue  # numbers, table rows
        if _CITATION.search(sentence):
            continue
        chosen.append(sentence)
    return chosen


def _evidence_text(store: Store, doc_id: str, kinds: Collection[str] | None) -> str:
    passages, _ = store.export_document(doc_id)
    return "\n\n".join(p.text for p in passages if kinds is None or p.kind in kinds)


def _key(seed: int, *parts: str) -> bytes:
    """A stable pseudo-random sort key: the same for the same seed and parts on any run."""
    text = "\x1f".join((str(seed), *parts))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()


def synthetic_queries(
    store: Store, limit: int, seed: int = 0, kinds: Collection[str] | None = None
) -> list[SyntheticQuery]:
    """Up to ``limit`` titles and sentences of the index's documents, spread over documents.

    A large corpus gives one query from each of ``limit`` sampled documents (one of its
    sentences; its title when it has none); a small one gives each document several, its
    title among them.

    Which documents, and which of a document's sentences, are chosen by a hash of the seed with
    the document's id (and the sentence's text), not by one random stream over the corpus: an
    edit to one document changes that document's queries only, and adding or removing a
    document changes which are sampled by that document alone.
    """
    documents = sorted(store.documents(), key=lambda d: _key(seed, d.doc_id))[:limit]
    per_document = min(MAX_PER_DOCUMENT, max(1, math.ceil(limit / max(1, len(documents)))))
    # here, not at the top: the eval-set package (pydantic models) is not on the ask path
    from lastword.evaluate.datasets.titles import usable_title

    queries: list[SyntheticQuery] = []
    for document in documents:
        own: list[SyntheticQuery] = []
        sentences = _sentences(_evidence_text(store, document.doc_id, kinds))
        sentences.sort(key=lambda text: _key(seed, document.doc_id, text))
        # The shift rule reads the sentences' tail, so a document that gives one query gives
        # a sentence (its title only when it has none); one that gives several, its title too.
        if usable_title(document) and (per_document > 1 or not sentences):
            own.append(SyntheticQuery(" ".join(document.title.split()), document.doc_id, "title"))
        for sentence in sentences[: per_document - len(own)]:
            own.append(SyntheticQuery(sentence, document.doc_id, "sentence"))
        queries.extend(own)
    return queries[:limit]


def harrell_davis(values: Collection[float], q: float) -> float:
    """The Harrell-Davis estimate of the ``q`` quantile: every order statistic weighted by the
    Beta((n+1)q, (n+1)(1-q)) mass of its slot (Harrell & Davis 1982). Smooth in the values, so
    a corpus edit that moves a few scores moves it a little."""
    x = np.sort(np.asarray(list(values), dtype=np.float64))
    n = len(x)
    if n == 0:
        raise ValueError("a quantile needs at least one value")
    if n == 1:
        return float(x[0])
    a, b = (n + 1) * q, (n + 1) * (1 - q)
    # the Beta density on a fine grid, integrated slot by slot (no scipy on the ask path)
    per_slot = max(400, 20_000 // n)
    grid = np.linspace(0.0, 1.0, per_slot * n + 1)
    inner = grid[1:-1]
    log_pdf = (a - 1) * np.log(inner) + (b - 1) * np.log1p(-inner)
    pdf = np.concatenate([[0.0], np.exp(log_pdf - log_pdf.max()), [0.0]])
    cdf = np.concatenate([[0.0], np.cumsum((pdf[1:] + pdf[:-1]) / 2)])
    cdf /= cdf[-1]
    weights = np.diff(cdf[::per_slot])
    return float(weights @ x)


def tail_of(scores: Collection[float], q: float) -> float:
    """The unanswerable sentences' tail the shift rule reads: the Harrell-Davis ``q`` quantile
    of their log-odds, as a score."""
    return sigmoid(harrell_davis([logit(s) for s in scores], q))


def gate_scores(
    queries: list[SyntheticQuery],
    store: Store,
    embedder: Embedder,
    thresholds: Thresholds,
    mode: Mode,
    tuning: HybridTuning | None = None,
    kinds: Collection[str] | None = None,
) -> tuple[list[float], list[float]]:
    """(scores with the own document, scores without it) from the gate on each query."""
    gate = Gate(thresholds, store, embedder, store.embedder.name)
    texts = [q.text for q in queries]
    for start in range(0, len(texts), 64):  # one batched pass, remembered by the embedder
        chunk = texts[start : start + 64]
        if gate.token_embedder is not None and isinstance(embedder, TokenEmbedder):
            embedder.embed_tokens(chunk)
        else:
            embedder.embed_queries(chunk)
    answerable, unanswerable = [], []
    for query in queries:
        gate.prepare(query.text)
        for excluded, scores in (((), answerable), ((query.doc_id,), unanswerable)):
            found = retrieve(
                query.text,
                embedder,
                store,
                DEPTH,
                excluded,
                mode=mode,
                kinds=kinds,
                tuning=tuning,
                context=gate.needs_context,
            )
            scores.append(gate.run(query.text, found.passages, found).signals.score)
    return answerable, unanswerable


def calibrate_index(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    *,
    seed: int = 0,
    tuning: HybridTuning | None = None,
) -> AutoCalibration:
    """Choose the gate's thresholds for this index from its own documents (not stored)."""
    started = time.perf_counter()
    name = store.embedder.name
    shipped = settings.thresholds_for(name)
    mode = settings.retrieve.mode
    base = {
        "embedder": name,
        "mode": mode,
        "model": shipped.model.model_dump() if shipped.model else None,
        "fingerprint": store.info().fingerprint,
        "calibrated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    documents = store.info().documents
    if documents < MIN_DOCUMENTS:
        return AutoCalibration(
            **base,
            documents=documents,
            skipped=f"{documents} documents; at least {MIN_DOCUMENTS} are needed",
        )
    kinds = settings.retrieve.evidence_kinds
    queries = synthetic_queries(store, settings.gate.auto_queries, seed, kinds)
    if len(queries) < MIN_DOCUMENTS * 2:
        return AutoCalibration(
            **base,
            documents=documents,
            skipped=f"only {len(queries)} usable titles and sentences",
        )
    if tuning is None:
        from lastword.retrieve import tuning_from

        tuning = tuning_from(settings.retrieve)
    pos, neg = gate_scores(queries, store, embedder, shipped, mode, tuning, kinds)
    target = settings.gate.auto_target_far
    sentence_negatives = [n for n, q in zip(neg, queries, strict=True) if q.kind == "sentence"]
    reference = _reference(settings, name, mode)
    if reference is not None and len(sentence_negatives) >= MIN_SHIFT_QUERIES:
        # Where the shipped thresholds were measured, seen the same way: shift them by how much
        # higher (or lower) this corpus's unanswerable sentences score than PubMedQA's.
        rule = "shift"
        tail = tail_of(sentence_negatives, shift_quantile(mode))
        shift = logit(tail) - logit(reference)
        weak = sigmoid(logit(shipped.weak) + shift)
        strong = max(sigmoid(logit(shipped.strong) + shift), weak)
    else:
        # No reference for this embedder, ranking or gate model: this corpus's own tail.
        rule, tail = "quantile", None
        weak = metrics.threshold_for_false_accept_rate(pos, neg, target)
        strong = max(metrics.threshold_for_false_accept_rate(pos, neg, target / 4), weak)
    weak, strong = min(max(weak, -1.0), 1.0), min(max(strong, -1.0), 1.0)
    return AutoCalibration(
        **base,
        documents=documents,
        strong=round(strong, 6),
        weak=round(weak, 6),
        target_far=target,
        rule=rule,
        tail=None if tail is None else round(tail, 6),
        quantile=shift_quantile(mode) if rule == "shift" else None,
        titles=sum(q.kind == "title" for q in queries),
        sentences=sum(q.kind == "sentence" for q in queries),
        auc=round(metrics.roc_auc(pos, neg), 4),
        far=round(metrics.false_accept_rate(neg, weak), 4),
        kept=round(metrics.kept_share(pos, weak), 4),
        seconds=round(time.perf_counter() - started, 2),
        scores={
            "answerable": [round(s, 4) for s in pos],
            "unanswerable": [round(s, 4) for s in neg],
        },
        kinds=[q.kind for q in queries],
        version=VERSION,
    )


def shift_quantile(mode: str) -> float:
    """The tail quantile the shift rule reads for a ranking (``SHIFT_QUANTILES``)."""
    return SHIFT_QUANTILES.get(mode, SHIFT_QUANTILE)


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def _reference(settings: Settings, embedder: str, mode: str) -> float | None:
    """The reference tail for the shipped thresholds, when they are the ones in use."""
    shipped = shipped_thresholds(mode).get(embedder)
    if shipped is None or settings.thresholds_for(embedder) != shipped:
        return None
    return REFERENCE_TAIL.get((embedder, mode))


def stored_calibration(store: Store) -> AutoCalibration | None:
    text = store.read_meta(META_KEY)
    return AutoCalibration.from_json(text) if text else None


def calibrate_and_store(
    store: Store, embedder: Embedder, settings: Settings, *, force: bool = False
) -> AutoCalibration | None:
    """Calibrate a writer's index when its corpus changed since the last calibration (or
    ``force``), store the result, and return it; None when nothing was done."""
    if not settings.gate.auto and not force:
        return None
    previous = stored_calibration(store)
    fingerprint = store.info().fingerprint
    shipped = settings.thresholds_for(store.embedder.name)
    model = shipped.model.model_dump() if shipped.model else None
    if (
        not force
        and previous is not None
        and previous.fingerprint == fingerprint
        and previous.mode == settings.retrieve.mode
        and previous.model == model  # scores of another gate model place nothing for this one
        and (previous.rule != "shift" or previous.quantile == shift_quantile(previous.mode))
        and previous.version == VERSION
    ):
        return None
    calibration = calibrate_index(store, embedder, settings)
    store.write_meta(META_KEY, calibration.to_json())
    return calibration


def usable(calibration: AutoCalibration | None, settings: Settings, embedder: str) -> bool:
    """The stored calibration applies to this embedder, ranking and gate model."""
    if calibration is None or calibration.weak is None or calibration.strong is None:
        return False
    shipped = settings.thresholds_for(embedder)
    model = shipped.model.model_dump() if shipped.model else None
    return (
        calibration.embedder == embedder
        and calibration.mode == settings.retrieve.mode
        and calibration.model == model
    )


def thresholds_for_index(settings: Settings, store: Store) -> tuple[Thresholds, ThresholdSource]:
    """The thresholds the gate uses on this index, and where they came from.

    The operator's settings for the embedder win; then the index's own automatic calibration
    (when ``[gate] auto`` is on and it was made for this ranking and gate model); then the
    shipped defaults.
    """
    name = store.embedder.name
    configured = settings.thresholds_for(name)
    if settings.gate.explicit(name):
        return configured, "settings"
    if settings.gate.auto:
        calibration = stored_calibration(store)
        if usable(calibration, settings, name):
            assert calibration is not None
            assert calibration.weak is not None and calibration.strong is not None
            return (
                Thresholds(
                    strong=calibration.strong,
                    weak=calibration.weak,
                    model=configured.model,
                    evidence=calibration.describe(),
                    ranking=configured.ranking,
                ),
                "index",
            )
    return configured, "default"


def calibrate_after_ingest(
    settings: Settings, index_dir: Path, embedder: Embedder
) -> AutoCalibration | None:
    """After an ingest: open the index for writing and recalibrate it if its corpus changed.

    None when ``[gate] auto`` is off, the gate decides on the reader (no per-index thresholds),
    or the stored calibration is for this corpus already.
    """
    if not settings.gate.auto or settings.gate.decide == "reader":
        return None
    from lastword.store.open import open_store

    with open_store(settings, index_dir, write_as=embedder.info) as store:
        return calibrate_and_store(store, embedder, settings)
