"""Each passage of a page read by OCR, marked with its words' confidences (``ocr_marks``).

The structure pass joins, splits and reorders lines, so a passage's words are found again in
the page's OCR words by aligning the two word sequences (``difflib``: the words the reader left
as they were match one to one). A word that matches none (a hyphenated word made whole) takes
the lowest confidence its text was read with on the page; a number found nowhere is low (a
verifier must never lean on it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from lastword.ocr_marks import passage_key
from lastword.store.protocol import NewPassage

_TOKEN = re.compile(r"\S+")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def _norm(word: str) -> str:
    return _EDGE.sub("", word).lower()


def ocr_metadata(read_by_ocr: dict[int, Any]) -> dict[str, Any]:
    """The document's ``metadata["ocr"]`` before its passages are marked."""
    engines = sorted({reading.engine for reading, _why in read_by_ocr.values()})
    return {
        "engine": ", ".join(engines),
        "pages": {
            str(number): {
                "confidence": round(reading.confidence, 3),
                "why": why,
                "rotation": reading.rotation,
                "skew": reading.skew,
            }
            for number, (reading, why) in sorted(read_by_ocr.items())
        },
    }


def passage_mark(
    text: str, words: Sequence[tuple[str, float]], low: float
) -> tuple[float, list[tuple[int, int]]] | None:
    """(mean confidence, low-confidence spans) of a passage's text against its page's words."""
    tokens = list(_TOKEN.finditer(text))
    if not tokens or not words:
        return None
    page_norm = [_norm(w) for w, _c in words]
    passage_norm = [_norm(t.group(0)) for t in tokens]
    confidence: list[float | None] = [None] * len(tokens)
    matcher = SequenceMatcher(None, page_norm, passage_norm, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            confidence[block.b + k] = words[block.a + k][1]
    lowest: dict[str, float] = {}
    for key, (_w, c) in zip(page_norm, words, strict=True):
        lowest[key] = min(c, lowest.get(key, 1.0))
    spans: list[tuple[int, int]] = []
    known: list[float] = []
    for i, token in enumerate(tokens):
        c = confidence[i]
        if c is None:
            c = lowest.get(passage_norm[i])
        if c is None:
            if any(ch.isdigit() for ch in token.group(0)):
                spans.append((token.start(), token.end()))
            continue
        known.append(c)
        if c < low:
            spans.append((token.start(), token.end()))
    if not known:
        return None
    return sum(known) / len(known), spans


def mark_passages(
    metadata: dict[str, Any], ocr_words: Sequence, passages: list[NewPassage], low: float
) -> None:
    """Add each OCR'd passage's mark to ``metadata["ocr"]["passages"]`` (in place). A passage
    on page p is aligned with the OCR words of p and p + 1 (a sentence cut by a page break is
    made whole on the page it starts on)."""
    ocr = metadata.get("ocr")
    if not isinstance(ocr, dict) or not ocr_words:
        return
    by_page = dict(ocr_words)
    marks: dict[str, list[float | int]] = {}
    for passage in passages:
        if passage.page not in by_page:
            continue
        words = list(by_page[passage.page]) + list(by_page.get(passage.page + 1, ()))
        mark = passage_mark(passage.text, words, low)
        if mark is None:
            continue
        mean, spans = mark
        marks[passage_key(passage.text)] = [round(mean, 3), *(x for span in spans for x in span)]
    ocr["passages"] = marks
    ocr["low"] = low
