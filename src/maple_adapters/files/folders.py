"""Folders and files under ``.maple/``, opened without following symbolic links.

git stores symbolic links, so whoever can push can plant one anywhere under ``.maple/`` aimed at
a file outside the repository; following it would read, truncate, create or lock that file. So
each folder below the root (``.maple``, the branch's folder, ``media``) is opened with
``O_NOFOLLOW`` relative to its parent's descriptor, and each file relative to its folder's: a
link is refused with :class:`UnsafePathError` naming it, and whatever it points at is never
touched. Opening relative to descriptors also means a folder swapped for a link mid-way cannot
redirect a write.

Writes go through a temporary file renamed over the target; :meth:`Folder.replace` first sweeps
the temporary files a crashed writer left behind.

The Stop hook reads the ledger through this module, so it imports only :mod:`os`, :mod:`stat`
and :mod:`time`, which the interpreter has loaded already.
"""

from __future__ import annotations

import os
import stat
import time

from maple_core.errors import UnsafePathError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Folder", "MAPLE", "make_folder", "open_folder", "read_beneath"]

MAPLE = ".maple"
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_UNFOLLOWED = os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP = ".tmp"
_HEX = frozenset("0123456789abcdef")
# A temporary file lives for one write (milliseconds). One whose writer is gone is swept once
# it is a minute old: the pause covers a writer in another PID namespace sharing the folder,
# whose PID means nothing here. After an hour it is swept whoever wrote it, since a crashed
# writer's PID may have been reused by a live process.
_ORPHAN_S = 60.0
_STALE_S = 3600.0
_GITIGNORE = (
    "# Written by maple: comments, captures of the reviewed pages (filled-in forms, typed text)\n"
    "# and maple's own state stay on this machine, out of git.\n*\n"
)


def _linked(path: str, folder: bool, store: str, operation: str) -> UnsafePathError:
    instead = "a real folder" if folder else "the real file"
    return UnsafePathError(
        f"{path} is a symbolic link, which maple will not follow: under .maple/ a link can "
        f"point at any file on this machine. Remove the link (rm {path}); maple makes "
        f"{instead} there.",
        store=store,
        operation=operation,
    )


def _refusal(
    parent: int, name: str, path: str, error: OSError, folder: bool, store: str, operation: str
) -> OSError | UnsafePathError:
    """Why ``name`` in ``parent`` could not be opened: a link, not a folder, or ``error``."""
    try:
        mode = os.lstat(name, dir_fd=parent).st_mode
    except OSError:
        return error
    if stat.S_ISLNK(mode):
        return _linked(path, folder, store, operation)
    if folder and not stat.S_ISDIR(mode):
        return UnsafePathError(
            f"{path} is not a folder. Move it away; maple makes the folder there.",
            store=store,
            operation=operation,
        )
    return error


def _writer(name: str) -> int | None:
    """The PID in a temporary file's name ``<target>.<pid>.<8 hex digits>.tmp``, else ``None``."""
    rest, _, tag = name[: -len(_TEMP)].rpartition(".")
    target, _, pid = rest.rpartition(".")
    if not target or len(tag) != 8 or not _HEX.issuperset(tag):
        return None
    if not (pid.isascii() and pid.isdigit()) or int(pid) == 0:
        return None
    return int(pid)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except OSError:  # another user's process
        return True
    return True


