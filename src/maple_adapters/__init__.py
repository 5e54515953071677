"""Adapters: one module or package per technology, each implementing ports of ``maple_core``."""

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
