"""The retrieval gate's refusal inside a filtered scope: did the scope, or the library, lack it?

When a question asked of a scope (a collection, years, authors...) is refused by the gate, the
same question is asked once more of everything the same reader may see (``Scope.unfiltered``:
the permissions stay). If the gate passes there, the refusal says so, with how many documents
outside the scope matched ("nothing in the Salmonella collection...; 2 documents elsewhere in
the library match"); it never counts a document the reader may not see.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from lastword.result import Band, Refusal
from lastword.scope import Scope

if TYPE_CHECKING:
    from lastword.pipeline import Pipeline


def scope_refusal_elsewhere(
    pipeline: Pipeline,
    question: str,
    exclude_doc_ids: Collection[str],
    scope: Scope,
    refused: Refusal,
) -> Refusal:
    """``refused`` reworded for a scope: ``weak_in_scope`` with what the wider search found."""
    wider = pipeline.inspect(question, exclude_doc_ids, scope=scope.unfiltered())
    inside = set(pipeline.store.scope_documents(scope) or ())
    outside = dict.fromkeys(p.doc_id for p in wider.passages if p.doc_id not in inside)
    if wider.band is not Band.WEAK and outside:
        n = len(outside)
        elsewhere = f"{n} document{'s' if n != 1 else ''} elsewhere in the library match."
    else:
        elsewhere = "no document elsewhere in the library matches either."
    template = pipeline.settings.refusals.weak_in_scope
    message = template.replace("{scope}", scope.describe()).replace("{elsewhere}", elsewhere)
    return Refusal(reason="weak_in_scope", message=message)
