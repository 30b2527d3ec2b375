"""Metadata from the lab's reference manager: a BibTeX/BibLaTeX, CSL-JSON or RIS export.

``read_library(path)`` reads the entries (``bibtexparser`` v2, ``json``, ``rispy``); each stored
document is matched to one entry (``match_library``), in this order:

1. the entry's ``file`` field names the document's file (Zotero / Better BibTeX, JabRef);
2. a DOI printed on the document's first page is the entry's DOI;
3. the entry's title is the document's title or stands near the top of its first page
   (normalised, similarity >= ``TITLE_SIMILARITY``), and no other entry is as close;
4. none.

A match whose evidence disagrees (the file field names the document but the DOI on its first
page is another entry's, or a title match whose DOI contradicts the page) is a *conflict*:
reported, not applied. ``apply_library`` writes the matched entries' title, authors, year,
venue, DOI, tags and collections into the documents' metadata in one batch (nothing is
re-read or re-embedded), and the report lists every document matched (and how), every
document and entry left unmatched, and every conflict.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from lastword.errors import InputError
from lastword.store.protocol import Store

#: how close (difflib ratio of normalised titles) a title must be to count as a match
TITLE_SIMILARITY = 0.9
#: characters of a document's first page searched for a DOI and a title
FIRST_PAGE_CHARS = 6000
DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)


@dataclass(frozen=True)
class LibraryEntry:
    key: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    tags: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    files: tuple[str, ...] = ()  # file names (the last part of each path in the file field)

    def metadata(self) -> dict[str, Any]:
        """The document metadata this entry gives (only the fields it has)."""
        out: dict[str, Any] = {"citekey": self.key}
        if self.authors:
            out["authors"] = list(self.authors)
        if self.year is not None:
            out["year"] = self.year
        if self.venue:
            out["venue"] = self.venue
        if self.doi:
            out["doi"] = self.doi
        if self.tags:
            out["tags"] = list(self.tags)
        return out


@dataclass(frozen=True)
class Match:
    doc_id: str
    shown: str  # the document's path as users see it
    entry: str  # the entry's key
    how: str  # file | doi | title


@dataclass
class LibraryReport:
    source: str
    entries: int = 0
    matched: list[Match] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)  # documents whose metadata changed
    unmatched_documents: list[str] = field(default_factory=list)
    unmatched_entries: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # one sentence each
    unreadable: list[str] = field(default_factory=list)  # entries the parser could not read

    def lines(self) -> list[str]:
        """The report in words, one line each (the CLI prints them)."""
        out = [
            f"library {self.source}: {self.entries} entries, {len(self.matched)} documents "
            f"matched ({', '.join(f'{n} by {how}' for how, n in self._by_how().items()) or '-'})"
            f", {len(self.updated)} updated"
        ]
        out += [f"  no entry for document: {name}" for name in self.unmatched_documents]
        out += [f"  no document for entry: {key}" for key in self.unmatched_entries]
        out += [f"  conflict: {text}" for text in self.conflicts]
        out += [f"  unreadable entry: {text}" for text in self.unreadable]
        return out

    def _by_how(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self.matched:
            counts[m.how] = counts.get(m.how, 0) + 1
        return counts


# ----------------------------------------------------------------- reading
def read_library(path: Path) -> tuple[list[LibraryEntry], list[str]]:
    """The entries of a .bib, .json (CSL-JSON) or .ris export, and the ones not readable."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the library file {path}: {exc}") from None
    suffix = path.suffix.lower()
    if suffix in (".bib", ".bibtex", ".biblatex"):
        return _read_bibtex(text)
    if suffix in (".json", ".csljson"):
        return _read_csl(text, path)
    if suffix in (".ris", ".txt"):
        return _read_ris(text)
    raise InputError(
        f"unknown library format {path.name}: lastword reads .bib (BibTeX/BibLaTeX), "
        ".json (CSL-JSON) and .ris"
    )


