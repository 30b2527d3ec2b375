"""``lastword serve --workers N``: N server processes, each with its own app and its own store.

uvicorn starts the worker processes and imports ``worker_app`` in each; what the command line
decided (settings file, index, web options) reaches them as JSON in one environment variable.
Each process loads the model and opens the store itself (a database connection, or a matrix
mapped into its memory), so nothing is shared between processes but the store and the state
directory. With ``[store] backend = "postgres"`` every worker sees an ingest at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from fastapi import FastAPI

from lastword.settings import load_settings
from lastword.web.app import create_app
from lastword.web.config import WebConfig
from lastword.web.serving import ConnectionLimits, configure

SPEC_VARIABLE = "_LASTWORD_SERVE_SPEC"


def worker_spec(config_path: Path | None, index_dir: Path, config: WebConfig) -> str:
    """What ``worker_app`` needs, as the JSON put in ``SPEC_VARIABLE``."""
    fields = {
        key: (str(value) if isinstance(value, Path) else value)
        for key, value in dataclasses.asdict(config).items()
        if key != "evalset_dirs"
    }
    fields["evalset_dirs"] = [str(p) for p in config.evalset_dirs]
    return json.dumps(
        {
            "config": None if config_path is None else str(config_path),
            "index": str(index_dir),
            "web": fields,
        }
    )


def worker_app() -> FastAPI:
    """The app of one worker process (uvicorn's factory)."""
    spec = json.loads(os.environ[SPEC_VARIABLE])
    web = spec["web"]
    paths = ("state_dir", "settings_path", "corpus_dir", "evals_dir")
    for key in paths:
        if web.get(key) is not None:
            web[key] = Path(web[key])
    web["evalset_dirs"] = tuple(Path(p) for p in web["evalset_dirs"])
    settings = load_settings(None if spec["config"] is None else Path(spec["config"]))
    configure(ConnectionLimits(settings.web.read_timeout_s, settings.web.max_connections))
    return create_app(settings, Path(spec["index"]), WebConfig(**web))
