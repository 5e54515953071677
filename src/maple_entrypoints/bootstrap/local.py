"""The local parts: the clock, git discovery, and the ``.maple/`` folder's store and media."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.files import find_checkout
from maple_adapters.system import SystemClock
from maple_core.ports import Clock, CommentStore, Commits, MediaStore

__all__ = [
    "find_checkout",
    "local_commits",
    "local_media",
    "local_media_file",
    "local_store",
    "system_clock",
]


def system_clock() -> Clock:
    """The wall and monotonic clocks, and sleeps, of this process."""
    return SystemClock()


def local_store(cwd: Path, clock: Clock | None = None) -> CommentStore:
    """The file store in the ``.maple/`` folder of ``cwd``'s main checkout."""
    from maple_adapters.files import FileCommentStore

    return FileCommentStore(clock or SystemClock(), cwd)


def local_commits(cwd: Path) -> Commits:
    """The commits of ``cwd``'s git checkout, which a resolution's sha is checked against."""
    from maple_adapters.files import GitCommits

    return GitCommits(cwd)


def local_media(cwd: Path) -> MediaStore:
    """The screenshots kept beside the file store of ``cwd``'s main checkout."""
    from maple_adapters.files import FileMedia

    return FileMedia(cwd)


def local_media_file(cwd: Path, key: str) -> Path:
    """The file of the image ``key`` among ``cwd``'s ``.maple/`` media, for a person to open.

    Raises:
        InvalidMediaKeyError: the key is malformed.
        NotFoundError: nothing is held under the key.
    """
    from maple_adapters.files import FileMedia

    return FileMedia(cwd).location(key)
