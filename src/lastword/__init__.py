"""lastword: answers only from evidence it already holds, cites every claim, refuses otherwise."""

__version__ = "0.1.0"
