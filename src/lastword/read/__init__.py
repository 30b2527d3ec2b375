"""Step 4, read: the learned reader scores every sentence and table row of the passages
(``reader.py``), from a fitted network shipped as data (``model.py``)."""

from lastword.read.reader import Reader, ReaderConfig, Reading

__all__ = ["Reader", "ReaderConfig", "Reading"]
