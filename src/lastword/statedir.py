"""The one folder of state: accounts, API keys, the master key, the search log, uploads.

It used to be ``./.lastword`` of whatever folder a command ran in, so ``lastword users add`` in
one folder and ``lastword serve`` in another saw different accounts. Now ``[state]`` decides it
once: the user's data folder (``platformdirs``), a ``.lastword`` folder beside the configured
index, or an explicit ``dir``. ``lastword settings`` prints it; an old ``./.lastword`` is pointed
at, and ``lastword state migrate`` moves its contents.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: importing statedir must not load the settings models
    from lastword.settings import Settings

APP_NAME = "lastword"
#: where state lived before: relative to the working directory
LEGACY_DIR = Path(".lastword")
#: what a state folder holds (files and folders), for migration and the pointer at ./.lastword
ENTRIES = (
    "accounts.sqlite",
    "keys.json",
    "master.key",
    "searches.sqlite",
    "corpus",
    "evals",
    "evalsets",
)


def state_dir(settings: Settings) -> Path:
    """The state folder the settings choose, absolute (not created here)."""
    chosen = settings.state
    if chosen.dir is not None:
        return chosen.dir.expanduser().resolve()
    if chosen.location == "index":
        return settings.index.path.expanduser().resolve().parent / LEGACY_DIR.name
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False)).resolve()


def legacy_entries(settings: Settings, cwd: Path | None = None) -> list[str]:
    """What an old ``./.lastword`` (not the state folder) still holds; empty when nothing."""
    old = (cwd or Path.cwd()) / LEGACY_DIR
    if not old.is_dir() or old.resolve() == state_dir(settings):
        return []
    return [name for name in ENTRIES if (old / name).exists()]


@dataclass
class Migration:
    source: Path
    target: Path
    moved: list[str] = field(default_factory=list)
    #: present in both: left where they are, for the user to decide
    clashes: list[str] = field(default_factory=list)


def migrate(source: Path, target: Path) -> Migration:
    """Move every state entry of ``source`` that ``target`` does not have yet."""
    outcome = Migration(source.resolve(), target)
    target.mkdir(parents=True, exist_ok=True)
    target.chmod(0o700)
    for name in ENTRIES:
        here, there = source / name, target / name
        if not here.exists():
            continue
        if there.exists():
            outcome.clashes.append(name)
            continue
        shutil.move(here, there)
        outcome.moved.append(name)
    return outcome
