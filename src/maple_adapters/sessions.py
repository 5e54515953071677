"""Where this machine's maple sessions say who they are: ``<temp>/maple-sessions-<uid>/``.

A session (one ``maple-mcp`` process per MCP connection, or one ``maple watch``) writes
``<session id>.json`` when it starts and removes it when it ends cleanly: its agent's name, its
process and its client's, the client's own session when the client names one (Claude Code's
``CLAUDE_CODE_SESSION_ID``), the folder it serves, and the ``maple watch`` that started it. The
Stop hook reads the entry of a session that holds a claim to tell its own session's claims from
another's, and ``maple agents status`` lists them.

The folder is private (0700) and must be this user's; a file is never read or written through a
link, and an entry another user or a link planted is ignored. A session id is a plain name
(:func:`~maple_core.claims.check_session_id`), so it can never name a path elsewhere. Read with
the standard library alone: the Stop hook uses it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.json_types import JsonObject

__all__ = ["SessionRegistry", "alive", "ancestors"]

_ENTRY_BYTES = 8_192
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@-")
_NO_LINK = getattr(os, "O_NOFOLLOW", 0)


def _plain(session: str) -> bool:
    return 0 < len(session) <= 64 and session[0].isalnum() and set(session) <= _SAFE


def alive(pid: object) -> bool:
    """Whether a process ``pid`` (a positive int) runs on this machine."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def ancestors(pid: int | None = None, depth: int = 12) -> list[int]:
    """``pid`` (default: this process) and its parents, nearest first, as far as ``/proc`` says.

    Off Linux (no ``/proc``) only this process and its parent are known.
    """
    pid = os.getpid() if pid is None else pid
    found = [pid]
    for _ in range(depth):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            if pid == os.getpid():
                found.append(os.getppid())
            break
        fields = stat.rsplit(b")", 1)[-1].split()
        try:
            pid = int(fields[1])
        except (IndexError, ValueError):
            break
        if pid <= 1:
            break
        found.append(pid)
    return found


class SessionRegistry:
    """The entries of this user's sessions on this machine."""

    def __init__(self, temp_dir: str) -> None:
        self.folder = os.path.join(temp_dir, f"maple-sessions-{os.getuid()}")

    def _usable(self, create: bool) -> bool:
        if create:
            try:
                os.mkdir(self.folder, 0o700)
            except FileExistsError:
                pass
            except OSError:
                return False
        try:
            found = os.lstat(self.folder)
        except OSError:
            return False
        return found.st_mode & 0o170000 == 0o040000 and found.st_uid == os.getuid()

    def _path(self, session: str) -> str | None:
        return os.path.join(self.folder, session + ".json") if _plain(session) else None

    def write(self, entry: JsonObject) -> None:
        """Record ``entry`` (it names its ``session``); a folder that is not ours is left be.

        Raises:
            OSError: the entry could not be written.
        """
        import json

        session = entry.get("session")
        path = self._path(session) if isinstance(session, str) else None
        if path is None or not self._usable(create=True):
            return
        temp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NO_LINK, 0o600)
        try:
            os.write(fd, json.dumps(entry, ensure_ascii=True).encode())
        finally:
            os.close(fd)
        os.replace(temp, path)

    def forget(self, session: str) -> None:
        """Remove the session's entry, if there is one."""
        path = self._path(session)
        if path is None:
            return
        try:  # noqa: SIM105 - contextlib stays off the Stop hook's start-up path
            os.unlink(path)
        except OSError:
            pass

    def read(self, session: str) -> JsonObject | None:
        """The session's entry, or ``None`` (none, not a plain name, not ours, unreadable)."""
        path = self._path(session)
        if path is None or not self._usable(create=False):
            return None
        try:
            fd = os.open(path, os.O_RDONLY | _NO_LINK)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_uid != os.getuid():
                return None
            data = os.read(fd, _ENTRY_BYTES)
        except OSError:
            return None
        finally:
            os.close(fd)
        from maple_core.quickjson import loads  # the hook loads this module only when needed

        try:
            entry = loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not isinstance(entry, dict) or entry.get("session") != session:
            return None
        return entry

    def entries(self) -> list[JsonObject]:
        """Every readable entry, those whose process is gone marked ``"alive": false``."""
        if not self._usable(create=False):
            return []
        found: list[JsonObject] = []
        try:
            names = sorted(os.listdir(self.folder))
        except OSError:
            return []
        for name in names:
            if not name.endswith(".json"):
                continue
            entry = self.read(name[: -len(".json")])
            if entry is not None:
                found.append({**entry, "alive": alive(entry.get("pid"))})
        return found
