"""The task-store contract: every adapter in ``TASK_STORES`` keeps MCP tasks' records alike.

Every change is conditional on the task still working, so of two workers that race to end or to
take over one task, exactly one does.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

import pytest

from maple_adapters.memory_tasks import InMemoryTaskStore
from maple_adapters.sql.tasks import SqlTaskStore
from maple_core.storage_ports import TaskStore
from maple_core.tasks import TaskEnd, TaskRecord, TaskStatus
from tests.sql_support import fresh_repository

TaskStoreFactory = Callable[[pytest.FixtureRequest], TaskStore]

EARLY, NOW, LATER = (
    "2026-01-01T12:00:00.000000Z",
    "2026-01-01T12:00:30.000000Z",
    "2026-01-01T12:01:00.000000Z",
)


def _memory(request: pytest.FixtureRequest) -> TaskStore:
    return InMemoryTaskStore()


def _sql(fixture: str) -> TaskStoreFactory:
    def make(request: pytest.FixtureRequest) -> TaskStore:
        return SqlTaskStore(request.getfixturevalue(fixture), fresh_repository())

    return make


TASK_STORES = [
    pytest.param(_memory, id="memory"),
    pytest.param(_sql("sqlite_database"), id="sql-sqlite"),
    pytest.param(_sql("postgres_database"), id="sql-postgres"),
]
"""Every task-store adapter. A new adapter is one new entry here."""


@pytest.fixture(params=TASK_STORES)
def tasks(request: pytest.FixtureRequest) -> TaskStore:
    factory: TaskStoreFactory = request.param
    return factory(request)


def started(owner: str = "w1", lease_until: str = NOW) -> TaskRecord:
    return TaskRecord(
        task_id=uuid.uuid4().hex,
        tool="wait_for_comments",
        created_at="2026-01-01T12:00:00.000Z",
        updated_at="2026-01-01T12:00:00.000Z",
        arguments={"branch": "feat/x", "cursor": "2026-01-01T11:00:00.000Z"},
        owner=owner,
        lease_until=lease_until,
    )


def test_a_record_reads_back_as_it_was_kept(tasks: TaskStore) -> None:
    record = started()
    tasks.create(record)
    assert tasks.get(record.task_id) == record
    assert tasks.get("no-such-task") is None


def test_a_task_ends_once(tasks: TaskStore) -> None:
    record = started()
    tasks.create(record)
    result = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"n": 1.5}}
    ended = tasks.finish(
        record.task_id, TaskEnd(TaskStatus.COMPLETED, "completed", "t1", LATER, result=result)
    )
    assert ended is not None
    assert (ended.status, ended.message, ended.result, ended.finished_at) == (
        TaskStatus.COMPLETED,
        "completed",
        result,
        LATER,
    )
    again = TaskEnd(TaskStatus.CANCELLED, "cancelled", "t2", LATER)
    assert tasks.finish(record.task_id, again) is None
    assert tasks.get(record.task_id) == ended
    assert tasks.finish("no-such-task", TaskEnd(TaskStatus.FAILED, "x", "t", LATER)) is None


def test_renewing_extends_the_owners_leases_and_names_the_tasks_it_lost(
    tasks: TaskStore,
) -> None:
    kept, cancelled, other = started(), started(), started(owner="w2")
    for record in (kept, cancelled, other):
        tasks.create(record)
    by_client = TaskEnd(TaskStatus.CANCELLED, "cancelled by the client", "t", NOW)
    tasks.finish(cancelled.task_id, by_client)
    ids = [kept.task_id, cancelled.task_id, other.task_id, "forgotten"]
    assert tasks.renew("w1", ids, LATER) == {cancelled.task_id, other.task_id, "forgotten"}
    renewed = tasks.get(kept.task_id)
    assert renewed is not None
    assert renewed.lease_until == LATER
    assert tasks.renew("w1", [], LATER) == set()


def test_only_a_task_whose_lease_ran_out_is_taken_over(tasks: TaskStore) -> None:
    live, lapsed = started(lease_until=LATER), started(lease_until=EARLY)
    tasks.create(live)
    tasks.create(lapsed)
    assert tasks.take_over(live.task_id, "w2", NOW, LATER) is None
    taken = tasks.take_over(lapsed.task_id, "w2", NOW, LATER)
    assert taken is not None
    assert (taken.owner, taken.lease_until, taken.arguments) == ("w2", LATER, lapsed.arguments)
    assert tasks.renew("w1", [lapsed.task_id], LATER) == {lapsed.task_id}  # w1 lost it
    tasks.finish(live.task_id, TaskEnd(TaskStatus.COMPLETED, "completed", "t", NOW))
    assert tasks.take_over(live.task_id, "w2", LATER, LATER) is None  # ended: nothing to take


def test_of_two_workers_racing_for_a_lapsed_task_one_takes_it(tasks: TaskStore) -> None:
    lapsed = started(lease_until=EARLY)
    tasks.create(lapsed)
    winners: list[str] = []
    barrier = threading.Barrier(4)

    def take(owner: str) -> None:
        barrier.wait()
        if tasks.take_over(lapsed.task_id, owner, NOW, LATER) is not None:
            winners.append(owner)

    racers = [threading.Thread(target=take, args=(f"w{i}",)) for i in range(4)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(30)
    assert len(winners) == 1
    found = tasks.get(lapsed.task_id)
    assert found is not None
    assert found.owner == winners[0]


def test_forgetting_drops_only_tasks_that_ended_long_enough_ago(tasks: TaskStore) -> None:
    old, recent, running = started(), started(), started()
    for record in (old, recent, running):
        tasks.create(record)
    tasks.finish(old.task_id, TaskEnd(TaskStatus.COMPLETED, "completed", "t", EARLY))
    tasks.finish(recent.task_id, TaskEnd(TaskStatus.FAILED, "failed", "t", LATER))
    tasks.forget(NOW)
    assert tasks.get(old.task_id) is None
    assert tasks.get(recent.task_id) is not None
    assert tasks.get(running.task_id) is not None
