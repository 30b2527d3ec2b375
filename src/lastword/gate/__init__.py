"""Step 4: decide, before any model is called, whether the evidence is there.

Two guards, in order: the scope guard (operator keyword lists; runs before embedding) and the
retrieval gate (the band of the gate score: the top cosine, or a calibrated combination of the
top cosine, its margin over the rest, and the lexical coverage of the top document).
"""

from lastword.gate.bands import band_for
from lastword.gate.scope import scope_refusal
from lastword.gate.signals import DEPTH, gate_signals

__all__ = ["DEPTH", "band_for", "gate_signals", "scope_refusal"]
