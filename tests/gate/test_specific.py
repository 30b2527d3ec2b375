"""The ``specific`` signal, and the gate's second way through below weak (its floor)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from lastword.gate.bands import SpecificRule
from lastword.gate.specific import specific
from lastword.generate import extractive
from lastword.generate.protocol import Draft, GenerationRequest
from lastword.pipeline import Pipeline
from lastword.result import Band, Mechanism, Status
from lastword.settings import (
    EVIDENCE_FLOOR,
    MINILM_HYBRID_GATE_MODEL,
    SPECIFIC_FLOOR,
    SPECIFIC_MIN_PASSAGES,
    SPECIFIC_REACH,
    GateSettings,
    Settings,
    Thresholds,
)
from lastword.store.local import LocalStore


def test_a_term_in_every_passage_of_the_document_weighs_less_than_a_rare_one():
    weights = {"seal": 2.0, "cortisol": 2.0}
    # "seal" is the paper's topic (every passage), "cortisol" is in one of four
    blocks = [{"seal", "pup"}, {"seal", "trial"}, {"seal"}, {"seal", "cortisol"}]
    seal = 2.0 * math.log1p(5 / 5)
    cortisol = 2.0 * math.log1p(5 / 2)
    assert specific(weights, blocks, [{"seal"}]) == pytest.approx(seal / (seal + cortisol))
    assert specific(weights, blocks, [{"cortisol"}]) == pytest.approx(cortisol / (seal + cortisol))
    # the best single passage counts, not the union of passages
    both = specific(weights, blocks, [{"seal"}, {"cortisol"}])
    assert both == pytest.approx(cortisol / (seal + cortisol))
    assert specific(weights, blocks, [{"seal"}, {"cortisol", "seal"}]) == pytest.approx(1.0)


def test_specific_without_terms_or_passages_is_zero():
    assert specific({}, [{"a"}], [{"a"}]) == 0.0
    assert specific({"a": 1.0}, [{"a"}], []) == 0.0
    # a term absent from the document still weighs (most): a passage without it falls short
    assert 0 < specific({"a": 1.0, "b": 1.0}, [{"a"}], [{"a"}]) < 0.5


def test_the_rule_lets_through_only_below_weak_within_reach_and_over_the_floor():
    model_thresholds = Thresholds(strong=0.95, weak=0.866, model=MINILM_HYBRID_GATE_MODEL)
    rule = SpecificRule(floor=0.55, reach=1.5)
    low = rule.low(0.866)
    assert low == pytest.approx(1 / (1 + math.exp(-(math.log(0.866 / 0.134) - 1.5))))
    assert 0.59 < low < 0.6
    assert rule.lets_through(0.7, 0.6, model_thresholds)
    assert rule.lets_through(low + 1e-9, 0.55, model_thresholds)
    assert not rule.lets_through(0.7, 0.5499, model_thresholds)  # under the floor
    assert not rule.lets_through(low - 1e-6, 0.9, model_thresholds)  # beyond reach
    assert not rule.lets_through(0.9, 0.9, model_thresholds)  # not below weak: the score decides
    # a cosine-only gate has no 0-1 score to reach along: the rule is off
    assert not rule.lets_through(0.5, 1.0, Thresholds(strong=0.9, weak=0.6))


def test_the_shipped_rule_and_its_settings():
    gate = GateSettings()
    assert (gate.specific_floor, gate.specific_reach) == (SPECIFIC_FLOOR, SPECIFIC_REACH)
    with pytest.raises(ValueError):
        GateSettings(specific_floor=1.5)
    with pytest.raises(ValueError):
        GateSettings(specific_reach=-1)


def test_no_specific_signal_for_a_short_top_document():
    from lastword.gate import gate_signals
    from lastword.result import RetrievedPassage

    ranking = [
        RetrievedPassage(
            n=1, passage_id=1, doc_id="d", title="t", page=1, score=0.5, text="statin pain"
        )
    ]
    thresholds = Thresholds(strong=0.9, weak=0.8, model=MINILM_HYBRID_GATE_MODEL)
    args = ("statin pain", ranking, thresholds, (10, {"statin": 1}), "statin pain\n\nmuscle")
    extra = {"maxsim": 0.5, "background": [0.1, 0.2], "lexical_docs": ["d"]}
    assert gate_signals(*args, **extra, specific_min_passages=3).specific is None
    assert gate_signals(*args, **extra, specific_min_passages=2).specific == 1.0
    rule = SpecificRule(0.1, 10.0, min_passages=3)
    assert not rule.lets_through(0.5, None, thresholds)
    assert GateSettings().specific_min_passages == SPECIFIC_MIN_PASSAGES


class Recording:
    """A generator that quotes the first passage and keeps the request it was given."""

    name = "recording"

    def __init__(self) -> None:
        self.requests: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest) -> Draft:
        self.requests.append(request)
        first = request.passages[0]
        return Draft(f"{first.text.split('. ')[0].rstrip('.')} [{first.n}].")


def settings_with(
    floor: float, reach: float, evidence: float = 0.0, evidence_reach: float = 10.0
) -> Settings:
    # weak above any score this question gets: only the specific rule can let it through
    thresholds = Thresholds(
        strong=0.99999, weak=0.9999, model=MINILM_HYBRID_GATE_MODEL, ranking="hybrid"
    )
    return Settings(
        retrieve={"mode": "hybrid"},
        gate=GateSettings(
            thresholds={"minilm": thresholds},
            auto=False,
            specific_floor=floor,
            specific_reach=reach,
            specific_min_passages=1,  # the demo's documents are short
            evidence_floor=evidence,
            evidence_reach=evidence_reach,
        ),
    )


QUESTION = "Did atorvastatin cause muscle pain in the crossover trial?"


def test_below_weak_the_rule_decides_before_any_generator_runs(demo_index: Path, minilm):
    off = Recording()
    with Pipeline(settings_with(0.0, 0.0), LocalStore.open(demo_index), minilm, off) as p:
        refused = p.ask(QUESTION)
    assert refused.status is Status.REFUSED and refused.decided_by is Mechanism.RETRIEVAL_GATE
    assert refused.band is Band.WEAK and refused.gate.specific_floor is None
    assert 0 < refused.gate.specific <= 1
    assert off.requests == []  # refused before generation

    # a floor under this question's specific signal, reach to any score: through, borderline
    on = Recording()
    floor = refused.gate.specific
    with Pipeline(settings_with(floor, 10.0), LocalStore.open(demo_index), minilm, on) as p:
        through = p.ask(QUESTION)
    assert through.band is Band.BORDERLINE and through.gate.specific_floor == floor
    assert through.gate.score == refused.gate.score < through.gate.weak
    assert [r.band for r in on.requests] == [Band.BORDERLINE]  # the generator is told the band

    # a floor just above it: refused again
    above = Recording()
    with Pipeline(
        settings_with(min(1.0, floor + 1e-3), 10.0), LocalStore.open(demo_index), minilm, above
    ) as p:
        assert p.ask(QUESTION).band is Band.WEAK
    assert above.requests == []


def test_the_cli_band_line_says_when_the_rule_let_a_question_through():
    from lastword.cli.render import band_line
    from lastword.result import GateSignals, Result

    signals = GateSignals(
        top_score=0.6,
        score=0.7,
        signal="combined",
        coverage=0.8,
        maxsim=0.8,
        specific=0.72,
        strong=0.95,
        weak=0.866,
    )
    plain = Result(question="q", status=Status.RETRIEVED, band=Band.WEAK, gate=signals)
    assert "let through" not in band_line(plain).plain
    through = plain.model_copy(
        update={
            "band": Band.BORDERLINE,
            "gate": signals.model_copy(update={"specific_floor": 0.6}),
        }
    )
    line = band_line(through).plain
    assert "below weak, let through" in line and "0.72" in line and "floor 0.60" in line


def test_below_weak_the_evidence_check_lets_a_stated_specific_through(
    demo_index: Path, minilm, monkeypatch
):
    """The weak band's second look: a question asking a number goes on when a sentence of its
    passages states one (the extractive scorer, before any generator); a yes/no question, or a
    floor above the sentence's relevance, is refused without a generator call."""
    asks = "How many adults were enrolled in the vitamin D trial?"
    seen = Recording()
    with Pipeline(
        settings_with(0.0, 0.0, EVIDENCE_FLOOR), LocalStore.open(demo_index), minilm, seen
    ) as p:
        through = p.ask(asks)
        yes_no = p.ask(QUESTION)
    assert through.band is Band.BORDERLINE and through.status is not Status.REFUSED
    assert through.gate.score < through.gate.weak
    assert through.gate.evidence_floor == EVIDENCE_FLOOR <= through.gate.evidence
    assert yes_no.band is Band.WEAK and yes_no.decided_by is Mechanism.RETRIEVAL_GATE
    assert yes_no.gate.evidence == 0.0 and yes_no.gate.evidence_floor is None
    assert [r.question for r in seen.requests] == [asks]  # the refused one never reached it

    above = Recording()
    floor = min(1.0, through.gate.evidence + 1e-3)
    # (the second path, every question word stated, is tested on its own below)
    monkeypatch.setattr(extractive, "ALL_STATED", False)
    with Pipeline(settings_with(0.0, 0.0, floor), LocalStore.open(demo_index), minilm, above) as p:
        refused = p.ask(asks)
    assert refused.band is Band.WEAK and refused.status is Status.REFUSED
    assert refused.gate.evidence == through.gate.evidence and above.requests == []
    assert GateSettings().evidence_floor == EVIDENCE_FLOOR


