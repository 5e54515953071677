"""Reading a branch's comments through any store: every page, newest first, each one usable.

A stored record in a bad shape never breaks a reading: one without a string id is left out, one
with other fields maple cannot read is kept with them read as absent, and each is described.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from maple_core.comments import Comment
from maple_core.cursor import newest_first
from maple_core.paging import ListQuery
from maple_core.ports import CommentStore
from maple_core.statuses import CommentStatus

__all__ = ["list_all", "look", "usable"]

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
