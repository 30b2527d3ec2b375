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
    max_upload_bytes: int = 50 * 1024 * 1024
    session_lifetime_s: float = 12 * 3600
    login_attempts: int = 5
    login_window_s: float = 300.0
    #: with no account at all, serve the loopback interface as one local administrator
    open_when_no_accounts: bool = False
    #: None: secure cookies exactly when the request came over https
    secure_cookies: bool | None = None
    generator: str | None = None

    @property
    def uploads(self) -> Path:
        return self.corpus_dir or self.state_dir / "corpus"

    @property
    def evals(self) -> Path:
        return self.evals_dir or self.state_dir / "evals"
