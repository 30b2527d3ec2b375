"""Background jobs (ingest, eval runs) with progress the pages and the API can poll.

Jobs run one at a time on one worker thread: the index has one writer, and an eval run on a
two-core machine should not compete with an ingest for the CPU. An administrator can cancel a
queued job (it never starts) or a running one that watches ``Job.cancel`` (an ingest stops
before its next file, page or batch; what it committed stays).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from lastword.errors import IngestCancelled, LastwordError

log = logging.getLogger("lastword.web")

JobState = Literal["queued", "running", "done", "failed", "cancelled"]
FINISHED = ("done", "failed", "cancelled")


@dataclass
class Job:
    id: str
    kind: str
    label: str
    owner: str
    state: JobState = "queued"
    done: int = 0
    total: int = 0
    unit: str = ""
    message: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    created_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    #: set to ask the job to stop; work that can stop watches it
    cancel: threading.Event = field(default_factory=threading.Event)
    cancelled_by: str | None = None

    def advance(self, done: int, total: int | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "message": self.message,
            "result": self.result,
            "error": self.error,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "cancelled_by": self.cancelled_by,
        }


class JobBoard:
    def __init__(self, keep: int = 50) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lastword-job")
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._keep = keep

    def submit(self, kind: str, label: str, owner: str, work: Callable[[Job], None]) -> Job:
        with self._lock:
            job = Job(id=f"{kind}-{next(self._ids)}", kind=kind, label=label, owner=owner)
            self._jobs[job.id] = job
            for old in list(self._jobs)[: max(0, len(self._jobs) - self._keep)]:
                del self._jobs[old]
        self._executor.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[Job], None]) -> None:
        if job.cancel.is_set():  # cancelled while queued: never started
            job.finished_at = time.time()
            return
        job.state = "running"
        try:
            work(job)
            job.state = "done"
        except IngestCancelled as exc:
            job.error = f"cancelled by {job.cancelled_by}: {exc}"
            job.state = "cancelled"
        except LastwordError as exc:
            job.error = str(exc)
            job.state = "failed"
        except Exception as exc:  # a job must never die silently
            log.exception("job %s failed", job.id)
            job.error = f"internal error: {type(exc).__name__}"
            job.state = "failed"
        finally:
            job.finished_at = time.time()

    def cancel(self, job_id: str, by: str) -> Job | None:
        """Ask a job to stop: a queued one is cancelled at once, a running one stops at its
        next check. Returns the job (None: no such job); a finished one is left as it is."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.state in FINISHED:
                return job
            job.cancelled_by = by
            job.cancel.set()
            if job.state == "queued":
                job.state = "cancelled"
                job.error = f"cancelled by {by} before it started"
            else:
                job.message = f"cancelling (asked by {by})…"
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def recent(self, kind: str | None = None) -> list[Job]:
        jobs = [j for j in self._jobs.values() if kind is None or j.kind == kind]
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
