"""The ``lastword`` command line: parse input, call the library, format output.

One module per command group; each registers its commands on ``app``. Errors become
messages and exit codes here (``cli.app.main``) and nowhere else.
"""

from __future__ import annotations

from lastword.cli import answer as _answer  # noqa: F401  (registers ask, demo)
from lastword.cli import corpus as _corpus  # noqa: F401  (registers ingest, inspect, sources)
from lastword.cli import settings as _settings  # noqa: F401  (registers settings)
from lastword.cli.app import app, main
from lastword.cli.chat import chat as _chat
from lastword.cli.chat import keys_app as _keys_app

app.command("chat")(_chat)
app.add_typer(_keys_app, name="keys")

__all__ = ["app", "main"]
