"""``lastword matrix``: log the bot in and out, show its state, run it (docs/matrix.md).

The access token and device id are stored encrypted (``chat.platforms.matrix_state``) and
never printed. matrix-nio is an optional extra: ``pip install 'lastword[matrix]'``.
"""

from __future__ import annotations

import getpass
import logging
import re
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from lastword.cli.app import app, console, err_console, index_dir, safe, state
from lastword.errors import ConfigError, InputError

matrix_app = typer.Typer(
    help="The assistant as a Matrix bot: login, logout, status, run (docs/matrix.md).",
    no_args_is_help=True,
)
_USER_ID = re.compile(r"^@[a-z0-9._=/+-]+:[A-Za-z0-9.-]+(?::\d+)?$")


def _state_dir() -> Path:
    from lastword.statedir import state_dir

    return state_dir(state.settings)


async def _login(homeserver: str, user: str, password: str, device_name: str):
    from lastword.chat.platforms.matrix import _nio

    nio = _nio()
    client = nio.AsyncClient(homeserver, user, config=nio.AsyncClientConfig(max_timeouts=0))
    try:
        response = await client.login(password, device_name=device_name)
    except Exception as exc:
        raise ConfigError(f"cannot reach {homeserver} ({type(exc).__name__})") from None
    finally:
        await client.close()
    if isinstance(response, nio.LoginError):
        raise InputError(f"the homeserver refused the login: {response.message}")
    return response


def _refuse_a_second_master_key() -> None:
    """The token is encrypted with the master key the search keys use: when keys are stored
    that the master key at hand cannot open (LASTWORD_MASTER_KEY unset, the key elsewhere),
    refuse before logging in, as ``keys set`` does, instead of making a second master key
    that ``matrix status`` and the search keys would not share."""
    from lastword.websearch.keys import KeyStore

    keys = KeyStore(_state_dir(), state.settings.state.master_key)
    keys._check_same_master(keys._entries())  # raises ConfigError naming where it looked


@matrix_app.command("login")
def login(
    homeserver: Annotated[
        str, typer.Option("--homeserver", help="Homeserver URL, e.g. https://matrix.lab.org.")
    ],
    user: Annotated[str, typer.Option("--user", help="The bot's user id, e.g. @lastword:lab.org.")],
    device_name: Annotated[
        str, typer.Option("--device-name", help="Name of the bot's device (session).")
    ] = "lastword bot",
) -> None:
    """Log the bot in: the password is read without echo (from stdin when it is not a terminal);
    the access token and device id are stored encrypted, never shown."""
    if not re.match(r"^https?://[^\s/]+", homeserver):
        raise InputError("--homeserver must be an http(s) URL, e.g. https://matrix.lab.org")
    if not _USER_ID.match(user):
        raise InputError("--user must be a Matrix user id like @lastword:lab.org")
    _refuse_a_second_master_key()
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {user} (not shown): ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    if not password:
        raise InputError("the password is empty; nothing was stored")
    import asyncio

    from lastword.chat.platforms.matrix_state import CredentialStore

    response = asyncio.run(_login(homeserver.rstrip("/"), user, password, device_name))
    when = CredentialStore(_state_dir(), state.settings.state.master_key).save(
        homeserver.rstrip("/"), response.user_id, response.device_id, response.access_token
    )
    err_console.print(
        f"logged in as {safe(response.user_id)} on {safe(homeserver)}; "
        f"token stored (encrypted) at {when:%Y-%m-%d %H:%M} UTC."
    )


async def _logout(creds) -> str:
    from lastword.chat.platforms.matrix import _nio, make_client

    nio = _nio()
    client = make_client(creds, state.settings.matrix)
    try:
        response = await client.logout()
    except Exception as exc:
        return f"the homeserver could not be reached ({type(exc).__name__}); token not revoked"
    finally:
        await client.close()
    if isinstance(response, nio.LogoutError):
        return f"the homeserver said: {response.message}"
    return "the homeserver revoked the token"


@matrix_app.command("logout")
def logout() -> None:
    """Revoke the bot's access token on the homeserver and forget the stored credentials."""
    from lastword.chat.platforms.matrix_state import CredentialStore

    store = CredentialStore(_state_dir(), state.settings.state.master_key)
    creds = store.load()
    if creds is None:
        console.print("not logged in.")
        return
    import asyncio

    said = asyncio.run(_logout(creds))
    store.delete()
    console.print(f"logged out {safe(creds.user_id)} ({safe(said)}); stored credentials deleted.")


async def _whoami(creds) -> str:
    import asyncio

    from lastword.chat.platforms.matrix import _nio, make_client

    nio = _nio()
    client = make_client(creds, state.settings.matrix)
    try:
        response = await asyncio.wait_for(client.whoami(), timeout=10)
    except Exception as exc:
        return f"homeserver unreachable ({type(exc).__name__})"
    finally:
        await client.close()
    if isinstance(response, nio.WhoamiError):
        return f"token rejected ({response.status_code}); log in again"
    return "token accepted by the homeserver"


@matrix_app.command("status")
def status() -> None:
    """Who the bot is logged in as, whether the homeserver accepts it, what it has handled.
    Never the token."""
    from lastword.chat.platforms.matrix_state import STATE_FILE, BotState, CredentialStore

    creds = CredentialStore(_state_dir(), state.settings.state.master_key).load()
    if creds is None:
        console.print("not logged in (lastword matrix login --homeserver URL --user ID)")
        return
    console.print(f"homeserver: {safe(creds.homeserver)}")
    console.print(f"user: {safe(creds.user_id)}")
    console.print(f"logged in: {creds.logged_in_at:%Y-%m-%d %H:%M} UTC")
    import asyncio

    console.print(f"check: {safe(asyncio.run(_whoami(creds)))}")
    if (_state_dir() / STATE_FILE).is_file():
        bot_state = BotState(_state_dir())
        try:
            synced = bot_state.next_batch(creds.user_id) is not None
            counts = bot_state.counts()
        finally:
            bot_state.close()
        console.print(f"sync position stored: {'yes' if synced else 'no'}")
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        console.print(f"messages handled: {shown}")


@matrix_app.command("run")
def run(
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", "-g", help="Who writes answers. Default: settings."),
    ] = None,
) -> None:
    """Run the bot until stopped (Ctrl-C or SIGTERM): join allowed rooms, answer members."""
    import asyncio

    from lastword.chat.assistant import Assistant
    from lastword.chat.platforms.matrix import MatrixBot, _nio
    from lastword.chat.platforms.matrix_state import BotState, CredentialStore
    from lastword.pipeline import Pipeline

    _nio()  # a missing extra is one clear error before the index loads
    settings = state.settings
    creds = CredentialStore(_state_dir(), settings.state.master_key).require()
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    for noisy in ("nio", "peewee", "aiohttp", "httpx", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    with Pipeline.open(settings, index_dir(index), generator=generator) as pipeline:
        pipeline.inspect("warm up", k=1)  # load the model before the first member waits on it
        bot_state = BotState(_state_dir())
        try:
            bot = MatrixBot(Assistant(settings, pipeline), settings.matrix, creds, bot_state)
            asyncio.run(_until_signal(bot.run()))
        finally:
            bot_state.close()
    err_console.print("stopped.")


async def _until_signal(work) -> None:
    import asyncio

    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        logging.getLogger("lastword.matrix").info("stopping on a signal")


app.add_typer(matrix_app, name="matrix")
