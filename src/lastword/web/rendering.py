"""Jinja filters: [N] markers as links to their passages, scores, bars and dates."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import PurePath

from markupsafe import Markup, escape

_MARKER = re.compile(r"\[(\d{1,3})\]")

#: the score bar spans this range of cosine similarity
BAR_LOW, BAR_HIGH = 0.0, 1.0


def link_citations(text: str | None, numbers: tuple[int, ...] | list[int] = ()) -> Markup:
    """Escape ``text`` and turn each ``[N]`` that names a shown passage into a link to it."""
    if not text:
        return Markup("")
    known = set(numbers)

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if known and n not in known:
            return match.group(0)
        return f'<a class="cite" href="#passage-{n}" data-n="{n}">[{n}]</a>'

    return Markup(_MARKER.sub(link, str(escape(text))))


def score(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def bar_percent(value: float | None) -> float:
    """Where a score sits on the bar, in percent (clamped)."""
    if value is None:
        return 0.0
    share = (value - BAR_LOW) / (BAR_HIGH - BAR_LOW)
    return round(min(1.0, max(0.0, share)) * 100, 2)


def when(value: str | float | None) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, int | float):
        moment = datetime.fromtimestamp(value, UTC)
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def document_name(doc_id: str) -> str:
    return PurePath(doc_id).name if doc_id.startswith("/") else doc_id


def doc_file(document) -> str:
    """A stored document's file as readers see it (relative path or name, never absolute)."""
    from lastword.web.reading import display_name

    return display_name(document.doc_id, document.source, document.metadata)


def mechanism(value: str | None) -> str:
    return (value or "").replace("_", " ")


FILTERS = {
    "cite_links": link_citations,
    "score": score,
    "bar_percent": bar_percent,
    "when": when,
    "document_name": document_name,
    "doc_file": doc_file,
    "mechanism": mechanism,
}
