"""`lastword serve` refuses a public bind without accounts; users and tokens commands."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from lastword.cli import app
from lastword.errors import ConfigError
from lastword.web.accounts import Accounts


@pytest.fixture
def cli_app(monkeypatch, tmp_path) -> typer.Typer:
    """The real application, from a folder without a settings file."""
    monkeypatch.chdir(tmp_path)
    return app


def test_serve_refuses_a_public_bind_without_accounts(cli_app, tmp_path):
    result = CliRunner().invoke(
        cli_app, ["serve", "--host", "0.0.0.0", "--state-dir", str(tmp_path), "--index", "x"]
    )
    assert isinstance(result.exception, ConfigError)
    assert "without any account" in str(result.exception)


def test_users_add_reads_the_password_from_stdin_and_tokens_print_once(cli_app, tmp_path):
    runner = CliRunner()
    state = ["--state-dir", str(tmp_path)]
    result = runner.invoke(
        cli_app, ["users", "add", "ada", "--admin", *state], input="s3cret-pass\n"
    )
    assert result.exit_code == 0, result.output
    accounts = Accounts(tmp_path)
    assert accounts.verify_password("ada", "s3cret-pass").role == "admin"
    assert accounts.verify_password("ada", "wrong") is None
    result = runner.invoke(cli_app, ["tokens", "create", "ada", "--label", "ci", *state])
    token = result.stdout.strip().splitlines()[0]
    assert token.startswith("lw_") and accounts.user_for_token(token).name == "ada"
    listing = runner.invoke(cli_app, ["tokens", "list", *state]).output
    assert "ci" in listing and token not in listing
    assert token.encode() not in (tmp_path / "accounts.sqlite").read_bytes()
    short = runner.invoke(cli_app, ["users", "add", "bob", *state], input="short\n")
    assert short.exit_code != 0
