"""The Stop hook's light profile: the file store's open records, read without building the store.

The hook runs at every stop of every agent turn, so on the file store it takes only these three
small modules (no pydantic, no store object; a fourth, this machine's session entries, only when
a claim must be told its own session's or another's); its forge path builds the store through
:mod:`~maple_entrypoints.bootstrap.server` like everything else.
"""

from __future__ import annotations

from maple_adapters.files.git import find_checkout
from maple_adapters.files.place import resolve_place
from maple_adapters.files.records import blocking_records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.sessions import SessionRegistry

__all__ = ["blocking_records", "find_checkout", "process_ancestors", "resolve_place", "sessions"]


def sessions(temp_dir: str) -> SessionRegistry:
    """The session entries of this machine, loaded only when a stop meets a live claim."""
    from maple_adapters.sessions import SessionRegistry

    return SessionRegistry(temp_dir)


def process_ancestors() -> list[int]:
    """The hook's process and its parents, nearest first (``maple_adapters.sessions``)."""
    from maple_adapters.sessions import ancestors

    return ancestors()
