"""MCP tasks' records in the database, so any route worker answers ``tasks/get`` for any task."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, select, update

from maple_adapters.sql.database import Database
from maple_adapters.sql.schema import tasks
from maple_core.json_types import JsonObject
from maple_core.tasks import TaskEnd, TaskRecord, TaskStatus

__all__ = ["SqlTaskStore"]

_WORKING = TaskStatus.WORKING.value


def _json(value: JsonObject | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def _object(text: str | None) -> JsonObject | None:
    value = json.loads(text) if text else None
    return value if isinstance(value, dict) else None


def _record(row: Any) -> TaskRecord:
    return TaskRecord(
        task_id=row.task_id,
        tool=row.tool,
        created_at=row.created_at,
        updated_at=row.updated_at,
        status=TaskStatus(row.status),
        message=row.message,
        arguments=_object(row.arguments) or {},
        result=_object(row.result),
        error=_object(row.error),
        owner=row.owner,
        lease_until=row.lease_until,
        finished_at=row.finished_at,
    )


class SqlTaskStore:
    """Task records in ``maple_tasks``, one repository's apart.

    Args:
        database: the database the comments are in.
        repository: the repository whose agents' tasks these are.
    """

    def __init__(self, database: Database, repository: str = "default") -> None:
        self._database = database
        self.repository = repository

    def _mine(self, task_id: str) -> Any:
        return (tasks.c.repository == self.repository) & (tasks.c.task_id == task_id)

    def _get(self, connection: Connection, task_id: str) -> TaskRecord | None:
        row = connection.execute(select(tasks).where(self._mine(task_id))).first()
        return _record(row) if row is not None else None

    def create(self, record: TaskRecord) -> None:
        """Keep a new task's record."""
        row = {
            "task_id": record.task_id,
            "repository": self.repository,
            "tool": record.tool,
            "status": record.status.value,
            "message": record.message,
            "created_at": record.created_at,
            "updated_at": record.updated_at,
            "arguments": _json(record.arguments),
            "result": _json(record.result),
            "error": _json(record.error),
            "owner": record.owner,
            "lease_until": record.lease_until,
            "finished_at": record.finished_at,
        }
        self._database.insert_once(
            "task", tasks, row, lambda connection: self._get(connection, record.task_id)
        )

    def get(self, task_id: str) -> TaskRecord | None:
        """The task's record, or ``None``."""
        return self._database.transaction("task", lambda c, _: self._get(c, task_id))

    def finish(self, task_id: str, end: TaskEnd) -> TaskRecord | None:
        """End a working task; ``None`` when it was not working (nothing changes)."""

        def work(connection: Connection, attempt: int) -> TaskRecord | None:
            ended = connection.execute(
                update(tasks)
                .where(self._mine(task_id) & (tasks.c.status == _WORKING))
                .values(
                    status=end.status.value,
                    message=end.message,
                    updated_at=end.at,
                    result=_json(end.result),
                    error=_json(end.error),
                    finished_at=end.finished_at,
                )
            )
            if ended.rowcount == 0:
                if attempt > 1:  # an earlier attempt may have ended it: say so if it did
                    found = self._get(connection, task_id)
                    if found is not None and found.finished_at == end.finished_at:
                        return found
                return None
            return self._get(connection, task_id)

        return self._database.transaction("task", work, write=True)

    def renew(self, owner: str, task_ids: Sequence[str], lease_until: str) -> builtins.set[str]:
        """Extend ``owner``'s leases; the ids among ``task_ids`` it no longer runs."""
        if not task_ids:
            return set()

        def work(connection: Connection, attempt: int) -> builtins.set[str]:
            mine = (
                (tasks.c.repository == self.repository)
                & tasks.c.task_id.in_(task_ids)
                & (tasks.c.status == _WORKING)
                & (tasks.c.owner == owner)
            )
            kept = connection.execute(
                update(tasks).where(mine).values(lease_until=lease_until).returning(tasks.c.task_id)
            ).scalars()
            return set(task_ids) - set(kept)

        return self._database.transaction("task", work, write=True)

    def take_over(self, task_id: str, owner: str, now: str, lease_until: str) -> TaskRecord | None:
        """Claim a working task whose lease ran out before ``now``; ``None`` when not free."""

        def work(connection: Connection, attempt: int) -> TaskRecord | None:
            free = (
                self._mine(task_id)
                & (tasks.c.status == _WORKING)
                & (tasks.c.lease_until.is_(None) | (tasks.c.lease_until <= now))
            )
            taken = connection.execute(
                update(tasks).where(free).values(owner=owner, lease_until=lease_until)
            )
            if taken.rowcount == 0:
                found = self._get(connection, task_id) if attempt > 1 else None
                mine = (
                    found is not None
                    and found.owner == owner
                    and found.lease_until == (lease_until)
                )
                return found if mine else None
            return self._get(connection, task_id)

        return self._database.transaction("task", work, write=True)

    def forget(self, finished_before: str) -> None:
        """Drop tasks that stopped working before ``finished_before``."""

        def work(connection: Connection, attempt: int) -> None:
            connection.execute(
                delete(tasks).where(
                    (tasks.c.repository == self.repository)
                    & tasks.c.finished_at.is_not(None)
                    & (tasks.c.finished_at < finished_before)
                )
            )

        self._database.transaction("task", work, write=True)