def _read_bibtex(text: str) -> tuple[list[LibraryEntry], list[str]]:
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    unreadable = [_first_line(block.raw) for block in library.failed_blocks]
    entries = []
    for entry in library.entries:
        fields = {k.lower(): str(v.value) for k, v in entry.fields_dict.items()}
        year = _year(fields.get("year") or fields.get("date"))
        entries.append(
            LibraryEntry(
                key=entry.key,
                title=_clean(fields.get("title", "")),
                authors=tuple(_bib_name(n) for n in _split_and(fields.get("author", ""))),
                year=year,
                venue=_clean(
                    fields.get("journal")
                    or fields.get("journaltitle")
                    or fields.get("booktitle")
                    or ""
                )
                or None,
                doi=_doi(fields.get("doi")),
                tags=_list(fields.get("keywords", "")),
                collections=_list(fields.get("groups", "") + "," + fields.get("collections", "")),
                files=_file_names(fields.get("file", "")),
            )
        )
    return entries, unreadable


def _read_csl(text: str, path: Path) -> tuple[list[LibraryEntry], list[str]]:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path.name} is not CSL-JSON: {exc}") from None
    if isinstance(items, dict):
        items = items.get("items", [items])
    if not isinstance(items, list):
        raise InputError(f"{path.name} is not CSL-JSON: a list of items is expected")
    entries, unreadable = [], []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not item.get("title"):
            unreadable.append(f"item {n} (no title)")
            continue
        authors = []
        for person in item.get("author", []) or []:
            if isinstance(person, dict):
                name = person.get("literal") or " ".join(
                    p for p in (person.get("given"), person.get("family")) if p
                )
                if name:
                    authors.append(_clean(name))
        issued = item.get("issued") or {}
        parts = issued.get("date-parts") if isinstance(issued, dict) else None
        year = None
        if parts and parts[0]:
            year = _year(str(parts[0][0]))
        elif isinstance(issued, dict):
            year = _year(str(issued.get("raw", "")))
        keywords = item.get("keyword", "")
        entries.append(
            LibraryEntry(
                key=str(item.get("id") or item.get("citation-key") or f"item{n}"),
                title=_clean(str(item["title"])),
                authors=tuple(authors),
                year=year,
                venue=_clean(str(item.get("container-title", ""))) or None,
                doi=_doi(item.get("DOI")),
                tags=_list(keywords if isinstance(keywords, str) else ",".join(keywords)),
                collections=tuple(item.get("collections", ()) or ()),
                files=_file_names(str(item.get("file", ""))),
            )
        )
    return entries, unreadable


def _read_ris(text: str) -> tuple[list[LibraryEntry], list[str]]:
    import rispy

    try:
        items = rispy.loads(text)
    except Exception as exc:  # rispy raises plain exceptions for a malformed file
        raise InputError(f"not an RIS file: {exc}") from None
    entries, unreadable = [], []
    for n, item in enumerate(items, start=1):
        title = item.get("title") or item.get("primary_title") or ""
        if not title:
            unreadable.append(f"record {n} (no title)")
            continue
        authors = item.get("authors") or item.get("first_authors") or []
        files = [*item.get("file_attachments1", []), *item.get("file_attachments2", [])]
        files += (
            item.get("urls", []) if any(u.endswith(".pdf") for u in item.get("urls", [])) else []
        )
        entries.append(
            LibraryEntry(
                key=str(item.get("id") or f"record{n}"),
                title=_clean(title),
                authors=tuple(_bib_name(a) for a in authors),
                year=_year(str(item.get("year") or item.get("publication_year") or "")),
                venue=_clean(
                    item.get("journal_name")
                    or item.get("secondary_title")
                    or item.get("alternate_title1")
                    or ""
                )
                or None,
                doi=_doi(item.get("doi")),
                tags=tuple(item.get("keywords", []) or ()),
                files=_file_names(";".join(files)),
            )
        )
    return entries, unreadable


def _first_line(raw: str) -> str:
    return raw.strip().splitlines()[0][:120] if raw.strip() else "(empty)"


