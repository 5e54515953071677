"""The Stop hook's light profile: the file store's open records, read without building the store.

The hook runs at every stop of every agent turn, so on the file store it takes only these three
small modules (no pydantic, no store object); its forge path builds the store through
:mod:`~maple_entrypoints.bootstrap.server` like everything else.
"""

from __future__ import annotations

from maple_adapters.files.git import find_checkout
from maple_adapters.files.place import resolve_place
from maple_adapters.files.records import blocking_records

__all__ = ["blocking_records", "find_checkout", "resolve_place"]
