"""Comment statuses and which of them hold a merge gate."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["BLOCKING_STATUSES", "CommentStatus"]


class CommentStatus(StrEnum):
    """Where a review comment stands.

    ``open`` is written on append, ``resolved`` by a resolve. ``needs_reverify`` and ``orphaned``
    are accepted and stored as Maple does, though nothing in Maple writes them.
    """

    OPEN = "open"
    RESOLVED = "resolved"
    NEEDS_REVERIFY = "needs_reverify"
    ORPHANED = "orphaned"


BLOCKING_STATUSES: frozenset[CommentStatus] = frozenset(
    {CommentStatus.OPEN, CommentStatus.NEEDS_REVERIFY, CommentStatus.ORPHANED}
)
"""Statuses that hold the merge gate by default (Maple's ``BLOCKING_STATUSES``)."""