def _clean(text: str) -> str:
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def _split_and(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"\s+and\s+", _clean(text)) if part.strip()]


def _bib_name(name: str) -> str:
    """``Last, First`` as ``First Last``; other forms as they are."""
    name = _clean(name)
    if name.count(",") == 1:
        last, first = (p.strip() for p in name.split(","))
        return f"{first} {last}".strip()
    return name


def _year(text: str | None) -> int | None:
    match = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", text or "")
    return int(match.group(1)) if match else None


def _doi(text: object) -> str | None:
    if not text:
        return None
    match = DOI.search(str(text))
    return _trim_doi(match.group(1)) if match else None


def _trim_doi(doi: str) -> str:
    return doi.rstrip(".,;)]").lower()


def _list(text: str) -> tuple[str, ...]:
    parts = re.split(r"[,;]", text)
    return tuple(dict.fromkeys(_clean(p) for p in parts if _clean(p)))


def _file_names(text: str) -> tuple[str, ...]:
    """The file names in a file field: Better BibTeX's ``/path/a.pdf;/path/b.pdf``, Zotero's
    and JabRef's ``description:path:mime`` (a Windows drive letter kept with its path)."""
    names = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        pieces = part.split(":")
        if len(pieces) >= 3 and "/" in pieces[-1]:  # description:path:application/pdf
            part = ":".join(pieces[1:-1])
        part = part.replace("\\:", ":")
        name = PureWindowsPath(part).name if "\\" in part else PurePosixPath(part).name
        if name:
            names.append(name)
    return tuple(names)


# ----------------------------------------------------------------- matching
def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


@dataclass(frozen=True)
class _Doc:
    doc_id: str
    title: str
    names: tuple[str, ...]  # file names of its paths
    shown: str
    first_page: str


def _first_page(store: Store, doc_id: str) -> str:
    passages, _ = store.export_document(doc_id)
    pages = [p.page for p in passages if p.page is not None]
    first = min(pages) if pages else None
    text = " ".join(p.text for p in passages if p.page == first) if pages else ""
    return text[:FIRST_PAGE_CHARS]


def _title_score(entry: LibraryEntry, doc: _Doc) -> float:
    wanted = _norm(entry.title)
    if not wanted:
        return 0.0
    best = difflib.SequenceMatcher(None, wanted, _norm(doc.title)).ratio()
    page = _norm(doc.first_page)
    if wanted in page:
        return 1.0
    # the title may wrap differently or carry a line-break hyphen: a window of its length
    words, target = page.split(), len(wanted.split())
    for start in range(0, min(len(words), 400)):
        window = " ".join(words[start : start + target])
        if window[:3] != wanted[:3]:
            continue
        best = max(best, difflib.SequenceMatcher(None, wanted, window).ratio())
    return best


