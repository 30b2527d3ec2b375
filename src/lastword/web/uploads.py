"""Uploaded files: safe names inside the corpus folder, the size limit, the ingest job.

A file name from the browser is untrusted: only its last path component is kept, reduced to
letters, digits and ``._- ``, and the final path is checked to lie inside the corpus folder.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from fastapi import UploadFile

from lastword.errors import IngestCancelled, InputError
from lastword.gate.auto import calibrate_after_ingest
from lastword.ingest import ProgressSink, ingest_paths
from lastword.ingest.readers import READERS
from lastword.web.errors import WebError
from lastword.web.jobs import Job
from lastword.web.server_state import ServerState

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")
CHUNK = 1024 * 1024


def safe_file_name(raw: str | None) -> str:
    """A plain file name from whatever the client sent; never a path."""
    name = unicodedata.normalize("NFKC", raw or "")
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    name = _UNSAFE.sub("_", name).strip(" .")
    if not name or name in {".", ".."}:
        raise InputError(f"unusable file name {raw!r}")
    suffix = Path(name).suffix.lower()
    if suffix not in READERS:
        raise InputError(
            f"{name}: unsupported file type; lastword reads {', '.join(sorted(READERS))}"
        )
    return name[:150]


def target_path(folder: Path, name: str) -> Path:
    folder = folder.resolve()
    path = (folder / name).resolve()
    if path.parent != folder:
        raise InputError(f"{name}: the file name leaves the corpus folder")
    return path


@dataclass
class SavedUpload:
    name: str
    path: Path


async def save_uploads(files: list[UploadFile], folder: Path, limit: int) -> list[SavedUpload]:
    """Write each upload beside the corpus; refuse the whole request past ``limit`` bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    prepared = [(upload, safe_file_name(upload.filename)) for upload in files]
    if not prepared:
        raise InputError("no file was uploaded")
    saved: list[SavedUpload] = []
    total = 0
    try:
        for upload, name in prepared:
            path = target_path(folder, name)
            tmp = path.with_name(f".upload-{os.getpid()}-{name}")
            with tmp.open("wb") as handle:
                while chunk := await upload.read(CHUNK):
                    total += len(chunk)
                    if total > limit:
                        handle.close()
                        tmp.unlink(missing_ok=True)
                        raise WebError(
                            413,
                            "too_large",
                            f"the upload is over the limit of {limit / 1e6:.1f} MB per request; "
                            "split it, or ingest it with 'lastword ingest' on the server",
                        )
                    handle.write(chunk)
            saved.append(SavedUpload(name, tmp))
    except BaseException:
        for item in saved:
            item.path.unlink(missing_ok=True)
        raise
    final = []
    for item in saved:
        path = target_path(folder, item.name)
        os.replace(item.path, path)
        final.append(SavedUpload(item.name, path))
    return final


class JobProgress(ProgressSink):
    def __init__(self, job: Job) -> None:
        self.job = job

    def start(self, total_passages: int, documents: int) -> None:
        self.job.unit = "passages"
        self.job.total = total_passages
        self.job.message = f"embedding {documents} document(s)"

    def advance(self, passages: int) -> None:
        self.job.done += passages


def ingest_job(state: ServerState, paths: list[Path]):
    def work(job: Job) -> None:
        job.message = "reading files"
        try:
            report = ingest_paths(
                paths,
                state.index_dir,
                state.embedder,
                state.settings.ingest,
                progress=JobProgress(job),
                store_settings=state.settings.store,
                cancel=job.cancel,
            )
        except IngestCancelled:
            state.reload()  # batches committed before the cancel are searched at once
            raise
        if report.added or report.replaced or report.removed:
            job.message = "calibrating the gate on the corpus"
            calibrate_after_ingest(state.settings, state.index_dir, state.embedder)
        state.reload()
        job.result = {
            "added": [Path(d).name for d in report.added],
            "replaced": [Path(d).name for d in report.replaced],
            "skipped": [Path(d).name for d in report.skipped],
            "failed": [
                {"file": Path(e.source).name, "line": e.line, "message": e.reason}
                for e in report.failed
            ],
            "warnings": list(report.warnings),
            "passages_embedded": report.passages_embedded,
            "seconds": round(report.seconds, 2),
        }
        failed = len(report.failed)
        job.message = (
            f"{len(report.added)} added, {len(report.replaced)} replaced, "
            f"{len(report.skipped)} unchanged, {failed} failed"
        )

    return work


def remove_document(state: ServerState, doc_id: str) -> bool:
    """Remove one document from the index (and its uploaded file, if it is one of ours)."""
    with state.open_store(write=True) as store:
        known = store.document_sources()
        if doc_id not in known:
            return False
        store.remove_document(doc_id)
        store.commit()
        store.refresh_derived()
    source = Path(known[doc_id])
    uploads = state.config.uploads.resolve()
    if source.parent == uploads and source.is_file():
        source.unlink()
    state.reload()
    return True
