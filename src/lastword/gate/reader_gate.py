"""The gate's one decision when it reads the reader: answerability against two thresholds.

The reader's probability that the retrieved passages answer (``Reading.answerability``) is
compared with ``weak`` (refuse below) and ``strong``. Both were fitted with the reader and ship
in its provenance file, chosen leave-one-corpus-out (docs/calibration.md); the operator's
``[gate] reader_weak`` / ``reader_strong`` win. No per-index calibration: a corpus's own titles
or a README listing them cannot move it.
"""

from __future__ import annotations

from lastword.read.model import provenance
from lastword.settings import GateSettings, Thresholds


def reader_thresholds(settings: GateSettings) -> Thresholds:
    shipped = provenance().get("gate", {})
    weak = settings.reader_weak if settings.reader_weak is not None else shipped["weak"]
    strong = settings.reader_strong if settings.reader_strong is not None else shipped["strong"]
    source = "settings" if settings.reader_weak is not None else "reader.json"
    return Thresholds(
        strong=max(strong, weak),
        weak=weak,
        evidence=f"the reader's answerability; thresholds from {source}",
    )
