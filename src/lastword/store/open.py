"""One place that turns the settings into a ``Store``: the local directory or PostgreSQL.

    [store] backend = "local"      the index is the directory [index] path (or --index DIR)
    [store] backend = "postgres"   the index is schema [store] schema_name of database [store] dsn

Every caller (ingest, pipeline, web, eval, the CLI) goes through ``open_store`` and holds the
``Store`` protocol; none of them knows which backend it has.
"""

from __future__ import annotations

from pathlib import Path

from lastword.embed.protocol import EmbedderInfo
from lastword.errors import ConfigError
from lastword.settings import Settings, StoreSettings
from lastword.store.protocol import Store


def _settings(settings: Settings | StoreSettings) -> StoreSettings:
    return settings.store if isinstance(settings, Settings) else settings


def _dsn(store: StoreSettings) -> str:
    if not store.dsn:
        raise ConfigError(
            "[store] backend is 'postgres' but [store] dsn is not set: "
            "set it (or LASTWORD_STORE__DSN) to postgresql://user@host/database"
        )
    return store.dsn


def open_store(
    settings: Settings | StoreSettings,
    index_dir: Path,
    *,
    write_as: EmbedderInfo | None = None,
) -> Store:
    """Open the configured index: for reading, or (``write_as``) for writing by that embedder.

    Reading an index that does not exist is a ``CorpusIndexError``; opening one for writing
    creates it. ``index_dir`` is the local directory (ignored by the postgres backend).
    """
    store = _settings(settings)
    if store.backend == "postgres":
        from lastword.store.postgres import PostgresStore

        if write_as is not None:
            return PostgresStore.open_for_write(_dsn(store), write_as, store)
        return PostgresStore.open(_dsn(store), store)
    from lastword.store.local import LocalStore

    if write_as is not None:
        return LocalStore.open_for_write(Path(index_dir), write_as, store)
    return LocalStore.open(Path(index_dir), store)


def store_exists(settings: Settings | StoreSettings, index_dir: Path) -> bool:
    """Whether the configured index has been created (by a first ingest)."""
    store = _settings(settings)
    if store.backend == "postgres":
        from lastword.store.postgres import PostgresStore

        return PostgresStore.exists(_dsn(store), store)
    from lastword.store.local import LocalStore

    return LocalStore.exists(Path(index_dir))


def describe_location(settings: Settings | StoreSettings, index_dir: Path) -> str:
    """Where the configured index is, for messages (never a password)."""
    store = _settings(settings)
    if store.backend == "postgres":
        from lastword.store.postgres import safe_dsn

        return f"{safe_dsn(_dsn(store))} (schema {store.schema_name})"
    return str(index_dir)