def match_library(
    store: Store, entries: Sequence[LibraryEntry], report: LibraryReport
) -> list[tuple[Match, LibraryEntry]]:
    """Each stored document's entry, by file field, DOI on page 1, then title; the rest and
    every conflict go to ``report``."""
    docs = []
    for record in store.documents():
        paths = [shown for _, shown in store.source_paths(record.doc_id)]
        shown = paths[0] if paths else str(record.metadata.get("path", record.doc_id))
        names = tuple(PurePosixPath(p).name for p in paths) or (PurePosixPath(shown).name,)
        title = str(record.metadata.get("pdf_title", record.title))  # what the PDF says
        docs.append(_Doc(record.doc_id, title, names, shown, _first_page(store, record.doc_id)))
    by_file: dict[str, list[LibraryEntry]] = {}
    by_doi: dict[str, list[LibraryEntry]] = {}
    for entry in entries:
        for name in entry.files:
            by_file.setdefault(name.lower(), []).append(entry)
        if entry.doi:
            by_doi.setdefault(entry.doi, []).append(entry)
    used: set[str] = set()
    found: list[tuple[Match, LibraryEntry]] = []
    for doc in docs:
        page_dois = list(dict.fromkeys(_trim_doi(d) for d in DOI.findall(doc.first_page)))
        chosen, how = None, ""
        candidates = [e for name in doc.names for e in by_file.get(name.lower(), [])]
        if len({e.key for e in candidates}) > 1:
            keys = ", ".join(sorted({e.key for e in candidates}))
            report.conflicts.append(
                f"{doc.shown}: the file field of several entries names it ({keys})"
            )
            continue
        if candidates:
            chosen, how = candidates[0], "file"
        else:
            for doi in page_dois:
                if len(by_doi.get(doi, [])) == 1:
                    chosen, how = by_doi[doi][0], "doi"
                    break
        if chosen is None:
            scored = sorted(((_title_score(e, doc), e) for e in entries), key=lambda s: -s[0])
            if scored and scored[0][0] >= TITLE_SIMILARITY:
                if len(scored) > 1 and scored[1][0] >= scored[0][0] - 0.02:
                    report.conflicts.append(
                        f"{doc.shown}: the titles of {scored[0][1].key} and {scored[1][1].key} "
                        "match it equally; neither applied"
                    )
                    continue
                chosen, how = scored[0][1], "title"
        if chosen is None:
            report.unmatched_documents.append(doc.shown)
            continue
        if chosen.doi and page_dois and not _doi_agrees(chosen.doi, page_dois) and how != "doi":
            report.conflicts.append(
                f"{doc.shown}: entry {chosen.key} (matched by {how}) has DOI {chosen.doi}, but "
                f"page 1 shows {', '.join(page_dois[:2])}; not applied"
            )
            continue
        if how != "title" and _title_score(chosen, doc) < 0.5 and not chosen.doi:
            report.conflicts.append(
                f"{doc.shown}: entry {chosen.key} (matched by {how}) has a title not found on "
                "page 1; not applied"
            )
            continue
        if chosen.key in used:
            report.conflicts.append(f"{doc.shown}: entry {chosen.key} already matched a document")
            continue
        used.add(chosen.key)
        found.append((Match(doc.doc_id, doc.shown, chosen.key, how), chosen))
    report.unmatched_entries = [e.key for e in entries if e.key not in used]
    return found


def _doi_agrees(doi: str, page_dois: Sequence[str]) -> bool:
    """Whether a page shows this DOI (or its start, cut by a line break in the PDF)."""
    return any(doi == d or (len(d) >= 12 and doi.startswith(d)) for d in page_dois)


#: the metadata keys a library entry owns (replaced on every apply; absent fields removed)
OWNED = ("citekey", "authors", "year", "venue", "doi", "tags", "library_title", "pdf_title")


def add_to_collections(store: Store, doc_ids: Sequence[str], collections: Sequence[str]) -> None:
    """Put documents in collections (``--collection NAME``), in one committed batch."""
    for name in collections:
        store.add_to_collection(name, list(doc_ids))
    store.commit()


def apply_library(
    store: Store,
    path: Path,
    *,
    collections: Sequence[str] = (),
) -> LibraryReport:
    """Match every stored document to ``path``'s entries and write their metadata and
    collections (the entry's groups, and ``collections``) in one committed batch."""
    entries, unreadable = read_library(path)
    report = LibraryReport(source=path.name, entries=len(entries), unreadable=unreadable)
    matches = match_library(store, entries, report)
    records = {r.doc_id: r for r in store.documents()}
    for match, entry in matches:
        record = records[match.doc_id]
        metadata = {k: v for k, v in record.metadata.items() if k not in OWNED}
        metadata |= entry.metadata()
        title = entry.title or record.title
        original = record.metadata.get("pdf_title", record.title)
        if title != original:
            metadata["pdf_title"] = original  # what the PDF said, kept for a later re-match
        if metadata != record.metadata or title != record.title:
            store.update_document(match.doc_id, title, metadata)
            report.updated.append(match.shown)
        for name in (*entry.collections, *collections):
            store.add_to_collection(name, [match.doc_id])
    report.matched = [m for m, _ in matches]
    store.commit()
    return report
