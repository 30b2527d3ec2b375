"""Every error lastword raises, under one base.

    LastwordError
     ├── ConfigError            bad settings file, unknown key, bad value
     ├── InputError             a question or file the user gave cannot be used
     │    └── IngestError       one document could not be read (corrupt, encrypted, empty...)
     ├── CorpusIndexError       the index directory is missing, locked or damaged
     │    ├── IndexMismatchError  the index was built by another embedder
     │    └── IndexLockedError    another process is writing this index
     └── ProviderError          a model or API at the edge failed
          ├── ProviderTimeout
          ├── ProviderAuthError    missing or rejected key
          ├── ProviderRateLimited  429 / quota; ``retry_after`` when the API said
          ├── ProviderUnavailable  5xx, overloaded, connection refused
          ├── ProviderRefused      the provider declined the content (e.g. Claude's refusal)
          └── MissingExtraError    an optional SDK is not installed

SDK errors are wrapped where they happen (``raise ProviderTimeout(...) from exc``) so the core
never sees an SDK type. Errors become exit codes and messages only at the edges (CLI, HTTP, chat).
A message never contains a secret.
"""

from __future__ import annotations


class LastwordError(Exception):
    """Base of every lastword error; ``str(err)`` is the one clear message shown to users."""

    exit_code = 1


class ConfigError(LastwordError):
    exit_code = 2


class InputError(LastwordError):
    exit_code = 2


class IngestError(InputError):
    """One document could not be read. ``source`` names the file (and ``line`` for JSONL)."""

    def __init__(self, message: str, source: str, line: int | None = None) -> None:
        self.source = source
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")
        self.reason = message

    def __reduce__(self):  # type: ignore[no-untyped-def]
        """Pickled as its arguments: a Ray task returns its failures to the writer."""
        return (type(self), (self.reason, self.source, self.line))


class CorpusIndexError(LastwordError):
    exit_code = 3


class IndexMismatchError(CorpusIndexError):
    pass


class IndexLockedError(CorpusIndexError):
    pass


class ProviderError(LastwordError):
    exit_code = 4
    #: short machine-readable kind, used in result records and the HTTP error shape
    kind = "provider_error"

    def __init__(self, message: str, provider: str = "") -> None:
        self.provider = provider
        super().__init__(f"{provider}: {message}" if provider else message)


class ProviderTimeout(ProviderError):
    kind = "timeout"


class ProviderAuthError(ProviderError):
    kind = "auth"


class ProviderRateLimited(ProviderError):
    kind = "rate_limited"

    def __init__(self, message: str, provider: str = "", retry_after: float | None = None):
        self.retry_after = retry_after
        super().__init__(message, provider)


class ProviderUnavailable(ProviderError):
    kind = "unavailable"


class ProviderRefused(ProviderError):
    kind = "refused"


class MissingExtraError(ProviderError):
    kind = "missing_extra"

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"the optional package '{package}' is not installed; "
            f"install it with: pip install 'lastword[{extra}]'"
        )
