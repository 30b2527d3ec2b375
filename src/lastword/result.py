"""The one result object that flows through the pipeline and records every decision.

The CLI, the web page, the chat assistant and the evaluation all read a ``Result``; none
recomputes any part of it. A refusal is a value (``Refusal``), never a magic string in the text.
Every model here is immutable: a step returns a new ``Result`` (``result.model_copy(update=...)``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from lastword.ocr_marks import ocr_mark


class Frozen(BaseModel):
    # the JSON schema describes the JSON these are written as (computed fields such as
    # page_label included): the MCP tools' output schema
    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_mode_override="serialization"
    )


class Status(StrEnum):
    RETRIEVED = "retrieved"  # retrieval only (inspect): no answer was asked for
    ANSWERED = "answered"
    REFUSED = "refused"  # the system decided not to answer
    BLOCKED = "blocked"  # the upstream provider declined the content
    FAILED = "failed"  # something broke (timeout, auth, 5xx...)


class Mechanism(StrEnum):
    """Who decided the outcome. ``None`` on an answered result."""

    SCOPE_GUARD = "scope_guard"
    RETRIEVAL_GATE = "retrieval_gate"
    GENERATOR = "generator"
    VERIFIER = "verifier"
    UPSTREAM = "upstream"
    # The chat assistant's web path:
    PRE_SEARCH_GATE = "pre_search_gate"  # the term lists, before anything is sent
    RATE_LIMIT = "rate_limit"  # per-member / per-chat search limits
    RELEVANCE_FLOOR = "relevance_floor"  # every result under the floor, or the embedder down


class Band(StrEnum):
    STRONG = "strong"
    BORDERLINE = "borderline"
    WEAK = "weak"


class Passage(Frozen):
    """A stored passage: what ingest writes and retrieve reads."""

    passage_id: int
    doc_id: str
    title: str
    page: int | None
    position: int = Field(description="Index of the passage within its document.")
    char_start: int
    char_end: int
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    kind: str = Field(
        "body", description="body | abstract | caption | table | front | references | heading"
    )
    flags: tuple[str, ...] = Field(
        (), description="Sentences that address a reader or a model, flagged at ingest."
    )


class RetrievedPassage(Frozen):
    """A passage as numbered for one question: ``[n]`` in the answer refers to it."""

    n: int = Field(ge=1)
    passage_id: int
    doc_id: str
    title: str
    page: int | None
    score: float
    text: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    kind: str = Field("body", description="The passage's kind (see ``Passage.kind``).")
    flags: tuple[str, ...] = Field(
        (), description="Sentences flagged at ingest as instructions (``Passage.flags``)."
    )

    @model_validator(mode="before")
    @classmethod
    def _derived_fields_are_not_inputs(cls, data: Any) -> Any:
        """``page_label``, ``ocr`` and ``ocr_confidence`` are written out (JSON, results files)
        but derived, never read back."""
        derived = ("page_label", "ocr", "ocr_confidence")
        if isinstance(data, dict) and any(k in data for k in derived):
            data = {k: v for k, v in data.items() if k not in derived}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def page_label(self) -> str | None:
        """The page number printed on the page, when ingest recorded one that is not the PDF
        page (the document's ``page_labels``: journal page 121 on PDF page 1)."""
        return printed_page(self.page, self.metadata)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ocr(self) -> bool:
        """Ingest read this passage by OCR (``lastword.ocr_marks``)."""
        return ocr_mark(self.text, self.metadata) is not None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ocr_confidence(self) -> float | None:
        """Read by OCR: the mean confidence (0..1) of its words; else None."""
        mark = ocr_mark(self.text, self.metadata)
        return mark.confidence if mark is not None else None


def printed_page(page: int | None, metadata: dict[str, Any]) -> str | None:
    """The printed label of PDF page ``page`` from a document's ``page_labels``, or None when
    none was recorded or it is the PDF page number itself."""
    labels = metadata.get("page_labels")
    if page is None or not isinstance(labels, dict):
        return None
    label = str(labels.get(str(page)) or "").strip()
    return label if label and label != str(page) else None


def page_range_label(metadata: dict[str, Any]) -> str | None:
    """The printed page range of a document ("121-129"), when ingest recorded labels."""
    labels = metadata.get("page_labels")
    if not isinstance(labels, dict) or not labels:
        return None
    ordered = [labels[k] for k in sorted(labels, key=lambda k: int(k) if k.isdigit() else 0)]
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"


class AnswerSentence(Frozen):
    text: str = Field(description="The sentence as shown, with its [N] markers.")
    citations: tuple[int, ...] = Field(description="Passage numbers this sentence cites.")
    support: float | None = Field(None, description="Best support score among cited passages.")


class DroppedSentence(Frozen):
    text: str
    reason: str = Field(
        description="phantom_citation | uncited_claim | unsupported_number | weak_support | ..."
    )
    detail: str = ""
    citations: tuple[int, ...] = ()


class Phantom(Frozen):
    marker: str = Field(description="The marker as written, e.g. '[9]'.")
    number: int
    reason: str = Field(description="out_of_range | bibliography")
    sentence: str


class Refusal(Frozen):
    reason: str = Field(description="Machine-readable reason, e.g. 'weak_retrieval'.")
    message: str = Field(description="What the user is told; never cites anything.")


class Usage(Frozen):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str | None = None


class GateSignals(Frozen):
    """The numbers the retrieval gate decided on."""

    top_score: float
    margin: float | None = Field(None, description="Top score minus the 8th.")
    coverage: float | None = Field(
        None, description="IDF-weighted share of the question's terms in the top document."
    )
    maxsim: float | None = Field(
        None,
        description="Mean best token cosine of the question's words in the top document's "
        "passages (only when the gate model uses it).",
    )
    placed: float | None = Field(
        None, description="Top score in standard deviations above the dense ranks 9 to 50."
    )
    rare: float | None = Field(
        None, description="IDF-weighted share of the question's rare terms in the top passage."
    )
    agreement: float | None = Field(
        None, description="1 / rank of the top document among the lexical top documents."
    )
    specific: float | None = Field(
        None,
        description="Best top passage's share of the question's terms, each weighted by its IDF "
        "and its rarity inside the top document (gate/specific.py).",
    )
    specific_floor: float | None = Field(
        None,
        description="Set when the score was below weak and the specific signal cleared this "
        "floor ([gate] specific_floor): the band is borderline by that rule.",
    )
    evidence: float | None = Field(
        None,
        description="Below weak: the relevance of the best sentence stating the asked specific "
        "(the extractive scorer; 0 when the question asks no specific or none is stated).",
    )
    evidence_floor: float | None = Field(
        None,
        description="Set when the evidence check let the question through below weak "
        "([gate] evidence_floor): the band is borderline by that check.",
    )
    score: float = Field(
        None,  # type: ignore[assignment]  # filled from top_score below when absent
        description="The gate score the band is read from (the top score unless combined).",
    )
    reader: float | None = Field(
        None,
        description="The reader's probability that the passages answer the question (its best "
        'candidate\'s); set when the gate decides on it ([gate] decide = "reader").',
    )
    signal: str = Field("cosine", description="cosine | combined | reader")
    ranking: str | None = Field(
        None,
        description="The ranking (dense | hybrid) the gate's model and thresholds were measured "
        "on; None when not recorded (an operator's thresholds without it).",
    )
    strong: float
    weak: float

    @model_validator(mode="before")
    @classmethod
    def _score_defaults_to_top(cls, data: Any) -> Any:
        # Results written before the combined gate have no score: it was the top score.
        if isinstance(data, dict) and data.get("score") is None and "top_score" in data:
            data = {**data, "score": data["top_score"]}
        return data


class ReadCandidate(Frozen):
    n: int = Field(description="The passage the candidate is in.")
    text: str
    probability: float = Field(description="The reader's probability that it states the answer.")


class ReadRemoval(Frozen):
    n: int
    text: str
    constraint: str = Field(
        description="The named rule that removed it: not_evidence | instruction | fragment | run_on"
    )


class ReadingRecord(Frozen):
    """What the reader found: its best candidates and what its constraints removed."""

    answerability: float
    candidates: tuple[ReadCandidate, ...] = ()
    removed: tuple[ReadRemoval, ...] = ()


class FollowUp(Frozen):
    """How a follow-up was made standalone (``lastword.conversation``)."""

    kind: str = Field(description="replace | refers | elliptic | new_topic | model")
    carried: tuple[str, ...] = Field((), description="Words carried from the earlier turn.")
    documents: tuple[str, ...] = Field(
        (), description="Documents the earlier answer cited (doc ids)."
    )
    method: str = Field("rules", description="rules | model: who wrote the standalone question.")


class Result(Frozen):
    question: str = Field(description="The question as asked (a follow-up: as written).")
    asked_as: str | None = Field(
        None,
        description="A follow-up's standalone question: what was retrieved, gated, answered "
        "and verified. None when the question stood alone.",
    )
    followup: FollowUp | None = None
    status: Status
    decided_by: Mechanism | None = None
    band: Band | None = None
    top_score: float | None = None
    passages: tuple[RetrievedPassage, ...] = ()
    answer: str | None = Field(None, description="Verified answer text with [N] markers.")
    sentences: tuple[AnswerSentence, ...] = ()
    citations: tuple[int, ...] = Field((), description="Distinct passage numbers cited.")
    phantoms: tuple[Phantom, ...] = ()
    dropped: tuple[DroppedSentence, ...] = ()
    refusal: Refusal | None = None
    error: str | None = Field(None, description="Error kind and message when status is failed.")
    gate: GateSignals | None = None
    reading: ReadingRecord | None = Field(
        None, description="The reader's best candidates and the candidates its rules removed."
    )
    draft: str | None = Field(None, description="The generator's raw text, before verification.")
    declared: tuple[int, ...] | None = Field(
        None, description="Passages the generator declared it used (web answers)."
    )
    embedder: str | None = None
    generator: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    usage: Usage | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
