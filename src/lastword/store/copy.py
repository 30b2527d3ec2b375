"""Copy an index from one store to another without embedding anything again.

``lastword store copy --from DIR --to postgresql://…`` moves a local index into PostgreSQL
(or back): documents, their sources and reference lists, passages with their kinds and
flags, and vectors, exactly as stored, so the target has the
same fingerprint and gives the same answers. A document already in the target with the same
content hash is skipped; the copy commits every ``batch_passages`` passages, so an interrupted
copy is resumed by running it again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lastword.errors import IndexMismatchError
from lastword.store.protocol import Store


@dataclass
class CopyReport:
    documents: int = 0
    passages: int = 0
    skipped: int = 0
    removed: int = 0


def copy_index(
    source: Store,
    target: Store,
    *,
    batch_passages: int = 5000,
    mirror: bool = False,
    progress: Callable[[CopyReport], None] | None = None,
) -> CopyReport:
    """Copy every document of ``source`` into ``target`` (opened for writing) and commit.

    ``mirror``: also remove target documents that the source does not have.
    """
    if source.embedder != target.embedder:
        raise IndexMismatchError(
            f"{source.location} holds {source.embedder.describe()} vectors but "
            f"{target.location} holds {target.embedder.describe()}; copy into a new index"
        )
    report = CopyReport()
    have = target.document_hashes()
    pending = 0
    try:
        for record in source.documents():
            if have.get(record.doc_id) == record.content_hash:
                report.skipped += 1
                continue
            passages, vectors = source.export_document(record.doc_id)
            references = source.references([record.doc_id]).get(record.doc_id, [])
            target.put_document(record, passages, vectors, references)
            for where, path in source.source_paths(record.doc_id):
                target.add_source(record.doc_id, where, path)
            report.documents += 1
            report.passages += len(passages)
            pending += len(passages)
            if pending >= batch_passages:
                target.commit()
                pending = 0
                if progress is not None:
                    progress(report)
        if mirror:
            wanted = source.document_hashes()
            for doc_id in have:
                if doc_id not in wanted:
                    target.remove_document(doc_id)
                    report.removed += 1
        _copy_collections(source, target)
        target.commit()
        target.refresh_derived()
    except BaseException:
        target.rollback()
        raise
    return report


def _copy_collections(source: Store, target: Store) -> None:
    """The source's collections, their members and readers, added to the target's."""
    found = source.collections()
    members = source.document_collections([r.doc_id for r in source.documents()])
    for collection in found:
        docs = [doc for doc, names in members.items() if collection.name in names]
        target.add_to_collection(collection.name, docs)
        if collection.readers:
            target.set_readers(collection.name, list(collection.readers))
