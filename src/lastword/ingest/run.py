"""Ingest: read files, split them into passages, embed, and store, incrementally and crash-safely.

A document's content hash decides its fate: unchanged -> skipped (nothing embedded), changed ->
its passages replaced, new -> added. Work is committed in batches of whole documents, so a
killed process loses at most the batch in flight and a re-run picks up where it stopped.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from lastword.embed.for_index import check_matches
from lastword.embed.protocol import Embedder, EmbedderInfo
from lastword.errors import IngestCancelled, IngestError, InputError
from lastword.ingest.bounds import Bounds, check_cancelled, check_decoded, reading
from lastword.ingest.chunk import split_passages
from lastword.ingest.document import SourceDocument, content_hash
from lastword.ingest.ocr.marks import mark_passages
from lastword.ingest.readers import READERS, reader_for
from lastword.injection import instruction_sentences
from lastword.settings import IngestSettings, StoreSettings
from lastword.store.open import open_store, store_exists
from lastword.store.protocol import DocumentRecord, NewPassage, ReferenceEntry, Store
from lastword.text_check import invalid_unicode_at
from lastword.text_check import shown as printable


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[IngestError] = field(default_factory=list)
    #: what was read but not as given (e.g. a reserved metadata key ignored): one line each
    warnings: list[str] = field(default_factory=list)
    passages_embedded: int = 0
    embed_seconds: float = 0.0
    seconds: float = 0.0
    library: Any = None  # the LibraryReport of a --bib library, when one was applied

    @property
    def passages_per_second(self) -> float:
        return self.passages_embedded / self.embed_seconds if self.embed_seconds else 0.0


class ProgressSink:
    """Receives progress; the CLI shows a bar, the web app a percentage, tests nothing."""

    def start(self, total_passages: int, documents: int) -> None: ...

    def advance(self, passages: int) -> None: ...

    def finish(self) -> None: ...

    def ocr_page(self, source: str, done: int, total: int) -> None:
        """One more page of ``source`` read by OCR (``done`` of ``total``)."""


_BAD_NAME = "the file name is not valid UTF-8; rename the file to ingest it"


def _absolute(path: Path) -> Path:
    """``path`` made absolute without following a link in its last part (its reader is the
    link's suffix, not the target's)."""
    return path.parent.resolve() / path.name


def _link_problem(link: Path, root: Path, follow_outside: bool) -> IngestError | None:
    """Why a symbolic link inside a folder is not followed, or None to follow it."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # dangling, a loop, or unreadable on the way
        return IngestError("broken symbolic link (its target cannot be reached)", str(link))
    if not follow_outside and not target.is_relative_to(root.resolve()):
        return IngestError(
            "symbolic link leads outside the ingested folder; not followed "
            "(set [ingest] follow_symlinks_outside = true to allow it)",
            str(link),
        )
    if not target.is_file():
        return IngestError("symbolic link does not lead to a file", str(link))
    return None


def find_files(
    paths: Sequence[Path], follow_symlinks_outside: bool = False
) -> tuple[list[Path], list[IngestError]]:
    """Expand folders recursively into readable files; name what cannot be used.

    Inside a folder a symbolic link is followed only to a file inside that folder (unless
    ``follow_symlinks_outside``); a broken link is one error and the rest goes on.
    """
    files: list[Path] = []
    problems: list[IngestError] = []
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if hidden or not reader_for(child):
                    continue
                if child.is_symlink():
                    problem = _link_problem(child, path, follow_symlinks_outside)
                    if problem is not None:
                        problems.append(problem)
                        continue
                if invalid_unicode_at(str(child)) is not None:
                    problems.append(IngestError(_BAD_NAME, printable(str(child))))
                elif child.is_file():
                    files.append(_absolute(child))
        elif path.is_file():
            if reader_for(path):
                files.append(_absolute(path))
            else:
                problems.append(
                    IngestError(
                        f"unsupported file type; lastword reads {', '.join(sorted(READERS))}",
                        str(path),
                    )
                )
        else:
            problems.append(IngestError("no such file or folder", str(path)))
    unique = list(dict.fromkeys(files))
    return unique, problems


