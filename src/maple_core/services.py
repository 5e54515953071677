"""Use cases written against the ports: list a branch's comments, and wait for new ones.

Every entrypoint (the MCP server, the CLI, the route, the Stop hook) calls these; none repeats
them. Progress, cancellation and logging come in as callbacks, so the use cases stay free of
any transport.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from maple_core.comments import Comment
from maple_core.cursor import FreshComments, newest_first, select_fresh
from maple_core.paging import ListQuery
from maple_core.ports import (
    Clock,
    CommentStore,
)
from maple_core.statuses import CommentStatus

__all__ = [
    "Look",
    "Progress",
    "Sleep",
    "WaitPlan",
    "advance",
    "list_all",
    "look",
    "usable",
    "wait_for_comments",
    "wait_plan",
]

_MAX_COMMENTS = 10_000


def list_all(
    store: CommentStore,
    branch: str,
    statuses: Iterable[CommentStatus] | None = None,
    *,
    report: Callable[[str], None] | None = None,
) -> list[Comment]:
    """Every comment on ``branch`` (optionally only some statuses), newest first.

    A stored record in a bad shape never breaks the listing: one without a string id (nobody
    could resolve it) is left out, one with other fields maple cannot read is kept with those
    fields read as absent, and each is described to ``report``.
    """
    wanted = frozenset(statuses) if statuses is not None else None
    gathered: list[Comment] = []
    cursor: str | None = None
    while True:
        page = store.list(ListQuery(branch=branch, statuses=wanted, cursor=cursor))
        gathered += usable(page.comments, branch, report)
        cursor = page.cursor
        if cursor is None or len(gathered) >= _MAX_COMMENTS:
            return newest_first(gathered)


def look(
    store: CommentStore, branch: str, *, report: Callable[[str], None] | None = None
) -> tuple[list[Comment], Hashable]:
    """The usable comments on ``branch`` newest first, and the change token of that same read.

    One read of the store (:meth:`~maple_core.ports.CommentStore.state`): a wait's look, after
    which it sleeps on the token. Records in a bad shape are handled as :func:`list_all` does.
    """
    state = store.state(branch)
    return newest_first(usable(state.comments, branch, report)), state.token


def usable(
    comments: Iterable[Comment], branch: str, report: Callable[[str], None] | None
) -> list[Comment]:
    """The comments that have an id, each one in a bad shape described to ``report``.

    Every reading of a branch (a listing, a wait's look, the gate's read) keeps these alone.
    """
    kept: list[Comment] = []
    for comment in comments:
        if comment.problems and report is not None:
            report(_described_problems(comment, branch))
        if comment.id:
            kept.append(comment)
    return kept


def _described_problems(comment: Comment, branch: str) -> str:
    fields = ", ".join(comment.problems)
    if not comment.id:
        return (
            f"A comment on {branch} has no readable id ({fields} cannot be read), so it is left "
            "out; fix or remove it where the store keeps it."
        )
    return (
        f"Comment {comment.id} on {branch} has fields maple cannot read ({fields}); they are "
        "left out of what is shown."
    )


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


def wait_plan(
    cursor: str | None,
    budget_ms: int,
    now: Callable[[], float],
    *,
    relist_s: float | None = None,
    progress_s: float | None = None,
) -> WaitPlan:
    """The wait for comments newer than ``cursor``, up to ``budget_ms``, as steps to drive.

    The first :class:`Look` comes at once, so a wait without a cursor drains what is waiting.
    After that it looks again only when a :class:`Sleep` says the branch changed, or every
    ``relist_s`` seconds as a safety net under the change signal; every ``progress_s`` seconds
    it asks for a :class:`Progress` report. Nothing fresh by the deadline is a normal result
    with no comments and the cursor unchanged. ``now`` is a monotonic clock in seconds; the
    budget starts when the plan is made. Cancelling is the driver's: it stops driving.

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp (at the first look).
    """
    return _planned(cursor, now(), budget_ms / 1000, now, relist_s, progress_s)


def _planned(
    cursor: str | None,
    start: float,
    budget_s: float,
    now: Callable[[], float],
    relist_s: float | None,
    progress_s: float | None,
) -> WaitPlan:
    deadline = start + budget_s
    next_progress = start + progress_s if progress_s else math.inf
    found = select_fresh(_listed((yield Look())), cursor)
    next_relist = now() + relist_s if relist_s else math.inf
    while not found.comments:
        moment = now()
        if moment >= deadline:
            break
        if progress_s and moment >= next_progress:
            yield Progress(round(moment - start, 3), budget_s)
            next_progress += progress_s
        changed = yield Sleep(min(deadline, next_progress, next_relist) - moment)
        if changed or now() >= next_relist:
            found = select_fresh(_listed((yield Look())), cursor)
            next_relist = now() + relist_s if relist_s else math.inf
    return found


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
) -> FreshComments:
    """Wait up to ``budget_ms`` for comments on ``branch`` newer than ``cursor`` (blocking).

    Drives :func:`wait_plan` with the store: it sleeps on the store's change signal between
    looks. Records in a bad shape are left out or read in part, and described to ``report``
    (see :func:`list_all`).

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    plan = wait_plan(cursor, budget_ms, clock.monotonic)
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
