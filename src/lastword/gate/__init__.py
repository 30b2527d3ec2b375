"""Steps 1 and 4: decide, before any model is called, whether to answer at all.

Two guards, at two steps of the pipeline: the scope guard (step 1, ``gate/scope.py``: operator
keyword lists, before anything is embedded) and the retrieval gate (step 4, ``gate/decide.py``:
``Gate.run(question, ranking) -> GateDecision``, the band of the gate score: the top cosine, or
a calibrated combination of the signals in ``gate/signals.py``).
"""

from lastword.gate.bands import band_for
from lastword.gate.decide import Gate, GateDecision
from lastword.gate.scope import scope_refusal
from lastword.gate.signals import DEPTH, gate_signals

__all__ = ["DEPTH", "Gate", "GateDecision", "band_for", "gate_signals", "scope_refusal"]
