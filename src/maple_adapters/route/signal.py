"""How a wait learns that a route's comments changed: a conditional poll every second."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Hashable

from maple_adapters.route.http import RouteHttp, RouteUnreachableError

__all__ = ["POLL_S", "RouteChangeSignal"]

POLL_S = 1.0


class RouteChangeSignal:
    """Wakes when a branch's listing on the route changes, by polling it every ``poll_s``.

    A route that sends an ``ETag`` is asked with ``If-None-Match`` and answers ``304`` while
    nothing changed; otherwise the listing's bytes are compared. A route that cannot be reached
    counts as unchanged, so a waiter keeps waiting rather than failing.
    """

    def __init__(self, http: RouteHttp, branch: str, poll_s: float) -> None:
        self._http = http
        self._branch = branch
        self._poll_s = poll_s
        self._etag: str | None = None
        self._digest: str | None = None
        self._next_look = 0.0

    def _look(self) -> str | None:
        self._next_look = time.monotonic() + self._poll_s
        headers = {"if-none-match": self._etag} if self._etag else None
        try:
            answer = self._http.request(
                "GET", "/comments", params={"branch": self._branch}, headers=headers
            )
        except RouteUnreachableError:
            return self._digest
        if answer.status == 304:
            return self._digest
        if not answer.ok:
            return self._digest
        self._etag = answer.headers.get("etag")
        self._digest = self._etag or hashlib.sha256(repr(answer.data).encode()).hexdigest()
        return self._digest

    def token(self) -> Hashable:
        """A mark of the listing as it is now."""
        return self._look()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Poll until the listing differs from ``token`` (True) or ``timeout`` seconds pass.

        Looks are spaced ``poll_s`` apart across calls, so a caller waiting in short slices
        still asks the route once per ``poll_s``.
        """
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() >= self._next_look and self._look() != token:
                return True
            now = time.monotonic()
            if now >= deadline:
                return False
            time.sleep(max(min(self._next_look, deadline) - now, 0.0))
