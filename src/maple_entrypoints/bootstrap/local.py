"""The local parts: the clock, git discovery, and the ``.maple/`` folder's store and media."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.files import find_checkout
from maple_adapters.system import SystemClock
from maple_core.ports import Clock, CommentStore, MediaStore

__all__ = ["find_checkout", "local_media", "local_store", "system_clock"]


def system_clock() -> Clock:
    """The wall and monotonic clocks, and sleeps, of this process."""
    return SystemClock()


def local_store(cwd: Path, clock: Clock | None = None) -> CommentStore:
    """The file store in the ``.maple/`` folder of ``cwd``'s main checkout."""
    from maple_adapters.files import FileCommentStore

    return FileCommentStore(clock or SystemClock(), cwd)


def local_media(cwd: Path) -> MediaStore:
    """The screenshots kept beside the file store of ``cwd``'s main checkout."""
    from maple_adapters.files import FileMedia

    return FileMedia(cwd)
