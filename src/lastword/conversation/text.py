"""A result as plain text for clients that show only text (chat front ends, agents).

An answer keeps its ``[N]`` markers and ends with a "Sources" list naming each cited passage's
document and page; a refusal is a normal message saying why and who decided, citing nothing.
A follow-up says what it was asked as. Nothing here decides anything: the result is rendered.
"""

from __future__ import annotations

from collections.abc import Callable

from lastword.result import Mechanism, Result, RetrievedPassage, Status

#: who decided, in words
DECIDERS = {
    Mechanism.SCOPE_GUARD: "the scope guard",
    Mechanism.RETRIEVAL_GATE: "the retrieval gate",
    Mechanism.GENERATOR: "the generator",
    Mechanism.VERIFIER: "the verifier",
    Mechanism.UPSTREAM: "the model provider",
    Mechanism.PRE_SEARCH_GATE: "the pre-search gate",
    Mechanism.RATE_LIMIT: "a rate limit",
    Mechanism.RELEVANCE_FLOOR: "the relevance floor",
}

Linker = Callable[[RetrievedPassage], str | None]


def page_text(passage: RetrievedPassage) -> str:
    if passage.page is None:
        return ""
    label = passage.page_label
    return f", p. {passage.page}" + (f" (printed {label})" if label else "")


def cited_passages(result: Result) -> list[RetrievedPassage]:
    by_number = {p.n: p for p in result.passages}
    return [by_number[n] for n in sorted(set(result.citations)) if n in by_number]


def sources_list(result: Result, link: Linker | None = None) -> str:
    """``Sources:`` then one line per cited passage: ``[N] Title, p. 3 — link``."""
    lines = []
    for passage in cited_passages(result):
        title = " ".join((passage.title or passage.doc_id).split())
        url = link(passage) if link else None
        lines.append(f"[{passage.n}] {title}{page_text(passage)}" + (f" — {url}" if url else ""))
    return "Sources:\n" + "\n".join(lines) if lines else ""


def refusal_text(result: Result) -> str:
    """Why there is no answer, and who decided; never a citation."""
    decider = DECIDERS.get(result.decided_by) if result.decided_by else None
    if result.status is Status.REFUSED and result.refusal is not None:
        message = result.refusal.message
    elif result.status is Status.BLOCKED:
        message = "Not answered: the model provider declined this content."
    elif result.status is Status.FAILED:
        message = "Not answered: something failed while answering; try again later."
    else:
        message = "Not answered."
    reason = f" (reason: {result.refusal.reason})" if result.refusal else ""
    return message + (f" Decided by {decider}{reason}." if decider else reason)


def plain_text(result: Result, link: Linker | None = None) -> str:
    """The whole reply: "Asked as", then the answer and its sources, or the refusal."""
    parts = []
    if result.asked_as:
        parts.append(f"(Asked as: {result.asked_as})")
    if result.status is Status.ANSWERED and result.answer:
        parts.append(result.answer)
        sources = sources_list(result, link)
        if sources:
            parts.append(sources)
    else:
        parts.append(refusal_text(result))
    return "\n\n".join(parts)
