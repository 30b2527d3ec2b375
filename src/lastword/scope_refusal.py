"""The retrieval gate inside a filtered scope: did the scope, or the library, lack the answer?

A filtered scope (a collection, years, authors...) is a smaller corpus, and the gate's
thresholds were set on the whole one: inside a scope that does not hold the answer, the best
of what is left can still pass (on the papers split in two collections, 10 of 50 questions
asked of the wrong collection passed the gate; bench/scoped_gate.py). So the question is asked
once more of everything the same reader may see (``Scope.unfiltered``: the permissions stay):

- the gate refused inside the scope: the refusal says whether documents outside it match
  ("nothing in the Salmonella collection ...; 2 documents elsewhere in the library match");
- the gate passed, but the reader's whole library ranks a document outside the scope first:
  the pass is not trusted, and the refusal says the closest passages lie outside the scope.
  Measured on the papers: it refused all 10 wrong-collection passes and none of the 48
  questions that passed in their own collection (docs/library.md).

Neither ever counts a document the reader may not see.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from lastword.result import Band, Refusal, Result
from lastword.scope import Scope

if TYPE_CHECKING:
    from lastword.pipeline import Pipeline


def scope_check(
    pipeline: Pipeline,
    question: str,
    exclude_doc_ids: Collection[str],
    scope: Scope,
    result: Result,
) -> Refusal | None:
    """The scope's refusal (``weak_in_scope`` / ``outranked_in_scope``), or None to go on."""
    refused = not result.passages or result.band is Band.WEAK
    wider = pipeline.inspect(question, exclude_doc_ids, scope=scope.unfiltered())
    inside = set(pipeline.store.scope_documents(scope) or ())
    outside = dict.fromkeys(p.doc_id for p in wider.passages if p.doc_id not in inside)
    outranked = bool(wider.passages) and wider.passages[0].doc_id not in inside
    if not refused and not outranked:
        return None
    if wider.band is not Band.WEAK and outside:
        n = len(outside)
        elsewhere = f"{n} document{'s' if n != 1 else ''} elsewhere in the library match."
    else:
        elsewhere = "no document elsewhere in the library matches either."
    reason = "weak_in_scope" if refused else "outranked_in_scope"
    template = getattr(pipeline.settings.refusals, reason)
    message = template.replace("{scope}", scope.describe()).replace("{elsewhere}", elsewhere)
    return Refusal(reason=reason, message=message)
