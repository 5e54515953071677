"""Can this GitHub token push to the repository? Asked by the route before a gate refresh."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import quote

from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.gate_ports import PushAnswer
from maple_core.ports import Clock

__all__ = ["PushAccess"]

CACHE_S = 60.0
CACHE_SIZE = 500


class PushAccess:
    """Asks ``GET /repos/{owner}/{repo}`` with the caller's token, and keeps the answer a minute.

    The :class:`~maple_core.gate_ports.PushAccess` port over GitHub.

    ``401`` is a bad token; ``403`` or ``404`` is denied; ``permissions.push`` decides a ``2xx``.
    Answers are kept per SHA-256 of the token (never the token itself), at most 500, the oldest
    dropped first.

    Args:
        transport_for: builds a transport that sends the given token.
    """

    def __init__(
        self,
        transport_for: Callable[[str], GitHubTransport],
        owner: str,
        repo: str,
        clock: Clock,
        cache_s: float = CACHE_S,
    ) -> None:
        self._transport_for = transport_for
        self._path = f"/repos/{quote(owner, safe='')}/{quote(repo, safe='')}"
        self._clock = clock
        self._cache_s = cache_s
        self._answers: OrderedDict[str, tuple[float, PushAnswer]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, token: str) -> PushAnswer:
        """The answer for ``token``, from the cache while it is fresh.

        Raises:
            GitHubError: GitHub answered something else, or the rate limit is spent.
        """
        key = hashlib.sha256(token.encode()).hexdigest()
        now = self._clock.monotonic()
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None and now - kept[0] < self._cache_s:
                return kept[1]
        answer = self._ask(token)
        with self._lock:
            self._answers[key] = (now, answer)
            self._answers.move_to_end(key)
            while len(self._answers) > CACHE_SIZE:
                self._answers.popitem(last=False)
        return answer

    def _ask(self, token: str) -> PushAnswer:
        response = self._transport_for(token).request("GET", self._path)
        if response.status == 401:
            return PushAnswer.BAD_TOKEN
        if response.headers.get("x-ratelimit-remaining") == "0":
            raise GitHubError(response.status, self._path, "the API rate limit is spent")
        if response.status in (403, 404):
            return PushAnswer.DENIED
        if not 200 <= response.status < 300:
            message = response.data.get("message") if isinstance(response.data, dict) else None
            raise GitHubError(response.status, self._path, str(message or "unexpected answer"))
        permissions = response.data.get("permissions") if isinstance(response.data, dict) else None
        pushes = isinstance(permissions, dict) and permissions.get("push") is True
        return PushAnswer.PUSH if pushes else PushAnswer.DENIED
