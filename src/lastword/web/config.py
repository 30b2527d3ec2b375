"""What the web server needs beyond ``Settings``: folders, limits and the login policy.

``lastword serve`` fills it from the ``[web]`` settings section and its own options; tests pass
one to ``create_app`` directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class WebConfig:
    state_dir: Path = Path(".lastword")
    settings_path: Path = Path("lastword.toml")
    #: uploaded files are stored here before they are ingested (default: STATE/corpus)
    corpus_dir: Path | None = None
    #: eval results and their reports (default: STATE/evals)
    evals_dir: Path | None = None
    #: folders searched for eval sets (.yaml/.jsonl), besides the shipped ones
    evalset_dirs: tuple[Path, ...] = field(default_factory=tuple)
    #: the two upload routes; every other request gets ``max_request_bytes``
    max_upload_bytes: int = 50 * 1024 * 1024
    max_request_bytes: int = 1024 * 1024
    session_lifetime_s: float = 12 * 3600
    #: failed logins per (name, address), per name and per address before delays begin
    login_attempts: int = 5
    login_attempts_per_account: int = 20
    login_attempts_per_address: int = 50
    login_max_delay_s: float = 300.0
    login_window_s: float = 900.0
    #: with no account at all, serve the loopback interface as one local administrator
    #: (``lastword serve`` sets it only when it binds a loopback address)
    open_when_no_accounts: bool = False
    #: the Swagger UI at /api/docs (scripts from a CDN); off by default
    api_docs: bool = False
    #: None: secure cookies exactly when the request came over https
    secure_cookies: bool | None = None
    generator: str | None = None

    @property
    def uploads(self) -> Path:
        return self.corpus_dir or self.state_dir / "corpus"

    @property
    def evals(self) -> Path:
        return self.evals_dir or self.state_dir / "evals"
