"""The local parts: the clock, git discovery, and the ``.maple/`` folder's store and media."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.files import find_checkout
from maple_adapters.system import SystemClock
from maple_core.ports import Clock, CommentStore, Commits, MediaStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.files.clients import ClientSeen
    from maple_adapters.sessions import SessionRegistry

__all__ = [
    "clients_seen",
    "find_checkout",
    "local_commits",
    "local_media",
    "local_media_file",
    "local_store",
    "note_client",
    "session_registry",
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


def note_client(cwd: Path, *, name: str, version: str, protocol: str, tasks: bool, at: str) -> None:
    """Note in ``.maple/clients.json`` how a client waits (``maple doctor`` reads it).

    ``tasks`` is whether it declared the MCP tasks extension, so that it wakes by itself.
    """
    from maple_adapters.files.clients import ClientSeen, record_client

    record_client(cwd, ClientSeen(name, version, protocol, tasks, at))


def clients_seen(cwd: Path) -> list[ClientSeen]:
    """The MCP clients ``maple-mcp`` noted at ``cwd``'s checkout, most recent first."""
    from maple_adapters.files.clients import read_clients

    return read_clients(cwd)


def session_registry(temp_dir: str) -> SessionRegistry:
    """The session entries of this machine, under ``temp_dir`` (``maple_adapters.sessions``)."""
    from maple_adapters.sessions import SessionRegistry

    return SessionRegistry(temp_dir)


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