_NOT_UNICODE = "the text read from it is not valid Unicode (unpaired surrogates)"


def _invalid_unicode(document: SourceDocument) -> bool:
    texts = [document.title, document.doc_id, *(page.text for page in document.pages)]
    return any(invalid_unicode_at(text) is not None for text in texts)


def relative_paths(paths: Sequence[Path], files: Sequence[Path]) -> dict[Path, str]:
    """What users see for each file: its path relative to the folder it was ingested from
    (a file named on its own: its name). Never an absolute server path."""
    shown: dict[Path, str] = {}
    roots = [p.resolve() for p in paths if p.is_dir()]
    for file in files:
        for root in roots:
            if file.is_relative_to(root):
                shown[file] = file.relative_to(root).as_posix()
                break
        else:
            shown[file] = file.name
    return shown


@dataclass
class _Pending:
    """Paths to record for documents whose content is already stored (a copy, a move)."""

    sources: list[tuple[str, str, str]] = field(default_factory=list)  # doc_id, source, shown


def _read_all(
    files: Iterable[Path],
    shown: dict[Path, str],
    known: dict[str, str],
    report: IngestReport,
    pending: _Pending,
    settings: IngestSettings | None = None,
    progress: ProgressSink | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[SourceDocument]:
    """Yield documents that are new or changed; a file whose content is stored is skipped
    unparsed (its path is recorded: one document, every path it is found at). Each file is
    read within the bounds of ``settings`` (``ingest.bounds``); ``cancel`` set stops the run
    before the next file or page (``IngestCancelled``)."""
    limits = Bounds.from_settings(settings) if settings is not None else Bounds()
    for path in files:
        check_cancelled(cancel)
        try:
            data = path.read_bytes()
        except OSError as exc:
            report.failed.append(IngestError(f"cannot read file ({exc.strerror})", str(path)))
            continue
        by_content = path.suffix.lower() != ".jsonl"
        digest = content_hash(data)
        if by_content and known.get(digest) == digest:
            pending.sources.append((digest, str(path), shown[path]))
            report.skipped.append(shown[path])
            continue
        reader = reader_for(path, settings, progress.ocr_page if progress else None)
        if reader is None:
            report.failed.append(IngestError("unsupported file type", str(path)))
            continue
        try:
            with reading(str(path), limits, cancel):
                if path.suffix.lower() == ".pdf":
                    check_decoded(data, str(path))
                for outcome in reader(path, data):
                    check_cancelled(cancel)  # between records of a JSONL file too
                    if isinstance(outcome, IngestError):
                        report.failed.append(outcome)
                    elif known.get(outcome.doc_id) == outcome.content_hash:
                        report.skipped.append(outcome.doc_id)
                    elif _invalid_unicode(outcome):
                        report.failed.append(IngestError(_NOT_UNICODE, outcome.source))
                    else:
                        outcome = _without_reserved(outcome, report)
                        where = {"path": shown[path]}
                        if by_content:  # the file's paths: the ingest's own record, not input
                            where["paths"] = [shown[path]]
                        yield replace(outcome, metadata={**outcome.metadata, **where})
        except IngestError as exc:
            report.failed.append(exc)


#: metadata keys ingest itself writes (where a file was found); never taken from input
RESERVED_METADATA = ("path", "paths")


def _without_reserved(document: SourceDocument, report: IngestReport) -> SourceDocument:
    """``document`` without the reserved metadata keys its input gave, each named in a
    warning: a JSONL record's own ``"paths"`` must not make ingest treat it as a file found by
    its content (records under one id would replace each other)."""
    given = [key for key in RESERVED_METADATA if key in document.metadata]
    if not given:
        return document
    names = ", ".join(f'"{key}"' for key in given)
    report.warnings.append(
        f'{document.source}: record "{document.doc_id}": metadata {names} reserved for where '
        "lastword found the file; ignored"
    )
    kept = {k: v for k, v in document.metadata.items() if k not in RESERVED_METADATA}
    return replace(document, metadata=kept)


def _attach(store: Store, doc_id: str, source: str, path: str) -> str | None:
    """Record ``source`` as a path of ``doc_id``; returns a document this left with no path."""
    previous = store.sources().get(source)
    store.add_source(doc_id, source, path)
    if previous is not None and previous != doc_id:
        left = store._conn.execute(
            "SELECT COUNT(*) FROM sources WHERE doc_id = ?", (previous,)
        ).fetchone()[0]
        if not left:
            store.remove_document(previous)
            return previous
    return None


def _batches(
    documents: Sequence[tuple[SourceDocument, list[NewPassage]]], batch_passages: int
) -> Iterator[list[tuple[SourceDocument, list[NewPassage]]]]:
    batch: list[tuple[SourceDocument, list[NewPassage]]] = []
    size = 0
    for item in documents:
        batch.append(item)
        size += len(item[1])
        if size >= batch_passages:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def index_embedder(
    index_dir: Path, store_settings: StoreSettings | None = None
) -> EmbedderInfo | None:
    """The embedder recorded by the index at ``index_dir``; None when there is no index yet."""
    store_settings = store_settings or StoreSettings()
    if not store_exists(store_settings, index_dir):
        return None
    with open_store(store_settings, index_dir) as store:
        return store.embedder


def ingest_paths(
    paths: Sequence[Path],
    index_dir: Path | Store,
    embedder: Embedder,
    settings: IngestSettings,
    *,
    sync: bool = False,
    progress: ProgressSink | None = None,
    on_batch_committed: Callable[[int], None] | None = None,
    store_settings: StoreSettings | None = None,
    cancel: threading.Event | None = None,
    library: Path | None = None,
    collections: Sequence[str] = (),
) -> IngestReport:
    """Bring the index up to date with ``paths``. Never raises for one bad file.

    ``index_dir``: a store opened for writing (left open), or the local directory to open by
    ``store_settings`` (the configured backend; closed at the end). ``cancel`` set (by another
    thread) stops the run before the next file, page or batch with ``IngestCancelled``; every
    batch committed before stays. ``library``: a .bib, CSL-JSON or RIS export whose entries give
    the documents their metadata and collections (``ingest/library.py``; its report in
    ``report.library``); ``collections``: every file ingested now joins these.
    """
    started = time.perf_counter()
    progress = progress or ProgressSink()
    report = IngestReport()
    files, problems = find_files(paths, settings.follow_symlinks_outside)
    report.failed += problems
    if not files and not sync:
        if problems:
            return report
        raise InputError("no files to ingest: lastword reads " + ", ".join(sorted(READERS)))

    owned = not isinstance(index_dir, Store)
    if isinstance(index_dir, Store):
        store = index_dir
    else:
        store = open_store(store_settings or StoreSettings(), index_dir, write_as=embedder.info)
    try:
        check_matches(store.embedder, embedder.info, store.location)
        known = store.document_hashes()
        shown = relative_paths(paths, files)
        pending = _Pending()
        documents = []
        try:
            for document in _read_all(
                files, shown, known, report, pending, settings, progress, cancel
            ):
                passages = prepare_passages(document, settings, report)
                if passages:
                    documents.append((document, passages))
        except IngestCancelled:
            raise IngestCancelled(
                "the ingest was cancelled while reading; nothing new was indexed"
            ) from None

        total = sum(len(p) for _, p in documents)
        progress.start(total, len(documents))
        added_at = datetime.now(UTC).isoformat(timespec="seconds")
        for batch in _batches(documents, settings.commit_every):
            if cancel is not None and cancel.is_set():
                store.refresh_derived()
                raise IngestCancelled(
                    f"the ingest was cancelled; {len(report.added) + len(report.replaced)} "
                    "document(s) committed before it stay indexed"
                )
            texts = [p.text for _, passages in batch for p in passages]
            embed_started = time.perf_counter()
            vectors = embedder.embed_documents(texts)
            report.embed_seconds += time.perf_counter() - embed_started
            write_batch(store, batch, vectors, known, added_at, report)
            report.passages_embedded += len(texts)
            progress.advance(len(texts))
            if on_batch_committed is not None:
                on_batch_committed(report.passages_embedded)

        finish_ingest(store, pending, files, report, sync=sync)
        if library is not None or collections:
            from lastword.ingest.library import add_to_collections, apply_library

            by_source = store.sources()
            ingested = list(dict.fromkeys(by_source[str(f)] for f in files if str(f) in by_source))
            if library is not None:
                report.library = apply_library(store, library)
            if collections:
                add_to_collections(store, ingested, collections)
            store.refresh_derived()
        progress.finish()
    finally:
        if owned:
            store.close()
        else:
            store.rollback()
    report.seconds = time.perf_counter() - started
    return report


def prepare_passages(
    document: SourceDocument, settings: IngestSettings, report: IngestReport
) -> list[NewPassage]:
    """A read document's passages, with instruction-like sentences flagged; none (and a
    failure in ``report``) when it has no text."""
    passages = split_passages(
        document.pages,
        min_words=settings.min_words,
        target_words=settings.target_words,
        max_words=settings.max_words,
        paragraphs_are_passages=document.paragraphs_are_passages,
    )
    if not passages:
        report.failed.append(IngestError("no text to index", document.source))
        return []
    if document.ocr_words:  # each passage read by OCR marked with its confidence
        mark_passages(document.metadata, document.ocr_words, passages, settings.ocr_low_confidence)
    return [replace(p, flags=instruction_sentences(p.text)) for p in passages]


def write_batch(
    store: Store,
    batch: Sequence[tuple[SourceDocument, list[NewPassage]]],
    vectors: np.ndarray,
    known: dict[str, str],
    added_at: str,
    report: IngestReport,
) -> None:
    """Store one batch of embedded documents and commit it (the crash-safe unit)."""
    offset = 0
    for document, passages in batch:
        record = DocumentRecord(
            doc_id=document.doc_id,
            title=document.title,
            source=document.source,
            content_hash=document.content_hash,
            pages=len(document.pages) if document.paged else None,
            passages=len(passages),
            added_at=added_at,
            metadata=document.metadata,
        )
        references = [ReferenceEntry(r.number, r.text) for r in document.references]
        store.put_document(record, passages, vectors[offset : offset + len(passages)], references)
        offset += len(passages)
        shown_as = document.metadata.get("path", document.doc_id)
        replaced = document.doc_id in known
        if "paths" in document.metadata:  # a file identified by its content
            replaced = _attach(store, document.doc_id, document.source, shown_as) or replaced
        else:
            shown_as = document.doc_id
        (report.replaced if replaced else report.added).append(shown_as)
    store.commit()


def finish_ingest(
    store: Store,
    pending: _Pending,
    files: Sequence[Path],
    report: IngestReport,
    *,
    sync: bool,
) -> None:
    """Record paths of documents already stored, remove what --sync drops, refresh the matrix."""
    for doc_id, source, shown_as in pending.sources:
        if _attach(store, doc_id, source, shown_as):
            report.replaced.append(shown_as)
    store.commit()
    if sync:
        report.removed = _sync_removals(store, files, report)
        store.commit()
    store.refresh_derived()


def _sync_removals(store: Store, files: Sequence[Path], report: IngestReport) -> list[str]:
    """Documents whose every file is gone, or whose JSONL record is gone from a file read in
    full. A path that is gone is forgotten; its document stays while another path holds it."""
    read_files = {str(f) for f in files}
    failed_files = {e.source for e in report.failed}
    present = set(report.added) | set(report.replaced) | set(report.skipped)
    removed = []
    by_source = store.sources()
    shown = {
        record.doc_id: record.metadata.get("path", record.doc_id) for record in store.documents()
    }
    for source in by_source:
        if not os.path.exists(source):
            orphan = store.remove_source(source)
            if orphan is not None:
                store.remove_document(orphan)
                removed.append(shown.get(orphan, orphan))
    tracked = set(by_source.values())
    for doc_id, source in store.document_sources().items():
        if doc_id in tracked:
            continue
        gone = not os.path.exists(source)
        dropped_record = (
            source in read_files
            and source not in failed_files
            and source.endswith(".jsonl")
            and doc_id not in present
        )
        if gone or dropped_record:
            store.remove_document(doc_id)
            removed.append(doc_id)
    return removed
