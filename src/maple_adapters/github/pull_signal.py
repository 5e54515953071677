"""Waking on a pull request's ledger or its own review: both polled with conditional requests."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

from maple_adapters.github.signal import GitHubChangeSignal
from maple_core.errors import MapleError
from maple_core.ports import Clock

if TYPE_CHECKING:
    from maple_adapters.github.pull_store import PullRequestStore

__all__ = ["PullRequestChangeSignal"]


class PullRequestChangeSignal:
    """Wakes when the ledger's comments or the review change (both polled conditionally)."""

    def __init__(self, store: PullRequestStore, branch: str, clock: Clock) -> None:
        self._store = store
        self._ledger_signal = GitHubChangeSignal(store.ledger, branch, clock)
        self._branch = branch
        self._clock = clock

    def token(self) -> Hashable:
        """Both sources as of now."""
        return (self._ledger_signal.token(), self._review_token())

    def _review_token(self) -> Hashable:
        try:
            pull = self._store.ledger.pull_of(self._branch)
            return self._store.source.token(pull[0]) if pull is not None else None
        except MapleError:
            return ("unreadable", self._clock.monotonic())

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Poll both every 2 s until either differs from ``token``, or time runs out."""
        pair = token if isinstance(token, tuple) and len(token) == 2 else (token, None)
        ledger_token, review_token = pair
        deadline = self._clock.monotonic() + timeout
        while True:
            step = min(2.0, deadline - self._clock.monotonic())
            if step <= 0:
                return False
            if self._ledger_signal.wait(ledger_token, step):
                return True
            if self._review_token() != review_token:
                return True

    def status(self) -> str:
        """What holds polling back, if anything (for the wait's progress and ``maple doctor``)."""
        verdict = self._store.source.verdict()
        return "" if verdict.poll else verdict.reason
