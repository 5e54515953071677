"""List queries and pages, and the offset paging the memory and file stores share."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from maple_core.comments import Comment
from maple_core.errors import InvalidQueryError
from maple_core.statuses import CommentStatus

__all__ = [
    "CommentPage",
    "ListQuery",
    "decode_decimal_cursor",
    "decode_offset_cursor",
    "encode_offset_cursor",
    "page_of",
]


@dataclass(frozen=True, slots=True)
class ListQuery:
    """Which comments to list: one branch, optionally some statuses, optionally one page."""

    branch: str
    statuses: frozenset[CommentStatus] | None = None
    cursor: str | None = None
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class CommentPage:
    """One page of a listing; ``cursor`` is absent on the last page."""

    comments: tuple[Comment, ...]
    cursor: str | None = None


def encode_offset_cursor(offset: int) -> str:
    """Encode an offset as Maple's page cursor: base64url, no padding (2 → ``Mg``)."""
    return base64.urlsafe_b64encode(str(offset).encode()).decode().rstrip("=")


def decode_offset_cursor(cursor: str) -> int:
    """Decode a page cursor made by :func:`encode_offset_cursor`.

    Raises:
        InvalidQueryError: the cursor was not made by this store.
    """
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    if not text.isdigit() or not text.isascii():
        raise InvalidQueryError(
            f"Invalid cursor: {cursor}. Pass a cursor a previous page returned."
        )
    return int(text)


def decode_decimal_cursor(cursor: str) -> int:
    """Decode the GitHub store's page cursor: the decimal offset itself (``"2"``).

    Raises:
        InvalidQueryError: the cursor is not a decimal offset.
    """
    if not cursor.isdigit() or not cursor.isascii():
        raise InvalidQueryError(
            f"Invalid cursor: {cursor}. Pass a cursor a previous page returned."
        )
    return int(cursor)


def page_of(
    comments: Iterable[Comment],
    query: ListQuery,
    *,
    encode: Callable[[int], str] = encode_offset_cursor,
    decode: Callable[[str], int] = decode_offset_cursor,
) -> CommentPage:
    """Filter ``comments`` (in store order) by the query's branch and statuses, then page them.

    Page cursors are base64url offsets unless other ``encode``/``decode`` functions are given.

    Raises:
        InvalidQueryError: the limit is not positive or the cursor is not one of ours.
    """
    if query.limit is not None and query.limit <= 0:
        raise InvalidQueryError(f"limit must be positive, received {query.limit}")
    offset = decode(query.cursor) if query.cursor is not None else 0
    statuses = query.statuses
    matching: Sequence[Comment] = [
        c
        for c in comments
        if c.branch == query.branch and (statuses is None or c.status in statuses)
    ]
    end = len(matching) if query.limit is None else offset + query.limit
    cursor = encode(end) if end < len(matching) else None
    return CommentPage(comments=tuple(matching[offset:end]), cursor=cursor)
