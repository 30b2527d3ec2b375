"""Ingest: files -> documents (readers) -> passages (chunk) -> vectors (embed) -> the store."""

from lastword.ingest.run import (
    IngestReport,
    ProgressSink,
    find_files,
    index_embedder,
    ingest_paths,
)

__all__ = ["IngestReport", "ProgressSink", "find_files", "index_embedder", "ingest_paths"]
