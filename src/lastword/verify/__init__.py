"""Step 6: the application checks every answer; the model is never trusted.

``verify_draft`` splits a generator's draft into sentences and keeps only those whose every
citation names a retrieved passage (not a number copied from a passage's own references), whose
every number appears in a cited passage, and which a cited passage supports. See
docs/verifier.md.
"""

from lastword.verify.verifier import (
    CONTRADICTS,
    INJECTED,
    NO_CONTENT,
    OFF_QUESTION,
    PHANTOM_CITATION,
    UNCITED_CLAIM,
    UNSUPPORTED_NUMBER,
    WEAK_SUPPORT,
    Verification,
    verify_draft,
)

__all__ = [
    "CONTRADICTS",
    "INJECTED",
    "NO_CONTENT",
    "OFF_QUESTION",
    "PHANTOM_CITATION",
    "UNCITED_CLAIM",
    "UNSUPPORTED_NUMBER",
    "WEAK_SUPPORT",
    "Verification",
    "verify_draft",
]
