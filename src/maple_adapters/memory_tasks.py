"""MCP tasks' records in this process's memory: one server's tasks (``maple-mcp`` on stdio)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence

from maple_core.tasks import TaskEnd, TaskRecord, TaskStatus

__all__ = ["InMemoryTaskStore"]


class InMemoryTaskStore:
    """Task records in a dictionary, safe across threads."""

    def __init__(self) -> None:
        self._records: dict[str, TaskRecord] = {}
        self._lock = threading.Lock()

    def create(self, record: TaskRecord) -> None:
        """Keep a new task's record."""
        with self._lock:
            self._records[record.task_id] = record

    def get(self, task_id: str) -> TaskRecord | None:
        """The task's record, or ``None``."""
        with self._lock:
            return self._records.get(task_id)

    def finish(self, task_id: str, end: TaskEnd) -> TaskRecord | None:
        """End a working task; ``None`` when it was not working."""
        with self._lock:
            record = self._records.get(task_id)
            if record is None or record.status is not TaskStatus.WORKING:
                return None
            ended = record.ended(end)
            self._records[task_id] = ended
            return ended

    def renew(self, owner: str, task_ids: Sequence[str], lease_until: str) -> set[str]:
        """Extend ``owner``'s leases; the ids among ``task_ids`` it no longer runs."""
        gone: set[str] = set()
        with self._lock:
            for task_id in task_ids:
                record = self._records.get(task_id)
                ours = record is not None and record.owner == owner
                if record is None or record.status is not TaskStatus.WORKING or not ours:
                    gone.add(task_id)
                else:
                    self._records[task_id] = dataclasses.replace(record, lease_until=lease_until)
        return gone

    def take_over(self, task_id: str, owner: str, now: str, lease_until: str) -> TaskRecord | None:
        """Claim a working task whose lease ran out before ``now``."""
        with self._lock:
            record = self._records.get(task_id)
            if record is None or record.status is not TaskStatus.WORKING:
                return None
            if record.lease_until is not None and record.lease_until > now:
                return None
            taken = dataclasses.replace(record, owner=owner, lease_until=lease_until)
            self._records[task_id] = taken
            return taken

    def forget(self, finished_before: str) -> None:
        """Drop tasks that stopped working before ``finished_before``."""
        with self._lock:
            old = [
                task_id
                for task_id, record in self._records.items()
                if record.finished_at is not None and record.finished_at < finished_before
            ]
            for task_id in old:
                del self._records[task_id]
