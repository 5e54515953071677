"""The in-memory gate publisher: records every verdict per commit, for tests and embedding."""

from __future__ import annotations

import threading

from maple_core.gate import GateReport, GateVerdict

__all__ = ["InMemoryGatePublisher"]


class InMemoryGatePublisher:
    """Keeps the verdicts published for each (branch, commit), newest last."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._history: dict[tuple[str, str], list[GateReport]] = {}

    @property
    def name(self) -> str:
        """``memory``."""
        return "memory"

    def publish(self, report: GateReport) -> None:
        """Record ``report`` as the commit's current verdict."""
        with self._lock:
            self._history.setdefault((report.branch, report.sha), []).append(report)

    def read(self, branch: str, sha: str) -> GateVerdict | None:
        """The verdict last published on ``sha``."""
        with self._lock:
            reports = self._history.get((branch, sha))
            return reports[-1].verdict if reports else None

    def history(self, branch: str, sha: str) -> list[GateReport]:
        """Every report published on ``sha``, oldest first."""
        with self._lock:
            return list(self._history.get((branch, sha), []))
