"""Step 3 (with ``retrieve.py``): where passages and vectors live, behind ``Store``."""

from lastword.store.local import LocalStore
from lastword.store.open import describe_location, open_store, store_exists
from lastword.store.protocol import DocumentRecord, Hit, IndexInfo, NewPassage, Store

__all__ = [
    "DocumentRecord",
    "Hit",
    "IndexInfo",
    "LocalStore",
    "NewPassage",
    "Store",
    "describe_location",
    "open_store",
    "store_exists",
]
