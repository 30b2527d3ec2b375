"""The ``lastword`` command line: parse input, call the library, format output.

One module per command group; each registers its commands on ``app``. Errors become
messages and exit codes here (``cli.app.main``) and nowhere else.
"""

from __future__ import annotations

from lastword.cli import answer as _answer  # noqa: F401  (registers ask, demo)
from lastword.cli import corpus as _corpus  # noqa: F401  (registers ingest, inspect, sources)
from lastword.cli import matrix as _matrix  # noqa: F401  (registers the matrix group)
from lastword.cli import mcp as _mcp  # noqa: F401  (registers mcp)
from lastword.cli import settings as _settings  # noqa: F401  (registers settings)
from lastword.cli.app import app, main
from lastword.cli.chat import chat as _chat
from lastword.cli.chat import keys_app as _keys_app
from lastword.cli.eval import eval_app as _eval_app
from lastword.cli.index import index_app as _index_app
from lastword.cli.library import collection_app as _collection_app
from lastword.cli.settings import state_app as _state_app
from lastword.cli.store import store_app as _store_app
from lastword.cli.web import serve as _serve
from lastword.cli.web import tokens_app as _tokens_app
from lastword.cli.web import users_app as _users_app

app.command("chat")(_chat)
app.add_typer(_keys_app, name="keys")
app.add_typer(_eval_app, name="eval")
app.add_typer(_index_app, name="index")
app.add_typer(_collection_app, name="collection")
app.add_typer(_state_app, name="state")
app.command("serve")(_serve)
app.add_typer(_store_app, name="store")
app.add_typer(_users_app, name="users")
app.add_typer(_tokens_app, name="tokens")

__all__ = ["app", "main"]
