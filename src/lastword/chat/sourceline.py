"""The source line under a web answer, minted by the application from declared results.

The model never writes it. It names only results the answer declared (``USED: 1, 3``) that
exist and that the verified answer still cites: a refusal cites nothing, and an answer that
declared nothing gets no source line. Each result shows its domain as text and its number as
the link text. Only http(s) links are ever shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

from lastword.result import Result, RetrievedPassage, Status
from lastword.websearch.protocol import host_of, linkable

PREFIX = "🔎 From search previews, which can be out of date. Check the page:"
_MARKER = re.compile(r"\[\d+\]")
_DIGIT = re.compile(r"\d")


def _safe_link(url: str) -> str | None:
    if not linkable(url):  # also a URL that does not parse: no link, never an exception
        return None
    # Markdown link targets break on spaces and parentheses; percent-encode them.
    return quote(url, safe=":/?#[]@!$&'*+,;=%~.-_")


def _domain(url: str) -> str:
    return host_of(url).removeprefix("www.")


def cited_results(result: Result, declared: Iterable[int] | None) -> tuple[RetrievedPassage, ...]:
    """Declared results that exist, are linkable, and are cited by the verified answer."""
    if result.status is not Status.ANSWERED or not declared:
        return ()
    by_number = {p.n: p for p in result.passages}
    cited = set(result.citations)
    out: list[RetrievedPassage] = []
    for n in sorted(set(declared)):
        passage = by_number.get(n)
        if passage is None or n not in cited:
            continue
        if _safe_link(str(passage.metadata.get("url", ""))) is None:
            continue
        out.append(passage)
    return tuple(out)


def source_line(result: Result, declared: Iterable[int] | None) -> str | None:
    """``🔎 ... Check the page: nature.com [1](https://...)``, or None when nothing qualifies."""
    named = cited_results(result, declared)
    if not named:
        return None
    parts = []
    for passage in named:
        url = str(passage.metadata["url"])
        parts.append(f"{_domain(url)} [{passage.n}]({_safe_link(url)})")
    return f"{PREFIX} {', '.join(parts)}"


def states_number(answer: str | None) -> bool:
    """Whether the answer text, without its ``[N]`` markers, contains a digit."""
    return bool(answer) and _DIGIT.search(_MARKER.sub("", answer)) is not None


def corpus_source_line(result: Result) -> str | None:
    """``📚 From our papers: Title, p. 3 [1]; Other title [2]`` for a verified corpus answer."""
    if result.status is not Status.ANSWERED or not result.citations:
        return None
    by_number = {p.n: p for p in result.passages}
    parts = []
    for n in sorted(set(result.citations)):
        passage = by_number.get(n)
        if passage is None:
            continue
        title = " ".join((passage.title or passage.doc_id).split())
        page = f", p. {passage.page}" if passage.page is not None else ""
        parts.append(f"{title}{page} [{n}]")
    return "📚 From our papers: " + "; ".join(parts) if parts else None
