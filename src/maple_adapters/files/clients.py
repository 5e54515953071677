"""``.maple/clients.json``: which MCP clients connected to ``maple-mcp`` here, and how they wait.

``maple-mcp`` notes each client the first time it waits (its name and version, the protocol,
and whether it declared the MCP tasks extension, which is what lets it wake by itself); ``maple
doctor`` reads the notes back. Nothing else depends on the file, and a broken one reads as empty.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from maple_adapters.files.folders import MAPLE, make_folder, open_folder
from maple_adapters.files.git import find_checkout
from maple_core.errors import MapleError

__all__ = ["CLIENTS_FILE", "ClientNotes", "ClientSeen", "read_clients", "record_client"]

CLIENTS_FILE = "clients.json"
"""The file under ``.maple/`` the notes are kept in."""
_MAX_CLIENTS = 16
_MAX_TEXT = 80


@dataclass(frozen=True, slots=True)
class ClientSeen:
    """One client as ``maple-mcp`` last saw it wait."""

    name: str
    version: str
    protocol: str
    tasks: bool
    at: str


def _clean(text: object) -> str:
    value = text if isinstance(text, str) else ""
    return "".join(c for c in value if c.isprintable())[:_MAX_TEXT]


def read_clients(cwd: str | os.PathLike[str]) -> list[ClientSeen]:
    """The clients noted at ``cwd``'s main checkout, most recent first; none when unreadable."""
    root = find_checkout(cwd).root
    try:
        folder = open_folder(root, (MAPLE,), operation="clients")
        if folder is None:
            return []
        with folder:
            data = json.loads(folder.read(CLIENTS_FILE))
    except (OSError, ValueError, MapleError):  # a link there is refused like a missing file
        return []
    entries = data.get("clients") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    seen = [
        ClientSeen(
            _clean(e.get("name")),
            _clean(e.get("version")),
            _clean(e.get("protocol")),
            e.get("tasks") is True,
            _clean(e.get("at")),
        )
        for e in entries
        if isinstance(e, dict)
    ]
    return sorted(seen, key=lambda c: c.at, reverse=True)


def record_client(cwd: str | os.PathLike[str], client: ClientSeen) -> None:
    """Note ``client`` at ``cwd``'s main checkout, over an older note of it.

    A client is known by its name and its way of waiting: Claude Code waits both ways
    (interactive and headless).

    Raises:
        OSError, UnsafePathError: the folder cannot be written (the caller ignores it).
    """
    same = (client.name, client.tasks)
    others = [c for c in read_clients(cwd) if (c.name, c.tasks) != same][: _MAX_CLIENTS - 1]
    document = {
        "clients": [
            {
                "name": c.name,
                "version": c.version,
                "protocol": c.protocol,
                "tasks": c.tasks,
                "at": c.at,
            }
            for c in [client, *others]
        ]
    }
    root = find_checkout(cwd).root
    with make_folder(root, (MAPLE,), operation="clients") as folder:
        folder.replace(CLIENTS_FILE, (json.dumps(document, indent=2) + "\n").encode())


class ClientNotes:
    """``.maple/clients.json`` at ``cwd``'s main checkout: what ``maple-mcp`` saw, for doctor."""

    def __init__(self, cwd: str | os.PathLike[str]) -> None:
        self._cwd = cwd

    def note(self, name: str, version: str, protocol: str, tasks: bool, at: str) -> None:
        """Note how a client waits; ``tasks``: it declared the MCP tasks extension, so it wakes.

        Raises:
            OSError, UnsafePathError: the folder cannot be written (the caller ignores it).
        """
        record_client(self._cwd, ClientSeen(name, version, protocol, tasks, at))

    def seen(self) -> list[ClientSeen]:
        """The clients noted, most recent first; none when the notes cannot be read."""
        return read_clients(self._cwd)
