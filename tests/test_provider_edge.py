"""The provider edge (issue 16): one key reader, one redactor, one status mapping for every
generator, embedder and search provider."""

from __future__ import annotations

import pytest

from lastword import provider_edge
from lastword.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderUnavailable,
)
from lastword.provider_edge import PLACEHOLDER_KEY, api_key, error_for_status, redact

KEY = "sk-proj-Tg83Ld02Mx5Ry7KaQw91"


@pytest.mark.parametrize(
    "echo",
    [
        KEY,  # the key itself
        f"{KEY[:7]}**********{KEY[-4:]}",  # OpenAI's masked echo
        f"key {KEY[:8]}... rejected",  # its head
        f"ends with {KEY[-8:]}",  # its tail
        "another sk-live-abcdef123456 in the text",  # anything shaped like a key
    ],
)
def test_redact_removes_every_form_a_key_is_echoed_in(echo):
    said = redact(f"Incorrect API key provided: {echo}.", KEY)
    assert KEY[:8] not in said and KEY[-4:] not in said and "sk-" not in said
    assert provider_edge.REDACTED in said


def test_keys_come_from_the_environment_one_way(monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "  from-env  ")
    assert api_key("SOME_API_KEY", "p") == "from-env"
    assert api_key("SOME_API_KEY", "p", given="given") == "given"
    monkeypatch.delenv("SOME_API_KEY")
    assert api_key("SOME_API_KEY", "p", keyless_url="http://127.0.0.1:11434/v1") == PLACEHOLDER_KEY
    with pytest.raises(ProviderAuthError, match="set the SOME_API_KEY environment variable"):
        api_key("SOME_API_KEY", "p")


def test_one_status_mapping():
    kinds = {
        401: ProviderAuthError,
        403: ProviderAuthError,
        429: ProviderRateLimited,
        500: ProviderUnavailable,
        529: ProviderUnavailable,
        400: ProviderError,
    }
    for status, kind in kinds.items():
        error = error_for_status(status, "detail", provider="p", key_variable="K", retry_after=2)
        assert type(error) is kind and f"HTTP {status}" in str(error)
    assert error_for_status(429, "", provider="p", key_variable="K", retry_after=2).retry_after == 2
    local = error_for_status(401, "", provider="p", key_variable="K", keyless_url="http://h/v1")
    assert "http://h/v1 wants a key: set K" in str(local)


def test_no_provider_module_keeps_its_own_copy():
    """The four redactors, three SDK mappings and four key readers are gone from the modules."""
    from pathlib import Path

    import lastword

    root = Path(lastword.__file__).parent
    for module in (
        "embed/openai.py",
        "embed/voyage.py",
        "generate/openai.py",
        "generate/anthropic.py",
        "websearch/brave.py",
        "websearch/serper.py",
    ):
        text = (root / module).read_text()
        assert "os.environ" not in text and ".replace(self._key" not in text, module
        assert "def _redact" not in text and "def scrub" not in text, module
