"""How a wait learns that a pull request's ledger changed: a poll every 2 s, free if unchanged."""

from __future__ import annotations

from collections.abc import Hashable

from maple_adapters.github.pulls import fingerprint
from maple_core.errors import MapleError
from maple_core.ports import Clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.github.store import GitHubLedgerStore

__all__ = ["GitHubChangeSignal"]

_POLL_S = 2.0


class GitHubChangeSignal:
    """Polls a branch's pull request every 2 s with conditional requests (a 304 is free).

    Its deadlines and pauses are ``clock``'s, so a test clock drives them.
    """

    def __init__(self, store: GitHubLedgerStore, branch: str, clock: Clock) -> None:
        self._store = store
        self._branch = branch
        self._clock = clock
        # A signal is made just before a read (a token or the store's ``state``): poll 2 s on.
        self._next_poll = clock.monotonic() + _POLL_S

    def _state(self) -> Hashable:
        try:
            pull = self._store.find_pull(self._branch)
            if pull is None:
                return None
            comments = self._store.issue_comments(pull)
        except MapleError:  # GitHubError is one
            return ("unreadable", self._clock.monotonic())
        return fingerprint(comments)

    def token(self) -> Hashable:
        """The pull request's comments as of now (fetched conditionally)."""
        self._next_poll = self._clock.monotonic() + _POLL_S
        return self._state()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Poll at most every 2 s until the comments differ from ``token`` or time runs out."""
        clock = self._clock
        deadline = clock.monotonic() + timeout
        while True:
            now = clock.monotonic()
            if now >= self._next_poll:
                self._next_poll = now + _POLL_S
                if self._state() != token:
                    return True
            pause = min(self._next_poll, deadline) - clock.monotonic()
            if pause <= 0 and clock.monotonic() >= deadline:
                return False
            clock.sleep(max(pause, 0))
