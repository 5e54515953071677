"""The wait cursor: which comments a waiting agent has not seen yet.

Maple compares ``createdAt`` strings, so comments sharing a timestamp, or written by a client
whose clock is behind, are skipped. maple's stores stamp every append with ``receivedAt``
(microsecond UTC, strictly increasing per ledger), and freshness is judged on that stamp, falling
back to ``createdAt`` for comments Maple wrote. The cursor stays a timestamp string, so a Maple
cursor is accepted as input and ours is readable by people.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from maple_core.comments import Comment
from maple_core.errors import InvalidCursorError

__all__ = [
    "EPOCH_CURSOR",
    "FreshComments",
    "format_js_timestamp",
    "format_stamp",
    "latest_stamp",
    "newest_first",
    "next_arrival_stamp",
    "parse_cursor",
    "parse_stamp",
    "select_fresh",
    "wakes_agent",
]

EPOCH_CURSOR = "1970-01-01T00:00:00.000Z"
"""The cursor Maple starts from when none is given."""

_ONE_MICROSECOND = timedelta(microseconds=1)


def parse_stamp(text: str) -> datetime | None:
    """Return the UTC instant an ISO 8601 stamp names, or ``None`` when it names none.

    A stamp without an offset is read as UTC.
    """
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        return None
    if instant.tzinfo is None:
        return instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC)


def parse_cursor(cursor: str) -> datetime:
    """Return the instant a wait cursor names.

    Raises:
        InvalidCursorError: the cursor is not an ISO 8601 timestamp.
    """
    instant = parse_stamp(cursor)
    if instant is None:
        raise InvalidCursorError(
            f"The cursor {cursor!r} is not a timestamp. Pass the cursor a previous wait "
            "returned, or omit it to drain every comment already there."
        )
    return instant


def format_stamp(instant: datetime) -> str:
    """Format an instant as maple's arrival stamp: ``YYYY-MM-DDTHH:MM:SS.ffffffZ``."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def format_js_timestamp(instant: datetime) -> str:
    """Format an instant as JavaScript's ``toISOString()`` does (milliseconds, ``Z``)."""
    utc = instant.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def next_arrival_stamp(now: datetime, stamps: Iterable[str | None]) -> datetime:
    """Return the arrival instant for the next append to a ledger holding ``stamps``.

    It is ``now``, or one microsecond after the latest stamp already in the ledger when the
    clock is behind it, so arrival stamps are strictly increasing per ledger.
    """
    latest = latest_stamp(stamps)
    latest_instant = parse_stamp(latest) if latest is not None else None
    now = now.astimezone(UTC)
    if latest_instant is not None and now <= latest_instant:
        return latest_instant + _ONE_MICROSECOND
    return now


def latest_stamp(stamps: Iterable[str | None]) -> str | None:
    """The stamp naming the latest instant, or ``None`` when none is readable."""
    best: str | None = None
    best_instant: datetime | None = None
    for stamp in stamps:
        instant = parse_stamp(stamp) if stamp else None
        if instant is not None and (best_instant is None or instant > best_instant):
            best, best_instant = stamp, instant
    return best


def newest_first(comments: Iterable[Comment]) -> list[Comment]:
    """Sort newest first by ``createdAt``, keeping store order among equals (as Maple does)."""
    return sorted(comments, key=lambda c: c.created_at or "", reverse=True)


@dataclass(frozen=True, slots=True)
class FreshComments:
    """What a wait found: the fresh comments (newest first) and the cursor to pass next time."""

    comments: tuple[Comment, ...]
    cursor: str

    @property
    def timed_out(self) -> bool:
        """True when nothing was fresh (a wait that ends like this timed out)."""
        return not self.comments


def select_fresh(comments: Sequence[Comment], cursor: str | None) -> FreshComments:
    """Pick the comments a waiter holding ``cursor`` has not seen.

    Without a cursor every comment is fresh (the first wait drains what is waiting). With one, a
    comment is fresh when its arrival stamp is later than the cursor, or when a reviewer's reply
    in its thread arrived later (the agent's own replies and a reviewer's confirmation never
    wake it); a comment with no
    readable stamp is fresh only on a drain. The returned cursor is the latest such stamp among
    the fresh comments, or the given cursor (``EPOCH_CURSOR`` when none) when nothing is fresh.

    Raises:
        InvalidCursorError: ``cursor`` is not a timestamp.
    """
    since = parse_cursor(cursor) if cursor is not None else None
    fresh: list[Comment] = []
    best_text: str | None = None
    best: datetime | None = since
    for comment in comments:
        seen = False
        for stamp in _wake_stamps(comment):
            instant = parse_stamp(stamp) if stamp else None
            if since is not None and (instant is None or instant <= since):
                continue
            seen = True
            if instant is not None and (best is None or instant > best):
                best, best_text = instant, stamp
        if seen or since is None:
            fresh.append(comment)
    if best_text is None:
        best_text = cursor if cursor is not None else EPOCH_CURSOR
    return FreshComments(comments=tuple(newest_first(fresh)), cursor=best_text)


def wakes_agent(entry: Mapping[str, object]) -> bool:
    """Whether a thread entry (its JSON) asks something of a waiting agent.

    A reviewer's reply or reopening does (an entry whose role is not ``agent`` is a
    reviewer's); the agent's own words and a reviewer's confirmation do not.
    """
    return entry.get("role") != "agent" and entry.get("kind") != "confirm"


def _wake_stamps(comment: Comment) -> Iterator[str | None]:
    """The stamps that make a comment fresh: its arrival, and its reviewers' replies'.

    A reviewer's confirmation asks nothing of the agent, so it wakes nobody.
    """
    yield comment.arrival
    replies = comment.extra.get("replies")
    if isinstance(replies, list):
        for reply in replies:
            if isinstance(reply, dict) and wakes_agent(reply):
                stamp = reply.get("receivedAt")
                yield stamp if isinstance(stamp, str) else None
