"""The route's request parameters: a listing's query string, and a body's ``branch`` and ``note``.

Each reader returns a value the route acts on or raises
:class:`~maple_core.errors.InvalidQueryError` (or :class:`~maple_core.errors.InvalidRecordError`)
with a message that names the parameter and the fix. A comment's own shape is the core's to
check (:mod:`maple_core.submissions`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from maple_core.errors import InvalidQueryError, InvalidRecordError
from maple_core.json_types import JsonValue
from maple_core.paging import ListQuery
from maple_core.statuses import CommentStatus

__all__ = ["read_branch", "read_list_query", "read_note"]


def read_branch(value: JsonValue) -> str:
    """The non-empty string ``branch`` of a JSON body (``/approvals``, ``/gate/refresh``).

    Raises:
        InvalidRecordError: ``A branch is required``.
    """
    branch = value.get("branch") if isinstance(value, dict) else None
    if not isinstance(branch, str) or not branch:
        raise InvalidRecordError('A branch is required: send {"branch": "<head branch>"}.')
    return branch


def read_note(value: JsonValue) -> str | None:
    """The optional non-empty string ``note`` of a JSON body."""
    note = value.get("note") if isinstance(value, dict) else None
    return note if isinstance(note, str) and note else None


def read_list_query(params: Mapping[str, Sequence[str]]) -> ListQuery:
    """A listing from query parameters ``branch``, ``cursor``, ``limit`` and ``status`` (repeated).

    Unknown statuses are ignored, as Maple's route ignores them.

    Raises:
        InvalidQueryError: no branch, or a limit that is not a positive whole number.
    """
    branch = _first(params, "branch")
    if not branch:
        raise InvalidQueryError("A branch is required: add ?branch=<head branch> to the URL.")
    limit_text = _first(params, "limit")
    limit: int | None = None
    if limit_text is not None:
        if not re.fullmatch(r"[0-9]{1,9}", limit_text) or int(limit_text) <= 0:
            raise InvalidQueryError(
                f"limit must be positive, received {limit_text}; send a whole number of 1 or more."
            )
        limit = int(limit_text)
    wanted = frozenset(
        CommentStatus(s) for s in params.get("status", ()) if s in CommentStatus._value2member_map_
    )
    return ListQuery(
        branch=branch,
        statuses=wanted or None,
        cursor=_first(params, "cursor"),
        limit=limit,
    )


def _first(params: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = params.get(name)
    return values[0] if values else None
