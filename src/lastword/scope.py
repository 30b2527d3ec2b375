"""Which part of the library a question is asked of, and who is asking: one typed value.

A ``Scope`` is what every face (CLI, web, chat, an API) builds from its own input and hands to
``Pipeline.ask(question, scope=...)``; retrieval passes it to the store, which applies it inside
its search (an SQL condition on the documents, never a filter over results fetched first).

- ``collections``: documents in any of these collections;
- ``years``: an inclusive range (either end open), on the document's ``year``;
- ``authors``: a document with an author whose name contains one of these (case-insensitive);
- ``tags``: a document carrying one of these tags (keywords), case-insensitive;
- ``doc_ids``: these documents (an id, or the file name a document was ingested from);
- ``reader``: who asks. ``None`` or an administrator: every document; anyone else: the
  documents of the collections they may read (and, with ``open_documents``, documents in no
  collection that has readers).

Every condition given must hold (AND); the values inside one condition are alternatives (OR).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lastword.errors import InputError


@dataclass(frozen=True)
class Reader:
    """Who asks: a web user and their groups, or a chat room; ``admin`` sees everything."""

    name: str
    groups: frozenset[str] = frozenset()
    admin: bool = False
    #: documents in no collection with readers are visible too (``[library] open_documents``)
    open_documents: bool = True
    #: a chat room's id: readers may name a room (``room:ID``) as well as users and groups
    room: str | None = None

    def principals(self) -> frozenset[str]:
        """The reader names a collection's readers list is matched against."""
        names = {f"user:{self.name}"} | {f"group:{g}" for g in self.groups}
        if self.room:
            names.add(f"room:{self.room}")
        return frozenset(names)


#: what a collection's readers list holds: ``user:NAME``, ``group:NAME`` or ``room:ID``
PRINCIPAL = re.compile(r"^(user|group|room):\S{1,200}$")


def principal(text: str) -> str:
    """A reader name checked (``user:alice``, ``group:lab``, ``room:!id:server``); a bare name
    is a user."""
    text = text.strip()
    if ":" not in text or text.split(":", 1)[0] not in ("user", "group", "room"):
        text = f"user:{text}"
    if not PRINCIPAL.match(text):
        raise InputError(f"not a reader: {text!r} (user:NAME, group:NAME or room:ID)")
    return text


@dataclass(frozen=True)
class Scope:
    collections: frozenset[str] = frozenset()
    years: tuple[int | None, int | None] | None = None
    authors: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    doc_ids: frozenset[str] = frozenset()
    reader: Reader | None = None
    #: collections named by the asker (not by permissions): what a scope refusal names
    named: tuple[str, ...] = field(default=(), compare=False)

    @property
    def filtered(self) -> bool:
        """Whether the asker narrowed the library (any condition besides the reader)."""
        return bool(self.collections or self.years or self.authors or self.tags or self.doc_ids)

    @property
    def restricted(self) -> bool:
        """Whether the store must apply a condition at all."""
        return self.filtered or (self.reader is not None and not self.reader.admin)

    def unfiltered(self) -> Scope:
        """The same reader with no filter: everything this reader may see."""
        return Scope(reader=self.reader)

    def describe(self) -> str:
        """The filters in words, for a refusal or a log line (never a permission detail)."""
        parts = []
        if self.collections:
            names = ", ".join(sorted(self.collections))
            word = "collection" if len(self.collections) == 1 else "collections"
            parts.append(f"the {names} {word}")
        if self.years:
            lo, hi = self.years
            parts.append(f"years {lo or ''}..{hi or ''}")
        if self.authors:
            parts.append("authors " + ", ".join(sorted(self.authors)))
        if self.tags:
            parts.append("tags " + ", ".join(sorted(self.tags)))
        if self.doc_ids:
            parts.append("the documents asked for")
        return "; ".join(parts) or "the library"


_YEARS = re.compile(r"^\s*(\d{4})?\s*(?:(\.\.|-)\s*(\d{4})?)?\s*$")


def parse_years(text: str | None) -> tuple[int | None, int | None] | None:
    """``2020..2024``, ``2020..``, ``..2024`` or ``2021`` as an inclusive range."""
    if text is None or not text.strip():
        return None
    match = _YEARS.match(text)
    if not match or (match.group(1) is None and match.group(3) is None):
        raise InputError(f"not a year range: {text!r} (2020..2024, 2020.., ..2024 or 2021)")
    lo = int(match.group(1)) if match.group(1) else None
    hi = int(match.group(3)) if match.group(3) else None
    if match.group(2) is None:
        hi = lo
    if lo is not None and hi is not None and lo > hi:
        raise InputError(f"not a year range: {text!r} (the first year is after the last)")
    return lo, hi


def _names(values: Iterable[str] | None) -> frozenset[str]:
    out = set()
    for value in values or ():
        for part in str(value).split(","):
            if part.strip():
                out.add(part.strip())
    return frozenset(out)


def make_scope(
    *,
    collections: Iterable[str] | None = None,
    years: str | tuple[int | None, int | None] | None = None,
    authors: Iterable[str] | None = None,
    tags: Iterable[str] | None = None,
    doc_ids: Iterable[str] | None = None,
    reader: Reader | None = None,
) -> Scope:
    """A scope from a face's raw input (repeated options or comma-separated lists)."""
    named = _names(collections)
    return Scope(
        collections=named,
        years=parse_years(years) if isinstance(years, str | None) else years,
        authors=_names(authors),
        tags=_names(tags),
        doc_ids=_names(doc_ids),
        reader=reader,
        named=tuple(sorted(named)),
    )


#: the whole library, for callers that ask as an administrator (the local CLI)
EVERYTHING = Scope()

#: "in the Salmonella collection: ..." / "in collection Salmonella, ..." at a message's start
_IN_COLLECTION = re.compile(
    r"^\s*in\s+(?:the\s+(?P<a>[^:,]{1,80}?)\s+collection|collection\s+(?P<b>[^:,]{1,80}?))"
    r"\s*[:,]\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)


def chat_scope(
    room: str, text: str, room_collections: dict[str, list[str]], open_documents: bool = True
) -> tuple[Scope, str]:
    """A chat message's scope and its question: the room asks as reader ``room:ID`` (it sees
    the collections naming it, and open documents), within the collections the room is bound
    to (``[library] room_collections``) and any named at the start ("in the X collection: ...")."""
    named: list[str] = []
    match = _IN_COLLECTION.match(text)
    if match:
        named = [(match.group("a") or match.group("b")).strip()]
        text = match.group("rest").strip()
    bound = list(room_collections.get(room, []))
    if bound and named and not set(named) & set(bound):
        named = ["\u0000"]  # a collection outside the room's binding: nothing is searched
    reader = Reader(name="", room=room, open_documents=open_documents)
    return make_scope(collections=named or bound or None, reader=reader), text
