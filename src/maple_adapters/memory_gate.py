"""The in-memory gate publisher: keeps the latest verdict per commit, for tests and embedding."""

from __future__ import annotations

import threading

from maple_core.gate import GateReport, GateVerdict

__all__ = ["InMemoryGatePublisher"]


class InMemoryGatePublisher:
    """Keeps the verdict last published for each (branch, commit)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[tuple[str, str], GateVerdict] = {}

    @property
    def name(self) -> str:
        """``memory``."""
        return "memory"

    def publish(self, report: GateReport) -> None:
        """Record ``report`` as the commit's current verdict."""
        with self._lock:
            self._latest[(report.branch, report.sha)] = report.verdict

    def read(self, branch: str, sha: str) -> GateVerdict | None:
        """The verdict last published on ``sha``."""
        with self._lock:
            return self._latest.get((branch, sha))
