"""Solo bridges as the MCP server keeps them: one per preview origin, started on demand.

Kept apart from :mod:`maple_entrypoints.solo` so ``maple-mcp`` can hold a ``SoloBridges``
without loading the bridge's web stack until ``start_solo`` is first called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from maple_core.errors import InvalidInputError
from maple_entrypoints.solo_pairing import origin_of, solo_link

__all__ = ["MAX_BRIDGES", "SoloBridge", "SoloBridges", "Starter"]


@dataclass
class SoloBridge:
    """A running bridge: where it listens, its token and the origin it is paired with."""

    url: str
    token: str
    origin: str
    stop: Callable[[], None]

    def link(self, preview_url: str) -> str:
        """The link that opens ``preview_url`` paired with this bridge."""
        return solo_link(preview_url, self.token, self.url)


Starter = Callable[[str], SoloBridge]

MAX_BRIDGES = 8
"""The most preview origins one server pairs (each bridge is a port and a server thread)."""


class SoloBridges:
    """One bridge per preview origin for the life of the process (what ``start_solo`` uses).

    At most ``limit`` origins are paired: a comment that talks an agent into pairing thousands
    of origins opens no more ports than that. Bridges start one at a time; a start in progress
    is shared by every caller for the same origin, and a start that fails is forgotten, so the
    next call tries again.
    """

    def __init__(self, start: Starter, limit: int = MAX_BRIDGES) -> None:
        self._start = start
        self._limit = limit
        self._bridges: dict[str, SoloBridge] = {}
        self._lock = threading.Lock()

    def pair(self, preview_url: str) -> tuple[str, str]:
        """The link for ``preview_url`` and its bridge's URL, starting the bridge if needed.

        Raises:
            InvalidInputError: the address is not http or https, or ``limit`` other origins are
                paired already.
            BridgeStartError: the bridge could not start.
        """
        origin = origin_of(preview_url)
        with self._lock:
            bridge = self._bridges.get(origin)
            if bridge is None:
                if len(self._bridges) >= self._limit:
                    raise InvalidInputError(
                        f"This server already keeps {self._limit} solo bridges, the most it "
                        f"keeps (one per preview origin), so {origin} is not paired. Pair a "
                        "preview on one of the origins already paired, or restart the MCP "
                        "server to pair others."
                    )
                bridge = self._start(preview_url)
                self._bridges[origin] = bridge
        return bridge.link(preview_url), bridge.url

    def stop_all(self) -> None:
        """Stop every bridge (tests; a server leaves them to the process's end)."""
        with self._lock:
            bridges, self._bridges = list(self._bridges.values()), {}
        for bridge in bridges:
            bridge.stop()
