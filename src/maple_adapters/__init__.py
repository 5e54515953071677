"""Adapters: one module or package per technology, each implementing ports of ``maple_core``.

Names are imported on first use.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.files import FileCommentStore, FileMedia
    from maple_adapters.memory import InMemoryCommentStore
    from maple_adapters.memory_gate import InMemoryGatePublisher
    from maple_adapters.system import SystemClock

__all__ = [
    "FileCommentStore",
    "FileMedia",
    "InMemoryCommentStore",
    "InMemoryGatePublisher",
    "SystemClock",
]

_HOMES = {
    "FileCommentStore": "maple_adapters.files",
    "FileMedia": "maple_adapters.files",
    "InMemoryCommentStore": "maple_adapters.memory",
    "InMemoryGatePublisher": "maple_adapters.memory_gate",
    "SystemClock": "maple_adapters.system",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
