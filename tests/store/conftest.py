"""The store tests borrow the CLI runner for the commands that look after an index."""

from tests.cli.conftest import cli  # noqa: F401
