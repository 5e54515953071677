"""Use cases written against the ports: list everything, wait for fresh comments, resolve."""

from __future__ import annotations

from collections.abc import Iterable

from maple_core.comments import Comment, Resolution
from maple_core.cursor import FreshComments, format_js_timestamp, newest_first, select_fresh
from maple_core.errors import MissingCapabilityError
from maple_core.paging import ListQuery
from maple_core.ports import Capability, Clock, CommentStore
from maple_core.statuses import CommentStatus

__all__ = ["list_all", "resolve_comment", "wait_for_comments"]

_MAX_COMMENTS = 10_000


def list_all(
    store: CommentStore, branch: str, statuses: Iterable[CommentStatus] | None = None
) -> list[Comment]:
    """Every comment on ``branch`` (optionally only some statuses), newest first."""
    wanted = frozenset(statuses) if statuses is not None else None
    gathered: list[Comment] = []
    cursor: str | None = None
    while True:
        page = store.list(ListQuery(branch=branch, statuses=wanted, cursor=cursor))
        gathered.extend(page.comments)
        cursor = page.cursor
        if cursor is None or len(gathered) >= _MAX_COMMENTS:
            return newest_first(gathered)


def wait_for_comments(
    store: CommentStore,
    branch: str,
    cursor: str | None,
    budget_ms: int,
    clock: Clock,
) -> FreshComments:
    """Wait up to ``budget_ms`` for comments on ``branch`` newer than ``cursor``.

    The first look happens at once, so a call without a cursor drains what is waiting. Between
    looks it sleeps on the store's change signal. Nothing fresh by the deadline is a normal
    result with no comments and the cursor unchanged.

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    deadline = clock.monotonic() + budget_ms / 1000
    changes = store.changes(branch)
    while True:
        token = changes.token()
        found = select_fresh(list_all(store, branch), cursor)
        remaining = deadline - clock.monotonic()
        if found.comments or remaining <= 0:
            return found
        changes.wait(token, remaining)


def resolve_comment(
    store: CommentStore, comment_id: str, sha: str, note: str | None, clock: Clock
) -> Comment:
    """Mark a comment resolved, recording the commit that addressed it and when.

    Raises:
        MissingCapabilityError: the store cannot change a status.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise MissingCapabilityError(
            f"The {store.name} store cannot change a status; resolve the comment where it lives.",
            store=store.name,
            operation="set_status",
        )
    resolution = Resolution(sha=sha, note=note, at=format_js_timestamp(clock.now()))
    return store.set_status(comment_id, CommentStatus.RESOLVED, resolution)
