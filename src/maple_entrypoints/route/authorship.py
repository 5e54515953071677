"""Who wrote a comment, and who may edit or delete it.

A route that identifies reviewers records the reviewer as the author (``provenance: "server"``).
A route with ``client_authors`` on (``maple review``'s, serving the one person at this machine)
lets a caller without an identity name itself: the ``author`` a comment is posted with,
``{"id": "<browser's id>", "name": "<name typed>"}``, is recorded as
``{id: "browser:<id>", name, provenance: "client"}``, and an edit or delete names the same id in
the ``x-maple-author`` header. Anywhere else a caller without an identity is the guest, who can
write comments but change none. A comment is changed only by its author, and only while open.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from maple_core.authors import Reviewer, client_author, guest_author
from maple_core.comments import Comment
from maple_core.json_types import JsonObject, JsonValue
from maple_core.statuses import CommentStatus
from maple_entrypoints.route.answers import RouteRefusalError

__all__ = ["AUTHOR_HEADER", "author_of_post", "caller_id", "own_open_comment"]

AUTHOR_HEADER = "x-maple-author"
"""The header an edit or delete names its browser's author id in (``client_authors`` routes)."""

_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
_MAX_NAME = 80
_PREFIX = "browser:"


def _named(posted: JsonValue) -> JsonObject | None:
    """The author a posted comment (or the first of an array) names itself, when well formed."""
    first = posted[0] if isinstance(posted, list) and posted else posted
    claim = first.get("author") if isinstance(first, dict) else None
    if not isinstance(claim, dict):
        return None
    claimed_id, name = claim.get("id"), claim.get("name")
    if not isinstance(claimed_id, str) or not _CLIENT_ID.fullmatch(claimed_id):
        return None
    shown = " ".join(name.split())[:_MAX_NAME] if isinstance(name, str) else ""
    return client_author(_PREFIX + claimed_id, shown or "Guest")


def author_of_post(
    posted: JsonValue, reviewer: Reviewer | None, *, client_authors: bool
) -> JsonObject:
    """The author recorded for the comments of one ``POST /comments``.

    The identified reviewer; else, on a ``client_authors`` route, the author the first (or only)
    comment names; else the guest.
    """
    if reviewer is not None:
        return reviewer.author()
    named = _named(posted) if client_authors else None
    return named if named is not None else guest_author()


def caller_id(header: str | None, reviewer: Reviewer | None, *, client_authors: bool) -> str:
    """The author id the caller of an edit or delete is, or a 401 refusal when it is nobody.

    Raises:
        RouteRefusalError: 401, for a guest.
    """
    if reviewer is not None:
        return reviewer.id
    if client_authors and header is not None and _CLIENT_ID.fullmatch(header):
        return _PREFIX + header
    raise RouteRefusalError(401, "Sign in before you can change a comment")


def own_open_comment(caller: str) -> Callable[[Comment], None]:
    """The check a store runs on the comment before an edit or delete by ``caller``.

    Raises (from the check):
        RouteRefusalError: 403 for another author's comment, 409 for one no longer open.
    """

    def check(comment: Comment) -> None:
        author = comment.extra.get("author")
        if not isinstance(author, dict) or author.get("id") != caller:
            raise RouteRefusalError(403, "Only the comment's author can change it")
        if comment.status is not CommentStatus.OPEN:
            raise RouteRefusalError(
                409,
                f"This comment is {comment.status.value}; only an open comment can be changed",
            )

    return check
