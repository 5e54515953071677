"""Maple's ``timeout.test.ts``: the wait budget."""

from __future__ import annotations

import math

import pytest

from maple_core.comments import Comment
from maple_core.wait import (
    DEFAULT_WAIT_MS,
    MAX_WAIT_MS,
    MIN_WAIT_MS,
    PROGRESS_INTERVAL_MS,
    clamp_wait_ms,
)
from maple_core.waiting import Look, Progress, Sleep, wait_plan


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        (None, 30_000),
        (20_000, 20_000),
        (120_000, 55_000),
        (5, 1_000),
        (-1, 1_000),
        (math.nan, 30_000),
        (math.inf, 30_000),
        (-math.inf, 30_000),
        (20_000.9, 20_000),
        (1_000.5, 1_000),
    ],
)
def test_clamp(requested: float | None, expected: int) -> None:
    assert clamp_wait_ms(requested) == expected


def test_constants_stay_under_every_clients_ceiling() -> None:
    assert (DEFAULT_WAIT_MS, MIN_WAIT_MS, MAX_WAIT_MS) == (30_000, 1_000, 55_000)
    assert MAX_WAIT_MS < 60_000
    assert 2 * PROGRESS_INTERVAL_MS < MAX_WAIT_MS


class _Time:
    """A monotonic clock the test moves: each Sleep passes the whole of its seconds."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _comment(stamp: str) -> Comment:
    return Comment.from_json(
        {"id": f"c-{stamp}", "branch": "b", "body": "x", "status": "open", "receivedAt": stamp}
    )


def test_an_idle_plan_looks_at_once_relists_as_a_safety_net_reports_progress_and_times_out() -> (
    None
):
    time = _Time()
    plan = wait_plan("2026-01-01T00:00:00.000000Z", 40_000, time, relist_s=5, progress_s=15)
    steps: list[object] = []
    reply: object = None
    try:
        while True:
            step = plan.send(reply)
            steps.append(step)
            if isinstance(step, Look):
                reply = []
            elif isinstance(step, Sleep):
                time.now += step.seconds
                reply = False
            else:
                reply = None
    except StopIteration as done:
        found = done.value
    assert found.timed_out
    assert found.cursor == "2026-01-01T00:00:00.000000Z"
    assert steps[0] == Look()
    assert [s for s in steps if isinstance(s, Progress)] == [Progress(15, 40), Progress(30, 40)]
    assert sum(isinstance(s, Look) for s in steps) == 1 + 8  # then every 5 s of 40
    assert time.now == 140


def test_a_plan_looks_again_when_the_branch_changes_and_returns_what_is_fresh() -> None:
    time = _Time()
    plan = wait_plan("2026-01-01T00:00:00.000000Z", 30_000, time)
    assert plan.send(None) == Look()
    assert plan.send([]) == Sleep(30)
    time.now += 2
    assert plan.send(True) == Look()
    fresh = _comment("2026-01-02T00:00:00.000000Z")
    with pytest.raises(StopIteration) as done:
        plan.send([fresh])
    assert done.value.value.comments == (fresh,)
