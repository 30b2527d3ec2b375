"""Web commands: ``lastword serve``, ``lastword users ...``, ``lastword tokens ...``.

Registered by ``lastword.cli``: ``app.command("serve")(serve)``,
``app.add_typer(users_app, name="users")``, ``app.add_typer(tokens_app, name="tokens")``.
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from lastword import statedir
from lastword.cli.app import console, err_console, index_dir, safe, state
from lastword.errors import ConfigError, InputError

users_app = typer.Typer(
    name="users",
    help="Accounts for the web app: readers ask and inspect; admins also change the corpus.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
tokens_app = typer.Typer(
    name="tokens",
    help="API tokens for scripts (sent as 'Authorization: Bearer TOKEN').",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

StateOption = Annotated[
    Path | None,
    typer.Option(
        "--state-dir",
        help="Folder of accounts, keys and uploads. Default: the [state] folder "
        "(lastword settings shows it).",
    ),
]


def _accounts(state_dir: Path | None):
    from lastword.web.accounts import Accounts

    return Accounts(state_dir or statedir.state_dir(state.settings))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _read_password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("password: ")
        if getpass.getpass("again: ") != first:
            raise InputError("the two passwords differ; nothing was stored")
        return first
    return sys.stdin.readline().rstrip("\r\n")


def _date(moment: float | None) -> str:
    if moment is None:
        return "never"
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M UTC")


@users_app.command("add")
def users_add(
    name: Annotated[str, typer.Argument(help="The user name.")],
    admin: Annotated[
        bool, typer.Option("--admin", help="May change corpus, keys, settings.")
    ] = False,
    state_dir: StateOption = None,
) -> None:
    """Create an account; the password is read without echo (or one line from stdin)."""
    user = _accounts(state_dir).add_user(name, _read_password(), "admin" if admin else "reader")
    console.print(f"added {user.name} ({user.role})")


@users_app.command("list")
def users_list(state_dir: StateOption = None) -> None:
    """List accounts and their roles."""
    for user, created in _accounts(state_dir).users():
        console.print(f"{user.name}\t{user.role}\tadded {_date(created)}")


@users_app.command("groups")
def users_groups(
    name: Annotated[str, typer.Argument(help="The user name.")],
    add: Annotated[list[str] | None, typer.Option("--add", help="Join this group.")] = None,
    remove: Annotated[list[str] | None, typer.Option("--remove", help="Leave this group.")] = None,
    state_dir: StateOption = None,
) -> None:
    """A user's groups (a collection's readers may name a group: lastword collection readers)."""
    accounts = _accounts(state_dir)
    accounts.set_groups(name, tuple(add or ()), tuple(remove or ()))
    console.print(f"{name}: groups {', '.join(sorted(accounts.groups(name))) or 'none'}")


@users_app.command("remove")
def users_remove(name: str, state_dir: StateOption = None) -> None:
    """Remove an account, its sessions and its API tokens."""
    if not _accounts(state_dir).remove_user(name):
        raise InputError(f"no user named '{name}'")
    console.print(f"removed {name}")


@tokens_app.command("create")
def tokens_create(
    name: Annotated[str, typer.Argument(help="The user the token acts as (and whose role).")],
    label: Annotated[str, typer.Option(help="What the token is for.")] = "",
    state_dir: StateOption = None,
) -> None:
    """Print a new API token once. Only its hash is stored: copy it now."""
    token = _accounts(state_dir).create_token(name, label)
    sys.stdout.write(token + "\n")
    err_console.print("this token is shown once; lastword keeps only its hash")


@tokens_app.command("list")
def tokens_list(state_dir: StateOption = None) -> None:
    """List tokens (never the token itself)."""
    for token in _accounts(state_dir).tokens():
        console.print(
            f"{token.id}\t{token.user}\t{token.label or '-'}\tcreated {_date(token.created_at)}"
            f"\tlast used {_date(token.last_used)}"
        )


@tokens_app.command("revoke")
def tokens_revoke(token_id: int, state_dir: StateOption = None) -> None:
    """Revoke a token by its id (from `tokens list`)."""
    if not _accounts(state_dir).revoke_token(token_id):
        raise InputError(f"no token with id {token_id}")
    console.print(f"revoked token {token_id}")


def serve(
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="Interface to bind. Default: [web] host (127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="Port. Default: [web] port (8000).")
    ] = None,
    generator: Annotated[
        str | None, typer.Option("--generator", "-g", help="extractive, anthropic, openai...")
    ] = None,
    state_dir: StateOption = None,
    max_upload_mb: Annotated[
        float | None,
        typer.Option(min=0.1, help="Largest upload accepted, in MB. Default: [web] max_upload_mb."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes (each loads the model and opens the store; "
            'meant for [store] backend = "postgres").',
        ),
    ] = 1,
) -> None:
    """Serve the web app (Ask, Inspector, Corpus, Evaluation, Admin) and the JSON API."""
    import uvicorn

    from lastword.web import WebConfig, create_app

    # Only a proxy named in [web] forwarded_allow_ips may say who the client is; read and idle
    # timeouts and the connection cap: the same options for one process and for N workers.
    from lastword.web.serving import uvicorn_options

    settings = state.settings
    if state_dir is not None:  # one folder for everything the server keeps, keys included
        settings = settings.model_copy(
            update={"state": settings.state.model_copy(update={"dir": state_dir})}
        )
    web = settings.web
    host = host or web.host
    port = port or web.port
    max_upload_mb = max_upload_mb or web.max_upload_mb
    from lastword.settings import DEFAULT_CONFIG_NAME, resolve_config_path

    folder = statedir.state_dir(settings)
    loopback = is_loopback(host)
    if not loopback and not _accounts(folder).has_users():
        raise ConfigError(
            f"refusing to serve on {host} without any account: anyone who can reach it would "
            "be an administrator. Create one first: lastword users add NAME --admin"
        )
    config = WebConfig(
        state_dir=folder,
        settings_path=resolve_config_path(state.config) or Path(DEFAULT_CONFIG_NAME),
        max_upload_bytes=int(max_upload_mb * 1024 * 1024),
        max_request_bytes=int(web.max_request_kb * 1024),
        session_lifetime_s=web.session_hours * 3600,
        login_attempts=web.login_attempts,
        login_attempts_per_account=web.login_attempts_per_account,
        login_attempts_per_address=web.login_attempts_per_address,
        login_max_delay_s=web.login_max_delay_s,
        login_window_s=web.login_window_s,
        open_when_no_accounts=loopback,
        api_docs=web.api_docs,
        generator=generator,
    )
    target = index_dir(index)
    from lastword.store.open import describe_location

    where = describe_location(settings, target)
    if workers > 1:
        from lastword.web.workers import SPEC_VARIABLE, worker_spec

        os.environ[SPEC_VARIABLE] = worker_spec(resolve_config_path(state.config), target, config)
        err_console.print(
            f"serving the index at {safe(where)} from {workers} processes on "
            f"http://{host}:{port}/  (Ctrl-C stops)"
        )
        uvicorn.run(
            "lastword.web.workers:worker_app",
            factory=True,
            workers=workers,
            # A worker answers uvicorn's health ping from a thread; one busy embedding on a
            # loaded machine can hold it past the 5 s default, and uvicorn would kill it
            # mid-request. A hung worker is still replaced, after two minutes.
            timeout_worker_healthcheck=120,
            host=host,
            port=port,
            log_level="info",
            **uvicorn_options(web),
        )
        return
    err_console.print(f"loading the index at {safe(where)} and its model…")
    app = create_app(settings, target, config)
    err_console.print(f"serving on http://{host}:{port}/  (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="info", **uvicorn_options(web))
