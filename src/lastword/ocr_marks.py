"""What ingest recorded about a passage read by OCR, for whoever shows or checks it.

A document with pages read by OCR has ``metadata["ocr"]``::

    {"engine": "tesseract 5.3.0 eng",
     "pages": {"3": {"confidence": 0.93, "why": "no text layer", "rotation": 0, "skew": 1.5}},
     "passages": {"<passage key>": [0.91, 120, 124, 388, 391]},
     "low": 0.8}

``passages`` maps each OCR'd passage's key (``passage_key`` of its text) to its mean word
confidence followed by the character spans (start, end pairs into the passage's text) of its
words read with a confidence under ``low``. The document's metadata travels with every passage
(``Passage.metadata``, ``RetrievedPassage.metadata``), so ``ocr_mark(text, metadata)`` answers
for any passage without a store change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any


def passage_key(text: str) -> str:
    """The key of a passage's text in ``metadata["ocr"]["passages"]``."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


@dataclass(frozen=True)
class OcrMark:
    """A passage read by OCR: its mean word confidence (0..1) and its low-confidence words."""

    confidence: float
    #: (start, end) character spans in the passage's text of words read under ``threshold``
    low: tuple[tuple[int, int], ...]
    threshold: float
    engine: str

    def is_low(self, start: int, end: int) -> bool:
        """Whether the text ``[start, end)`` of the passage overlaps a low-confidence word."""
        return any(s < end and start < e for s, e in self.low)


def ocr_mark(text: str, metadata: dict[str, Any]) -> OcrMark | None:
    """The OCR mark of the passage with ``text`` of a document with ``metadata``; None when
    the passage was not read by OCR."""
    ocr = metadata.get("ocr")
    if not isinstance(ocr, dict):
        return None
    passages = ocr.get("passages")
    entry = passages.get(passage_key(text)) if isinstance(passages, dict) else None
    if not isinstance(entry, list) or not entry:
        return None
    spans = entry[1:]
    low = tuple((int(spans[i]), int(spans[i + 1])) for i in range(0, len(spans) - 1, 2))
    return OcrMark(
        confidence=float(entry[0]),
        low=low,
        threshold=float(ocr.get("low", 0.0)),
        engine=str(ocr.get("engine", "")),
    )
