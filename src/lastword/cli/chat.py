"""Chat commands: ``lastword chat`` (a terminal front end) and ``lastword keys``.

Not registered here: ``cli/__init__.py`` adds ``chat`` as a command and ``keys_app`` as the
``keys`` group.
"""

from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lastword.cli.app import console, err_console, index_dir, state
from lastword.errors import InputError

if TYPE_CHECKING:
    from lastword.websearch.keys import KeyStore

keys_app = typer.Typer(
    help="Search API keys, stored encrypted. A stored key is never shown again.",
    no_args_is_help=True,
)


def chat(
    member: Annotated[str, typer.Option("--member", help="Member id of whoever types.")],
    chat_id: Annotated[str, typer.Option("--chat", help="Chat id the messages belong to.")],
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="Index directory. Default: \\[index] path in settings."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Write one reply record (JSON) per line.")
    ] = False,
    generator: Annotated[
        str | None,
        typer.Option("--generator", "-g", help="Who writes answers. Default: settings."),
    ] = None,
) -> None:
    """Talk to the chat assistant in a terminal; with stdin not a terminal, one message a line.

    It answers from the corpus and searches the web only when a message contains a trigger
    phrase (\\[chat] trigger_phrases), e.g. "search the web for ...".
    """
    if not member.strip() or not chat_id.strip():
        raise InputError("--member and --chat must not be empty")
    settings = state.settings
    interactive = sys.stdin.isatty()
    from lastword.chat.assistant import Assistant
    from lastword.chat.reply import Message
    from lastword.pipeline import Pipeline

    with Pipeline.open(settings, index_dir(index), generator=generator) as pipeline:
        assistant = Assistant(settings, pipeline)
        name = assistant.persona.name
        if interactive:
            tone = assistant.persona.tone
            err_console.print(f"Talking to {name} ({tone}). An empty line or Ctrl-D ends.")
        from lastword.cli.render import printable, safe

        while True:
            if interactive:
                try:
                    line = console.input("[bold]you>[/] ")
                except EOFError:
                    break
                if not line.strip():
                    break
            else:
                line = sys.stdin.readline()
                if not line:
                    break
                if not line.strip():
                    continue
            # one session is one conversation: a follow-up leans on the lines before it
            reply = assistant.handle(Message(member, chat_id, line.rstrip("\n"), thread=chat_id))
            if reply is None:
                continue
            if as_json:
                sys.stdout.write(json.dumps(reply.record(), ensure_ascii=False) + "\n")
                sys.stdout.flush()
            else:
                # The reply holds untrusted text (papers, search previews): no escapes reach
                # the terminal and no markup in it is interpreted.
                shown = safe(reply.render()) if interactive else printable(reply.render())
                prefix = f"[bold]{safe(name)}>[/] " if interactive else ""
                console.print(prefix + shown, markup=interactive, soft_wrap=True)
                if not interactive:
                    console.print()


def _keystore() -> KeyStore:
    from lastword.websearch.keys import KeyStore

    return KeyStore.for_settings(state.settings)


@keys_app.command("set")
def keys_set(
    provider: Annotated[str, typer.Argument(help="brave or serper.")],
) -> None:
    """Store a key, read without echo (or from stdin when it is not a terminal)."""
    store = _keystore()
    from lastword.websearch.keys import PROVIDERS

    if provider not in PROVIDERS:
        raise InputError(f"unknown search provider '{provider}'; choose one of: brave, serper")
    if sys.stdin.isatty():
        key = getpass.getpass(f"{provider} key (not shown): ")
    else:
        key = sys.stdin.readline()
    when = store.set(provider, key)
    err_console.print(
        f"{provider} key stored (encrypted) at {when:%Y-%m-%d %H:%M} UTC in {store.path}; "
        f"master key: {store.master_key_source}."
    )


@keys_app.command("status")
def keys_status() -> None:
    """Which keys are set and when, and where the master key lives. Never the keys."""
    store = _keystore()
    for provider, when in store.status().items():
        shown = f"set {when:%Y-%m-%d %H:%M} UTC" if when else "not set"
        console.print(f"{provider}: {shown}")
    console.print(f"keystore: {store.path}", soft_wrap=True)
    console.print(f"master key: {store.master_key_source}", soft_wrap=True)


@keys_app.command("delete")
def keys_delete(
    provider: Annotated[str, typer.Argument(help="brave or serper.")],
) -> None:
    """Forget a stored key."""
    removed = _keystore().delete(provider)
    console.print(f"{provider} key {'deleted' if removed else 'was not set'}.")
