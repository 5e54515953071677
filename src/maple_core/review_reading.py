"""Reading a pull request's own review into maple comments, each stamped when first seen.

:func:`read_review` maps what the GitHub adapter read (a
:class:`~maple_core.pull_review.PullRequestReview`) into the work and the words held apart;
:class:`FirstSight` gives what it sees first an arrival stamp on the store's scale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from maple_core.comments import Comment
from maple_core.cursor import format_stamp, latest_stamp, next_arrival_stamp
from maple_core.pull_review import Mark, PullRequestReview, ReviewReading
from maple_core.review_items import latest_decisions, read_conversation_comment, read_review_body
from maple_core.review_reader import Arrival, ReviewReader
from maple_core.review_threads import read_thread
from maple_core.trust import TrustPolicy

__all__ = ["FirstSight", "read_review"]


class FirstSight:
    """Arrival stamps for what a read sees: kept ones, and new ones for what it sees first.

    GitHub stamps comments with its own clock, to the second, so its times cannot be compared
    with a wait cursor taken from maple's stamps. Each thing that should wake an agent gets
    instead the stamp of the read that first saw it: ``now``, or just after every stamp known
    (``floor``, the ledger's, and every kept one), strictly increasing. A cursor an agent got
    from an earlier read is then always older than what a later read sees first.

    Args:
        seen: the stamps kept so far, by key.
        now: the reading's time.
        floor: other stamps the new ones must come after (the ledger's).
    """

    def __init__(
        self, seen: Mapping[str, str], now: datetime, floor: Iterable[str | None] = ()
    ) -> None:
        self._seen = dict(seen)
        self._now = now
        self._latest = latest_stamp([*floor, *self._seen.values()])
        self.new: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        """The stamp ``key`` arrived at, giving it one now if it has none."""
        known = self._seen.get(key)
        if known is not None:
            return known
        stamp = format_stamp(next_arrival_stamp(self._now, [self._latest]))
        self._seen[key] = self.new[key] = self._latest = stamp
        return stamp


def read_review(
    review: PullRequestReview,
    policy: TrustPolicy,
    arrival: Arrival,
    marks: Mapping[str, Mark] | None = None,
) -> ReviewReading:
    """The pull request's review as comments: the work, and what is held apart.

    ``arrival`` stamps each thing an agent should be woken by when it first appears (an item, a
    reviewer's reply, a reopening) on the store's strictly increasing scale, so a waiting
    agent's cursor never skips one; ``marks`` are the ledger's records for reviews and
    conversation comments.
    """
    reader = ReviewReader(review, policy, arrival, marks or {})
    comments: list[Comment] = []
    for thread in review.threads:
        comments += read_thread(reader, thread)
    latest = latest_decisions(review.reviews)
    for item in review.reviews:
        comments += read_review_body(reader, item, latest)
    for note in review.conversation:
        comments += read_conversation_comment(reader, note)
    return ReviewReading(tuple(comments), tuple(reader.held))
