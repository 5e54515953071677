"""The wait for new comments, written once as steps any driver runs against the ports.

Every entrypoint (the MCP server, the CLI, the route, the Stop hook) calls these; none repeats
them. Progress, cancellation and logging come in as callbacks, so the use cases stay free of
any transport.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Hashable, Sequence
from dataclasses import dataclass
from typing import cast

from maple_core.comments import Comment
from maple_core.cursor import FreshComments, parse_cursor, select_fresh
from maple_core.listing import look
from maple_core.ports import Clock, CommentStore

__all__ = [
    "Look",
    "Pick",
    "Progress",
    "Sleep",
    "WaitPlan",
    "advance",
    "wait_for_comments",
    "wait_plan",
]


@dataclass(frozen=True, slots=True)
class Look:
    """A wait's step: list the branch now and send back its comments.

    The driver notes the branch's change signal just before it lists, so a change between the
    listing and the next :class:`Sleep` is never slept through.
    """


@dataclass(frozen=True, slots=True)
class Sleep:
    """A wait's step: sleep until the branch changes or ``seconds`` pass; send back if it did."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Progress:
    """A wait's step: report that ``elapsed`` of ``total`` seconds have passed; send back None."""

    elapsed: float
    total: float


WaitPlan = Generator[Look | Sleep | Progress, Sequence[Comment] | bool | None, FreshComments]
"""A wait written once, without I/O: its driver lists, sleeps and reports as the steps say."""


Pick = Callable[[Sequence[Comment]], tuple[FreshComments, float | None]]
"""A wait's choice from a look: what it returns (none: wait on), and the seconds until the
choice may change without any write (a claim lapsing), or ``None``."""


def wait_plan(
    cursor: str | None,
    budget_ms: int,
    now: Callable[[], float],
    *,
    relist_s: float | None = None,
    progress_s: float | None = None,
    pick: Pick | None = None,
) -> WaitPlan:
    """The wait for comments newer than ``cursor``, up to ``budget_ms``, as steps to drive.

    The first :class:`Look` comes at once, so a wait without a cursor drains what is waiting.
    After that it looks again only when a :class:`Sleep` says the branch changed, or every
    ``relist_s`` seconds as a safety net under the change signal; every ``progress_s`` seconds
    it asks for a :class:`Progress` report. Nothing fresh by the deadline is a normal result
    with no comments and the cursor unchanged. ``now`` is a monotonic clock in seconds; the
    budget starts when the plan is made. Cancelling is the driver's: it stops driving.

    ``pick`` chooses what a look returns (the fresh comments, by default); a claim-aware wait
    passes one that waits on while only other sessions' comments are fresh, and names when a
    claim lapses, so it looks again then.

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp (at the first look).
    """
    chosen = pick or (lambda comments: (select_fresh(comments, cursor), None))
    return _planned(now(), budget_ms / 1000, now, relist_s, progress_s, chosen)


def _planned(
    start: float,
    budget_s: float,
    now: Callable[[], float],
    relist_s: float | None,
    progress_s: float | None,
    pick: Pick,
) -> WaitPlan:
    deadline = start + budget_s
    next_progress = start + progress_s if progress_s else math.inf
    found, lapse = pick(_listed((yield Look())))
    next_relist = _relist_at(now(), relist_s, lapse)
    while not found.comments:
        moment = now()
        if moment >= deadline:
            break
        if progress_s and moment >= next_progress:
            yield Progress(round(moment - start, 3), budget_s)
            next_progress += progress_s
        changed = yield Sleep(max(min(deadline, next_progress, next_relist) - moment, 0.0))
        if changed or now() >= next_relist:
            found, lapse = pick(_listed((yield Look())))
            next_relist = _relist_at(now(), relist_s, lapse)
    return found


def _relist_at(moment: float, relist_s: float | None, lapse_s: float | None) -> float:
    """When a wait looks again unprompted: the safety net's time, or a claim's lapse if sooner."""
    at = moment + relist_s if relist_s else math.inf
    return min(at, moment + lapse_s) if lapse_s is not None else at


def advance(
    plan: WaitPlan, reply: Sequence[Comment] | bool | None
) -> Look | Sleep | Progress | FreshComments:
    """Send ``reply`` to the last step of ``plan``: the next step, or what the wait found."""
    try:
        return plan.send(reply)
    except StopIteration as done:
        return cast(FreshComments, done.value)


def _listed(sent: Sequence[Comment] | bool | None) -> Sequence[Comment]:
    if isinstance(sent, bool) or sent is None:
        raise TypeError("a Look is answered with the branch's comments")
    return sent


def wait_for_comments(
    store: CommentStore,
    branch: str,
    cursor: str | None,
    budget_ms: int,
    clock: Clock,
    *,
    report: Callable[[str], None] | None = None,
    pick: Pick | None = None,
) -> FreshComments:
    """Wait up to ``budget_ms`` for comments on ``branch`` newer than ``cursor`` (blocking).

    Drives :func:`wait_plan` with the store: it sleeps on the store's change signal between
    looks. Records in a bad shape are left out or read in part, and described to ``report``
    (see :func:`list_all`). ``pick`` chooses what a look returns (see :func:`wait_plan`).

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    if cursor is not None:
        parse_cursor(cursor)
    plan = wait_plan(cursor, budget_ms, clock.monotonic, pick=pick)
    changes = store.changes(branch)
    token: Hashable = None
    reply: Sequence[Comment] | bool | None = None
    while not isinstance(step := advance(plan, reply), FreshComments):
        if isinstance(step, Look):
            reply, token = look(store, branch, report=report)
        else:
            assert isinstance(step, Sleep)  # no progress was asked for
            reply = changes.wait(token, step.seconds)
    return step