class Folder:
    """An open folder under ``.maple/``; its files are opened relative to it, never via a link.

    Use it as a context manager, or :meth:`close` it.

    Attributes:
        path: the folder's path, for messages.
        store: the store's name, for errors.
        operation: the operation under way, for errors.
    """

    __slots__ = ("_fd", "operation", "path", "store")

    def __init__(self, fd: int, path: str, store: str, operation: str) -> None:
        self._fd = fd
        self.path = path
        self.store = store
        self.operation = operation

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the folder's descriptor."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def where(self, name: str) -> str:
        """The path of ``name`` in this folder, for messages."""
        return os.path.join(self.path, name)

    def open(self, name: str, flags: int, mode: int = 0o644) -> int:
        """A descriptor for ``name`` opened with ``flags``, never through a link.

        Raises:
            UnsafePathError: ``name`` is a symbolic link.
            FileNotFoundError: ``name`` does not exist (and ``flags`` do not create it).
        """
        try:
            return os.open(name, flags | _UNFOLLOWED, mode, dir_fd=self._fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise _refusal(
                self._fd, name, self.where(name), exc, False, self.store, self.operation
            ) from None

    def read(self, name: str) -> bytes:
        """The bytes of ``name``.

        Raises:
            UnsafePathError: ``name`` is a symbolic link.
            FileNotFoundError: ``name`` does not exist.
        """
        with open(self.open(name, os.O_RDONLY), "rb") as handle:
            return handle.read()

    def refuse_link(self, name: str) -> None:
        """Raise :class:`UnsafePathError` if ``name`` is a symbolic link.

        For a file a write would replace without reading it first, checked before writing.
        """
        try:
            mode = os.lstat(name, dir_fd=self._fd).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise _linked(self.where(name), False, self.store, self.operation)

    def stat(self, name: str) -> os.stat_result | None:
        """The status of ``name`` itself (a link is not followed), or ``None`` when missing."""
        try:
            return os.stat(name, dir_fd=self._fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def names(self) -> list[str]:
        """The names of the folder's entries, in no particular order."""
        return os.listdir(self._fd)

    def unlink(self, name: str) -> None:
        """Remove the entry ``name`` (a link itself, never what it points at), if it is there."""
        try:  # noqa: SIM105 - contextlib stays off the Stop hook's start-up path
            os.unlink(name, dir_fd=self._fd)
        except FileNotFoundError:
            pass

    def replace(
        self, name: str, *chunks: bytes | memoryview, durable: bool = True
    ) -> os.stat_result:
        """Write ``chunks`` to a new temporary file, flush it to disk, and rename it over ``name``.

        A crash leaves the old file or the new one, never half of either; a link at ``name`` is
        replaced, never followed. Returns the written file's status, taken before the rename, so
        it describes our file even if another tool replaces it the moment after. Without
        ``durable`` the data is not forced to disk before the rename (a file whose loss in a
        crash costs nothing, such as the claims): readers still see the old file or the new one.
        """
        self.sweep()
        temp = f"{name}.{os.getpid()}.{os.urandom(4).hex()}{_TEMP}"
        fd = self.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with open(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                if durable:
                    os.fsync(fd)
                written = os.fstat(fd)
            os.replace(temp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        except BaseException:
            self.unlink(temp)
            raise
        return written

    def overwrite(self, name: str, data: bytes) -> None:
        """Write ``data`` over ``name`` in place (created if missing), never through a link.

        For a small file written and read only under its lock (the claims): on ext4 replacing a
        file by a rename forces the new one's blocks out first (``auto_da_alloc``), a
        millisecond a write, while writing in place and truncating to its length costs tens of
        microseconds. A reader that holds the lock's shared side never sees half of a write.
        """
        fd = self.open(name, os.O_WRONLY | os.O_CREAT, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)

    def sweep(self) -> None:
        """Remove the temporary files crashed writers left here.

        One is swept when its writer's process is gone and it is a minute old, or when it is an
        hour old; a live writer's file is never touched.
        """
        now = time.time()
        for name in os.listdir(self._fd):
            if not name.endswith(_TEMP):
                continue
            pid = _writer(name)
            if pid is None:
                continue
            try:
                age = now - os.lstat(name, dir_fd=self._fd).st_mtime
            except OSError:
                continue
            if age > _STALE_S or (age > _ORPHAN_S and not _alive(pid)):
                try:  # noqa: SIM105 - as above
                    os.unlink(name, dir_fd=self._fd)
                except OSError:
                    pass


def _child(parent: int, name: str, path: str, create: bool, store: str, operation: str) -> int:
    try:
        return os.open(name, _DIRECTORY, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        raise _refusal(parent, name, path, exc, True, store, operation) from None
    try:  # noqa: SIM105 - contextlib stays off the Stop hook's start-up path
        os.mkdir(name, dir_fd=parent)
    except FileExistsError:  # another writer made it, or a link sits there: the open tells
        pass
    try:
        return os.open(name, _DIRECTORY, dir_fd=parent)
    except OSError as exc:
        raise _refusal(parent, name, path, exc, True, store, operation) from None


def _walk(root: str, parts: Sequence[str], create: bool, store: str, operation: str) -> Folder:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        fd = os.open(root, flags)
    except FileNotFoundError:
        if not create:
            raise
        os.makedirs(root, exist_ok=True)
        fd = os.open(root, flags)
    path = root
    try:
        for depth, part in enumerate(parts):
            path = os.path.join(path, part)
            child = _child(fd, part, path, create, store, operation)
            os.close(fd)
            fd = child
            if create and depth == 0 and part == MAPLE:
                _keep_out_of_git(fd)
    except BaseException:
        os.close(fd)
        raise
    return Folder(fd, path, store, operation)


def _keep_out_of_git(maple: int) -> None:
    """A ``.gitignore`` of ``*`` in ``.maple/``, unless one is there: ``git status`` stays clean.

    Made once, never rewritten (a person may keep some of it in git on purpose), and never
    through a link.
    """
    try:
        fd = os.open(
            ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _UNFOLLOWED, 0o644, dir_fd=maple
        )
    except OSError:  # there already (or a link there), or a read-only checkout: nothing to do
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(_GITIGNORE)


def open_folder(
    root: str, parts: Sequence[str], *, store: str = "file", operation: str = "list"
) -> Folder | None:
    """Open ``root/<parts…>`` following no link below ``root``; ``None`` when it does not exist.

    ``root`` (the checkout) may be reached through links; nothing under it may be.

    Raises:
        UnsafePathError: one of ``parts`` is a symbolic link or not a folder.
    """
    try:
        return _walk(root, parts, False, store, operation)
    except FileNotFoundError:
        return None


def make_folder(
    root: str, parts: Sequence[str], *, store: str = "file", operation: str = "append"
) -> Folder:
    """Open ``root/<parts…>`` as :func:`open_folder` does, making the folders that are missing.

    The ``.maple`` folder gets a ``.gitignore`` keeping it out of git when it has none.

    Raises:
        UnsafePathError: one of ``parts`` is a symbolic link or not a folder.
    """
    return _walk(root, parts, True, store, operation)


def read_beneath(
    path: str,
    operation: str = "list",
    store: str = "file",
    beside: tuple[str, float] | None = None,
) -> bytes | None:
    """The bytes at ``path``, following no link from its last ``.maple`` folder down.

    ``None`` when the file or a folder on the way is missing. Without a ``.maple`` folder in
    ``path``, only the file itself is opened without following a link. With ``beside``, the
    name of a lock in the same folder and a timeout, it is read holding that lock's shared side
    (:func:`~maple_adapters.files.lock.read_shared`).

    Raises:
        UnsafePathError: the file or a folder from ``.maple`` down is a symbolic link.
    """
    directory, name = os.path.split(path)
    parts = directory.split(os.sep)
    below = len(parts) - parts[::-1].index(MAPLE) - 1 if MAPLE in parts else len(parts)
    root = os.sep.join(parts[:below]) or (os.sep if os.path.isabs(directory) else os.curdir)
    folder = open_folder(root, parts[below:], store=store, operation=operation)
    if folder is None:
        return None
    with folder:
        if beside is not None:
            from maple_adapters.files.lock import read_shared

            return read_shared(folder, name, *beside)
        try:
            return folder.read(name)
        except FileNotFoundError:
            return None
