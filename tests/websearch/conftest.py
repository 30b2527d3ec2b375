"""The websearch tests borrow the CLI runner for ``lastword keys``."""

from tests.cli.conftest import cli  # noqa: F401
