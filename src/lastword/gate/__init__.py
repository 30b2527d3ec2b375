"""Step 4: decide, before any model is called, whether the evidence is there.

Two guards, in order: the scope guard (operator keyword lists; runs before embedding) and the
retrieval gate (the top cosine score's band). Each returns a ``Refusal`` or ``None``.
"""

from lastword.gate.bands import band_for, gate_signals
from lastword.gate.scope import scope_refusal

__all__ = ["band_for", "gate_signals", "scope_refusal"]
