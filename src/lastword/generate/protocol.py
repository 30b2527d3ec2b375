"""The generator seam.

A generator raises a ``lastword.errors.ProviderError`` subclass when its provider fails
(``ProviderTimeout``, ``ProviderRateLimited``, ``ProviderAuthError``, ``ProviderUnavailable``)
and ``ProviderRefused`` when the provider declines the content (Claude's
``stop_reason == "refusal"``). The pipeline maps those to ``failed`` and ``blocked``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from lastword.result import Band, RetrievedPassage, Usage

if TYPE_CHECKING:
    from lastword.read.reader import Reading

SourceKind = Literal["corpus", "web"]


@dataclass(frozen=True)
class GenerationRequest:
    question: str
    passages: tuple[RetrievedPassage, ...]
    #: "corpus": passages from the lab's index; "web": search previews (title, snippet, URL),
    #: untrusted data whose use the answer must declare.
    source_kind: SourceKind = "corpus"
    #: the retrieval gate's band (corpus answers; None for web passages): a generator may ask
    #: more of its answer in the borderline band than in the strong one
    band: Band | None = None
    #: the reader's reading of these passages, when the pipeline has made it (the gate reads
    #: it first); None: a generator that wants one reads the passages itself
    reading: Reading | None = None


@dataclass(frozen=True)
class Draft:
    """What the generator wrote, untouched. Verification happens elsewhere."""

    text: str
    usage: Usage | None = None
    #: passage numbers the model declared it used (web answers); None when not declared
    declared: tuple[int, ...] | None = None


@runtime_checkable
class Generator(Protocol):
    @property
    def name(self) -> str: ...

    def generate(self, request: GenerationRequest) -> Draft: ...
