"""The Stop hook's count of consecutive blocks per session, kept where Maple's hook keeps it.

On the hook's fast path: it imports only ``os``, the interpreter's own SHA-256 and the
configuration's declarations. The temporary folder it keeps them in is also where this
machine's maple sessions note who they are (:func:`temp_folder`).
"""

from __future__ import annotations

import os

try:  # the interpreter's own SHA-256, which starts faster than hashlib's OpenSSL
    from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import sha256

from maple_entrypoints.configuration import TEMP, TMP, TMPDIR, Settings

__all__ = ["BlockCounter", "HOOK", "temp_folder"]

HOOK = "maple-stop-hook"
"""The hook's name, and its counters' folder under the temporary directory (Maple's too)."""


def temp_folder(settings: Settings) -> str:
    """The temporary folder as Node's ``os.tmpdir()`` finds it.

    ``TMPDIR``, then ``TMP``, then ``TEMP``, else ``/tmp``; a trailing slash is dropped. Maple's
    hook and this one share the block counters there, and this machine's sessions note who
    they are.
    """
    temp = settings[TMPDIR] or settings[TMP] or settings[TEMP] or "/tmp"
    return temp.rstrip("/") or "/"


class BlockCounter:
    """Consecutive blocks per session: ``<temp>/maple-stop-hook/<sha256(session)[:32]>.txt``.

    The folder is Maple's, so both hooks share the count. It sits in a shared temporary
    directory, where another user could have made it first or planted a link in it: a folder
    that is a link or is not this user's is passed over for ``maple-stop-hook-<uid>`` (made
    private), and a counter is never read or written through a link.
    """

    def __init__(self, temp_dir: str) -> None:
        self.temp_dir = temp_dir
        self.directory = os.path.join(temp_dir, HOOK)

    def _folder(self, create: bool) -> str | None:
        """The first usable folder: Maple's, else this user's own; ``None`` when neither is."""
        uid = os.getuid()
        for folder in (self.directory, f"{self.directory}-{uid}"):
            try:
                if create:
                    os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            except OSError:
                return None
            try:
                found = os.lstat(folder)
            except OSError:
                continue
            if found.st_mode & 0o170000 == 0o040000 and found.st_uid == uid:
                return folder
        return None

    def _path(self, session_id: str, create: bool = False) -> str | None:
        folder = self._folder(create)
        if folder is None:
            return None
        digest = sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return os.path.join(folder, f"{digest}.txt")

    def read(self, session_id: str) -> int:
        """The stored count; missing, unreadable, linked or garbage reads as 0."""
        path = self._path(session_id)
        if path is None:
            return 0
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                count = int(os.read(fd, 64))
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return 0
        return max(count, 0)

    def write(self, session_id: str, count: int) -> None:
        """Store ``count`` for the session.

        Raises:
            OSError: no folder this user owns could hold it, or a link stands in its place.
        """
        path = self._path(session_id, create=True)
        if path is None:
            raise PermissionError(f"no folder of this user's under {self.temp_dir}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, str(count).encode())
        finally:
            os.close(fd)

    def clear(self, session_id: str) -> None:
        """Forget the session's count."""
        path = self._path(session_id)
        if path is None:
            return
        try:  # noqa: SIM105 - contextlib stays off the hook's start-up path
            os.unlink(path)
        except FileNotFoundError:
            pass
