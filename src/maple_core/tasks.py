"""MCP tasks as records: what a task store keeps so that any worker can answer for a task.

A client that declares the MCP tasks extension gets a long wait (``wait_for_comments``) as a
*task*: the call is answered at once with a task id, and the client polls ``tasks/get`` until
the task completes. Behind a balancer those polls reach any worker, so the task's state lives in
a :class:`~maple_core.storage_ports.TaskStore` every worker shares, as a :class:`TaskRecord`.

The worker running a task holds a *lease* on it and renews it while it runs. A worker that dies
mid-wait stops renewing; once the lease has run out, the next worker asked about the task takes
it over and runs the same call again from its recorded arguments. A wait is judged on the
agent's cursor, so the second run returns exactly what the first would have: nothing is missed,
and nothing hangs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from maple_core.json_types import JsonObject

__all__ = ["TaskEnd", "TaskRecord", "TaskStatus"]


class TaskStatus(StrEnum):
    """Where a task is: running, or how it ended (the extension's four)."""

    WORKING = "working"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class TaskEnd:
    """How a task ended, as a store records it.

    Attributes:
        status: how it ended (not ``WORKING``).
        message: the status message shown to the client.
        at: when, on the wire's clock (ISO 8601 UTC, milliseconds).
        finished_at: when, on maple's clock (its arrival-stamp format), for expiry.
        result: the tool's result once completed (the ``CallToolResult`` JSON).
        error: the JSON-RPC error once failed (``code`` and ``message``).
    """

    status: TaskStatus
    message: str
    at: str
    finished_at: str
    result: JsonObject | None = None
    error: JsonObject | None = None


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One task as a store keeps it.

    Attributes:
        task_id: the id the client polls (random, unguessable).
        tool: the tool the task runs.
        created_at: when it started (ISO 8601 UTC, milliseconds, as on the wire).
        updated_at: when its status last changed.
        status: running or how it ended.
        message: the status message shown to the client.
        arguments: the tool's arguments, so another worker can run it again.
        result: the tool's result once completed (the ``CallToolResult`` JSON).
        error: the JSON-RPC error once failed (``code`` and ``message``).
        owner: the worker that runs it now.
        lease_until: until when the owner's claim holds (maple's arrival-stamp format).
        finished_at: when it stopped working (maple's arrival-stamp format), for expiry.
    """

    task_id: str
    tool: str
    created_at: str
    updated_at: str
    status: TaskStatus = TaskStatus.WORKING
    message: str = "working"
    arguments: JsonObject = field(default_factory=dict)
    result: JsonObject | None = None
    error: JsonObject | None = None
    owner: str | None = None
    lease_until: str | None = None
    finished_at: str | None = None

    def ended(self, end: TaskEnd) -> TaskRecord:
        """The task ended as ``end`` says."""
        return replace(
            self,
            status=end.status,
            message=end.message,
            updated_at=end.at,
            result=end.result,
            error=end.error,
            finished_at=end.finished_at,
        )
