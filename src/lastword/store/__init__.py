"""Step 3: where passages and their vectors live, behind the ``Store`` protocol."""

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
