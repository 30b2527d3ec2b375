"""The near-miss vetoes measured for SciFact (``bench/gate_veto.py``, bench only), on real text,
and the hand readings of SciFact's false accepts (``bench/data/scifact_readings.json``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gate_veto import absent, looks_like_name, present, sentence_share, stem
from lastword.terms import terms

READINGS = Path(__file__).resolve().parents[2] / "bench" / "data" / "scifact_readings.json"

# Two sentences of SciFact abstract 37480103 and one of 5114940.
MATERNAL = (
    "A high birth weight (> or =4000 g) in 2 successive births was associated with an increased "
    "risk of breast cancer before but not after adjusting for placental weight and other "
    "covariates. Placental weight is positively associated with maternal risk of breast cancer."
)
OVERVIEW = (
    "Varenicline was superior to single forms of NRT, and to bupropion. Combination NRT and "
    "varenicline are equally effective as quitting aids."
)
LEXICON = (10_000, {"birth": 40, "weight": 300, "breast": 90, "cancer": 900, "positively": 200})


def held(term: str, text: str) -> bool:
    words = terms(text)
    return present(term, words, {stem(t) for t in words})


def test_a_hyphenated_or_inflected_term_counts_as_present():
    assert held("birth-weight", MATERNAL)  # "birth weight" in the text
    assert held("births", MATERNAL) and held("increases", MATERNAL)  # "increased"
    assert not held("monotherapy", OVERVIEW)
    assert not held("cytisine", OVERVIEW)


def test_names_and_codes_are_told_from_plain_words():
    assert all(looks_like_name(t) for t in ("N348I", "ANCA-stimulated", "Ly6C", "H3K9me3"))
    assert not any(looks_like_name(t) for t in ("Varenicline", "monotherapy", "Birth-weight"))


def test_the_best_sentence_share_reads_one_sentence_at_a_time():
    claim = "Birth-weight is positively associated with breast cancer."
    # every claim term is in the text, but "positively" stands in the other sentence
    whole = sentence_share(claim, MATERNAL.replace(". ", " "), LEXICON)
    one = sentence_share(claim, MATERNAL, LEXICON)
    assert whole == 1.0
    assert 0.5 < one < 1.0


def test_absent_lists_what_the_top_document_lacks():
    row = {
        "question": "Varenicline monotherapy is more effective after 12 weeks than combination NRT "
        "in mice.",
        "passages": [{"title": "Pharmacological interventions for smoking cessation"}],
        "top_text": OVERVIEW,
    }
    missing = absent(row, (10_000, {"varenicline": 20, "nrt": 30, "combination": 200}))
    assert "monotherapy" in missing["rare"] and "varenicline" not in missing["rare"]
    assert missing["number"] == ["12"]
    assert missing["population"] == ["mouse"]


def test_every_reading_names_a_document_a_kind_and_a_quote():
    data = json.loads(READINGS.read_text(encoding="utf-8"))
    readings = data["readings"]
    assert len({r["claim"] for r in readings}) == len(readings)
    for r in readings:
        assert r["doc_id"].isdigit() and r["set"] in {"dev", "train"}
        assert r["reading"] in {"held: supports", "held: refutes", "near miss"}
        assert len(r["quote"]) > 30
