"""Calibration from a results document, and --write into the settings TOML."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from lastword.errors import ConfigError, InputError
from lastword.evaluate.calibrate import calibrate, labelled_scores, score_of, write_thresholds
from lastword.result import Mechanism
from lastword.settings import load_settings

from .conftest import answered, document, record, refused


def test_labels_scores_and_exclusions(mixed_results) -> None:
    pos, neg, missing = labelled_scores(mixed_results.items)
    assert sorted(pos) == [0.40, 0.50, 0.55, 0.62, 0.66, 0.70, 0.72, 0.81]
    # gate traps only; the scope-guard trap never reached retrieval, the generator traps are
    # on-topic by design
    assert sorted(neg) == [0.30, 0.42, 0.52]
    assert missing == 0
    _, all_neg, _ = labelled_scores(mixed_results.items, negatives="all")
    assert sorted(all_neg) == [0.30, 0.42, 0.52, 0.65, 0.70]


def test_known_figures(mixed_results) -> None:
    cal = calibrate(mixed_results, target_far=0.0)
    assert (cal.positives, cal.negatives) == (8, 3)
    assert cal.auc is not None and cal.auc.estimate == pytest.approx(21 / 24)
    assert cal.far_at_shipped.estimate == pytest.approx(1 / 3)  # 0.52 >= 0.45
    assert cal.kept_at_shipped.estimate == pytest.approx(7 / 8)  # all but 0.40
    assert cal.zero_fa_threshold == 0.53  # between 0.52 and the next score, 0.55
    assert cal.zero_fa_kept.estimate == pytest.approx(6 / 8)
    assert cal.target_threshold == cal.zero_fa_threshold
    # refusals: s6, t2, t3 by the gate; s8 verifier; t1 scope guard; t6 generator
    assert cal.refusals == 6
    assert cal.gate_share_of_refusals.estimate == pytest.approx(0.5)
    assert cal.chosen() == (0.53, 0.53)
    assert any("Only 3 labelled negatives" in note for note in cal.notes)
    figures = cal.to_json()
    assert figures["auc"]["estimate"] == pytest.approx(21 / 24)
    assert figures["chosen"] == {"strong": 0.53, "weak": 0.53}
    assert "roc" not in figures


def test_other_score_column(mixed_results) -> None:
    assert score_of(mixed_results.items[0], "gate.margin") == pytest.approx(0.1)
    assert score_of(mixed_results.items[0], "gate.nothing") is None
    cal = calibrate(mixed_results, column="gate.margin")
    # the hand-made refused and blocked results carry no margin: s6, s7, s8, t2, t3 are left
    # out and counted
    assert cal.missing == 5
    assert cal.column == "gate.margin"
    # the shipped thresholds are on the top score: no shipped figures, and nothing to --write
    assert cal.far_at_shipped is None and cal.kept_at_shipped is None
    assert not cal.can_choose
    with pytest.raises(InputError, match=r"cannot choose gate thresholds from gate\.margin"):
        cal.chosen()


def test_without_negatives_states_it_plainly() -> None:
    doc = document([record(answered("a", 0.7), "scenario", "a")])
    cal = calibrate(doc)
    assert cal.auc is None and not cal.can_choose
    assert "need at least one of each" in cal.notes[0]


def test_many_negatives_have_no_warning() -> None:
    items = [record(answered(f"s{i}", 0.6 + i / 1000), "scenario", f"s{i}") for i in range(40)]
    items += [
        record(
            refused(f"t{i}", 0.3 + i / 1000, Mechanism.RETRIEVAL_GATE),
            "trap",
            f"t{i}",
            assigned="retrieval_gate",
        )
        for i in range(40)
    ]
    cal = calibrate(document(items), target_far=0.05)
    assert cal.auc.estimate == 1.0
    assert cal.notes == ()
    assert cal.far_at_shipped.estimate == 0.0
    assert cal.far_at_shipped.high == pytest.approx(0.0876, abs=1e-3)  # Wilson 0/40


def test_write_keeps_other_keys(tmp_path: Path) -> None:
    config = tmp_path / "lastword.toml"
    config.write_text(
        "[retrieve]\nk = 5\n\n[gate.thresholds.voyage]\nstrong = 0.5\nweak = 0.3\n",
        encoding="utf-8",
    )
    write_thresholds(config, "minilm", 0.61, 0.47, "measured on x.json")
    data = tomllib.loads(config.read_text())
    assert data["retrieve"]["k"] == 5
    assert data["gate"]["thresholds"]["voyage"] == {"strong": 0.5, "weak": 0.3}
    assert data["gate"]["thresholds"]["minilm"] == {
        "strong": 0.61,
        "weak": 0.47,
        "evidence": "measured on x.json",
    }
    settings = load_settings(config)
    assert settings.thresholds_for("minilm").weak == 0.47
    assert settings.retrieve.k == 5
    # writing again replaces, not duplicates
    write_thresholds(config, "minilm", 0.7, 0.5, "again")
    assert load_settings(config).thresholds_for("minilm").strong == 0.7


def test_write_creates_a_file_and_refuses_bad_values(tmp_path: Path) -> None:
    config = tmp_path / "new.toml"
    write_thresholds(config, "minilm", 0.6, 0.4, "e")
    assert load_settings(config).thresholds_for("minilm").weak == 0.4
    with pytest.raises(ConfigError, match="not valid"):
        write_thresholds(config, "minilm", 0.3, 0.6, "e")
    broken = tmp_path / "broken.toml"
    broken.write_text("[gate\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        write_thresholds(broken, "minilm", 0.6, 0.4, "e")
