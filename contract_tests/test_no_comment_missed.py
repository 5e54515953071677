"""No comment, and no reviewer's reply, is ever missed by an agent passing each wait's cursor on.

Maple judged freshness on the client's ``createdAt`` string, so comments sharing a timestamp or
written with a clock behind the cursor were skipped. Here any client ``createdAt``, equal
timestamps and a store clock that jumps backwards are all allowed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.conftest import StoreFactory
from contract_tests.support import FakeClock
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.conversation import Role, thread_of
from maple_core.resolving import converse
from maple_core.thread_events import ThreadEvent
from maple_core.waiting import wait_for_comments

CLIENT_STAMPS = st.one_of(
    st.none(),
    st.just("2026-01-01T12:00:00.000Z"),
    st.datetimes(
        min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
    ).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"),
)
CLOCK_STEPS = st.sampled_from([0.0, 0.001, -60.0, 5.0])
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), CLIENT_STAMPS, CLOCK_STEPS),
        st.tuples(st.just("wait"), st.none(), st.just(0.0)),
        st.tuples(st.sampled_from(["reviewer", "agent"]), st.none(), CLOCK_STEPS),
    ),
    max_size=30,
)


@pytest.mark.timeout(900)  # over the real gh, each step is a few subprocesses
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS)
def test_every_comment_and_reviewer_reply_is_returned_at_least_once(
    store_factory: StoreFactory,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
    steps: list[tuple[str, str | None, float]],
) -> None:
    clock = FakeClock()
    base = Path(tmp_path_factory.mktemp("missed"))
    store = store_factory(clock, base, request)
    real = SystemClock()
    appended: set[str] = set()
    seen: set[str] = set()
    cursor: str | None = None
    latest: str | None = None  # the comment replies go to

    def wait() -> None:
        nonlocal cursor
        found = wait_for_comments(store, "feat/contract", cursor, 0, real)
        for comment in found.comments:
            seen.add(comment.id)
            seen.update(r.id for r in thread_of(comment) if r.role is Role.REVIEWER)
        cursor = found.cursor

    for kind, created_at, step in steps:
        clock.advance(step)
        if kind == "append":
            stored = store.append(
                NewComment(branch="feat/contract", body="x", created_at=created_at)
            )
            appended.add(stored.id)
            latest = stored.id
        elif kind == "wait":
            wait()
        elif latest is not None:
            role = Role(kind)
            replied = converse(store, latest, ThreadEvent.reply(role, "y"))
            if role is Role.REVIEWER:
                appended.add(thread_of(replied)[-1].id)
    wait()
    assert appended <= seen
