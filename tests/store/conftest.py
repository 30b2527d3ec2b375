from __future__ import annotations

import pytest

from tests.postgres_server import running_postgres


@pytest.fixture(scope="session")
def postgres_dsn():
    with running_postgres() as dsn:
        yield dsn