def test_the_evidence_check_reaches_only_so_far_below_weak(demo_index: Path, minilm):
    """A question the gate scores far below weak is refused whatever one sentence states: the
    evidence check looks only within ``[gate] evidence_reach`` (log-odds) of weak."""
    asks = "How many adults were enrolled in the vitamin D trial?"
    with Pipeline(
        settings_with(0.0, 0.0, EVIDENCE_FLOOR), LocalStore.open(demo_index), minilm
    ) as p:
        through = p.ask(asks)
    assert through.band is Band.BORDERLINE and through.gate.evidence_floor is not None
    score, weak = through.gate.score, through.gate.weak
    gap = math.log(weak / (1 - weak)) - math.log(score / (1 - score))  # log-odds below weak
    seen = Recording()
    with Pipeline(
        settings_with(0.0, 0.0, EVIDENCE_FLOOR, evidence_reach=gap * 0.9),
        LocalStore.open(demo_index),
        minilm,
        seen,
    ) as p:
        refused = p.ask(asks)
    assert refused.band is Band.WEAK and refused.decided_by is Mechanism.RETRIEVAL_GATE
    assert refused.gate.evidence is None and seen.requests == []  # never looked, never generated
    with Pipeline(
        settings_with(0.0, 0.0, EVIDENCE_FLOOR, evidence_reach=min(10.0, gap * 1.05)),
        LocalStore.open(demo_index),
        minilm,
    ) as p:
        assert p.ask(asks).band is Band.BORDERLINE
    assert GateSettings().evidence_reach == 1.5


