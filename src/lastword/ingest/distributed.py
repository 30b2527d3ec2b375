"""Ingest on a Ray cluster: reading, chunking and embedding fan out as Ray tasks, one writer.

The files are split into tasks of a few documents each. A task runs the same functions as a
plain ingest (``_read_all``, ``prepare_passages``, the settings' embedder) on any node and
returns the documents, their passages and their vectors. This process is the single writer: it
commits each task's documents in the same crash-safe batches as ``ingest_paths`` (``[ingest]
commit_every`` passages) as tasks finish, and the progress bar counts committed passages.

- A worker process killed mid-task: Ray runs the task again (``max_retries``).
- The cluster goes away: the ingest stops with one message; every batch already committed
  stays, and a re-run skips those documents (by content hash) and completes the rest.
- The index is the one a plain ingest builds: same documents, passages and fingerprint.

Every node must see the files at the same paths (a shared filesystem) and have lastword
installed with the same embedder (``pip install 'lastword[ray]'``).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from lastword.embed import make_embedder
from lastword.embed.for_index import check_matches
from lastword.errors import InputError, MissingExtraError, ProviderUnavailable
from lastword.ingest.readers import READERS
from lastword.ingest.run import (
    IngestReport,
    ProgressSink,
    _batches,
    _Pending,
    _read_all,
    find_files,
    finish_ingest,
    prepare_passages,
    relative_paths,
    write_batch,
)
from lastword.settings import EmbedSettings, IngestSettings, StoreSettings
from lastword.store.open import open_store

#: Tasks in flight per cluster CPU: enough to keep every core busy while the writer commits.
IN_FLIGHT_PER_CPU = 2


def prepare_task(
    files: list[tuple[str, str]],
    known: dict[str, str],
    ingest: IngestSettings,
    embed: EmbedSettings,
) -> dict[str, Any]:
    """One task, on a worker: read, chunk and embed ``files`` ((path, shown path) pairs)."""
    report = IngestReport()
    pending = _Pending()
    shown = {Path(path): as_shown for path, as_shown in files}
    documents = []
    for document in _read_all(list(shown), shown, known, report, pending, ingest):
        passages = prepare_passages(document, ingest, report)
        if passages:
            documents.append((document, passages))
    texts = [p.text for _, passages in documents for p in passages]
    embedder = make_embedder(embed)
    vectors = (
        embedder.embed_documents(texts)
        if texts
        else np.zeros((0, embedder.info.dim), dtype=np.float32)
    )
    return {
        "documents": documents,
        "vectors": vectors,
        "failed": report.failed,
        "warnings": report.warnings,
        "skipped": report.skipped,
        "pending": pending.sources,
    }


def _reachable(address: str, timeout_s: float = 5.0) -> None:
    """A HOST:PORT that accepts no connection is one clear error now (``ray.init`` would
    retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto", "local", a ray:// URL: Ray resolves those itself
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ProviderUnavailable(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one with "
            "'ray start --head' or give its address to --ray",
            "ray",
        ) from None


def _connect(address: str) -> Any:
    try:
        import ray
    except ImportError as exc:
        raise MissingExtraError("ray", "ray") from exc
    _reachable(address)
    try:
        ray.init(
            address=address, ignore_reinit_error=True, log_to_driver=False, logging_level="ERROR"
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        message = f"cannot reach the Ray cluster at {address}: {exc}"
        raise ProviderUnavailable(message, "ray") from None
    return ray


def ingest_paths_ray(
    paths: Sequence[Path],
    index_dir: Path,
    embed: EmbedSettings,
    settings: IngestSettings,
    *,
    address: str = "auto",
    files_per_task: int = 8,
    progress: ProgressSink | None = None,
    on_batch_committed: Callable[[int], None] | None = None,
    store_settings: StoreSettings | None = None,
) -> IngestReport:
    """``ingest_paths`` with the reading, chunking and embedding on the Ray cluster at
    ``address`` ("auto": the cluster this machine belongs to)."""
    started = time.perf_counter()
    progress = progress or ProgressSink()
    report = IngestReport()
    files, problems = find_files(paths, settings.follow_symlinks_outside)
    report.failed += problems
    if not files:
        if problems:
            return report
        raise InputError("no files to ingest: lastword reads " + ", ".join(sorted(READERS)))
    info = make_embedder(embed).info  # no model is loaded here: the workers embed
    ray = _connect(address)
    remote = ray.remote(max_retries=3, num_cpus=1)(prepare_task)

    store = open_store(store_settings or StoreSettings(), index_dir, write_as=info)
    try:
        check_matches(store.embedder, info, store.location)
        known = store.document_hashes()
        shown = relative_paths(paths, files)
        chunks = [
            [(str(f), shown[f]) for f in files[i : i + files_per_task]]
            for i in range(0, len(files), files_per_task)
        ]
        known_ref = ray.put(known)
        in_flight_max = max(1, int(ray.cluster_resources().get("CPU", 1)) * IN_FLIGHT_PER_CPU)
        pending = _Pending()
        added_at = datetime.now(UTC).isoformat(timespec="seconds")
        # The total is known only once documents are chunked: the bar counts documents' files
        # until then, and passages as they are committed.
        progress.start(0, len(files))
        waiting: list[Any] = []
        queue = list(chunks)
        fanned_out = time.perf_counter()
        try:
            while queue or waiting:
                while queue and len(waiting) < in_flight_max:
                    waiting.append(remote.remote(queue.pop(0), known_ref, settings, embed))
                done, waiting = ray.wait(waiting, num_returns=1)
                result = ray.get(done[0])
                report.failed += result["failed"]
                report.warnings += result.get("warnings", [])
                report.skipped += result["skipped"]
                pending.sources += result["pending"]
                offset = 0
                for batch in _batches(result["documents"], settings.commit_every):
                    count = sum(len(p) for _, p in batch)
                    vectors = result["vectors"][offset : offset + count]
                    offset += count
                    write_batch(store, batch, vectors, known, added_at, report)
                    report.passages_embedded += count
                    progress.advance(count)
                    if on_batch_committed is not None:
                        on_batch_committed(report.passages_embedded)
        except ray.exceptions.RayError as exc:
            raise ProviderUnavailable(
                f"the Ray cluster stopped answering ({type(exc).__name__}); "
                f"{report.passages_embedded} passages were committed and are kept: run the same "
                "ingest again to finish it",
                "ray",
            ) from None
        # The cluster's reading, chunking and embedding overlap: their wall time is the rate's.
        report.embed_seconds = time.perf_counter() - fanned_out
        finish_ingest(store, pending, files, report, sync=False)
        progress.finish()
    finally:
        store.close()
    report.seconds = time.perf_counter() - started
    return report
