"""Ingest: files -> documents (readers) -> passages (chunk) -> vectors (embed) -> the store."""

from lastword.ingest.run import (
    IngestReport,
    ProgressSink,
    check_embedder_choice,
    find_files,
    ingest_paths,
)

__all__ = ["IngestReport", "ProgressSink", "check_embedder_choice", "find_files", "ingest_paths"]