def test_below_weak_a_question_whose_words_are_all_stated_needs_only_the_generators_floor(
    demo_index: Path, minilm
):
    """The evidence check's second path: over the evidence floor no sentence, but every word of
    the question is in the passages, so the generator's own floor decides; the same question
    about a thing the passages never name ("cortisol") is refused before any generator."""
    asks = "How many adults were enrolled in the vitamin D trial?"
    settings = settings_with(0.0, 0.0, EVIDENCE_FLOOR)
    with Pipeline(settings, LocalStore.open(demo_index), minilm) as p:
        evidence = p.ask(asks).gate.evidence
    seen = Recording()
    floor = min(1.0, evidence + 1e-3)
    with Pipeline(settings_with(0.0, 0.0, floor), LocalStore.open(demo_index), minilm, seen) as p:
        stated = p.ask(asks)
        unstated = p.ask("How many adults with low cortisol were enrolled in the vitamin D trial?")
    assert evidence >= extractive.RELEVANCE_FLOOR
    assert stated.band is Band.BORDERLINE and stated.gate.evidence < floor
    # the floor shown is the one the question met: the generator's own
    assert stated.gate.evidence_floor == extractive.RELEVANCE_FLOOR <= stated.gate.evidence
    assert unstated.band is Band.WEAK and unstated.status is Status.REFUSED
    assert [r.question for r in seen.requests] == [asks]
