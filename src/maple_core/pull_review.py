"""The pull request's own review as maple comments: threads, reviews and the conversation.

GitHub keeps three kinds of feedback beside maple's ledger, and each becomes a :class:`Comment`
with an id that names its kind, its pull request and GitHub's own id, so it is stable, never
mistaken for a ledger comment (``gh_<pull>_<n>``) and never collides with another:

- a **review thread** (``ghrt_<pull>_<first comment's id>``): its first comment's body, the
  replies as its thread, ``anchor.source`` ``path:line`` (the original line once GitHub marks the
  thread outdated), and in the context the diff hunk, ``outdated`` and the GitHub link. It is
  resolved when GitHub says so, reopened by a reviewer's reply after maple's resolution or by
  unresolving it;
- a **review** with a body (``ghrv_<pull>_<review id>``): its state and body; a dismissed one is
  no longer open work, and only a submitted one is ever read (a pending review is its author's);
- a **conversation comment** (``ghic_<pull>_<comment id>``) addressed to the work: not a ledger,
  not one maple wrote.

Reviews and conversation comments are resolved in maple's ledger (a :class:`Mark`); threads on
GitHub, where maple's reply names the commit. Each GitHub comment is judged by the
:class:`~maple_core.trust.TrustPolicy`: only trusted or endorsed words become work, the rest is
listed apart (:attr:`ReviewReading.held`).

This module holds the review as data: the ids, what GitHub holds (:class:`PullRequestReview`),
maple's records (:class:`Mark`) and the reading (:class:`ReviewReading`). Everything is pure: the
GitHub adapter builds a :class:`PullRequestReview`, and
:func:`~maple_core.review_reading.read_review` maps it (threads in ``review_threads.py``, reviews
and conversation comments in ``review_items.py``, maple's own posts in ``own_posts.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from maple_core.authors import color_slot
from maple_core.comments import Comment, Resolution
from maple_core.json_types import JsonObject
from maple_core.own_posts import OwnMark
from maple_core.statuses import CommentStatus
from maple_core.trust import Author, Endorsement

__all__ = [
    "AWAITING_READING",
    "GITHUB",
    "MAX_NOTE_CHARS",
    "Mark",
    "NOTE_PREFIX",
    "Note",
    "PullRequestReview",
    "Review",
    "ReviewKind",
    "ReviewReading",
    "ReviewRef",
    "ReviewState",
    "Thread",
    "github_author",
    "review_link",
    "review_ref",
]

GITHUB = "github"
"""The key of a comment's GitHub details (its kind, link, standing...): Maple ignores it."""
AWAITING_READING = "awaitingReading"
"""The key (under ``github`` on a thread entry) saying a trusted reply waits for its reading."""
MAX_NOTE_CHARS = 10_000
"""The longest body handed on, as for a comment posted to maple; the rest stays on GitHub."""


class ReviewKind(StrEnum):
    """The three kinds of a pull request's own feedback."""

    THREAD = "thread"
    REVIEW = "review"
    CONVERSATION = "conversation"


_PREFIXES = {ReviewKind.THREAD: "ghrt", ReviewKind.REVIEW: "ghrv", ReviewKind.CONVERSATION: "ghic"}
_KINDS = {prefix: kind for kind, prefix in _PREFIXES.items()}
_REF = re.compile(r"(ghrt|ghrv|ghic)_([1-9][0-9]{0,9})_([1-9][0-9]{0,19})")
NOTE_PREFIX = "ghrc"
"""The prefix of one GitHub comment inside a thread (``ghrc_<pull>_<id>``): an entry, or a held
reply."""


@dataclass(frozen=True, slots=True)
class ReviewRef:
    """What a review comment's id names: its kind, its pull request and GitHub's id."""

    kind: ReviewKind
    pull: int
    number: int

    @property
    def id(self) -> str:
        """The id maple shows: ``ghrt_<pull>_<id>``, ``ghrv_…`` or ``ghic_…``."""
        return f"{_PREFIXES[self.kind]}_{self.pull}_{self.number}"


def review_ref(comment_id: str) -> ReviewRef | None:
    """The review item ``comment_id`` names, or ``None`` for any other id (a ledger one)."""
    match = _REF.fullmatch(comment_id)
    if match is None:
        return None
    return ReviewRef(_KINDS[match.group(1)], int(match.group(2)), int(match.group(3)))


class ReviewState(StrEnum):
    """A submitted review's state (``PENDING`` reviews are never read)."""

    COMMENTED = "COMMENTED"
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    DISMISSED = "DISMISSED"


@dataclass(frozen=True, slots=True)
class Note:
    """One comment GitHub holds: in a thread, a review's body, or in the conversation.

    Attributes:
        id: GitHub's id for it.
        author: who wrote it.
        body: its Markdown, as written.
        created_at: when it was written (GitHub's time, ISO 8601).
        updated_at: when it was last edited (``created_at`` if never).
        url: its page on GitHub.
        endorsements: the 👍 reactions on it, by anyone (the policy says whose count).
        own: maple's mark, set by the reader only on a note maple's own login wrote.
    """

    id: int
    author: Author
    body: str
    created_at: str
    updated_at: str
    url: str | None = None
    endorsements: tuple[Endorsement, ...] = ()
    own: OwnMark | None = None


@dataclass(frozen=True, slots=True)
class Thread:
    """A review thread on a line of the diff.

    Attributes:
        root: the id of its first comment (the thread's id in maple).
        notes: its comments, oldest first, the first one first.
        path: the file.
        line: the line in the diff, ``None`` once the thread is outdated.
        original_line: the line it was written on.
        diff_hunk: the hunk it was written on.
        node_id: GraphQL's id for it (to resolve it and reply in it).
        resolved: GitHub marks it resolved.
        resolved_by: who resolved it, when GitHub says.
        outdated: GitHub marks it outdated (the line left the diff).
    """

    root: int
    notes: tuple[Note, ...]
    path: str
    line: int | None = None
    original_line: int | None = None
    diff_hunk: str = ""
    node_id: str | None = None
    resolved: bool = False
    resolved_by: str | None = None
    outdated: bool = False


@dataclass(frozen=True, slots=True)
class Review:
    """A submitted review: its body (a note) and state."""

    note: Note
    state: ReviewState
    commit: str | None = None


@dataclass(frozen=True, slots=True)
class Mark:
    """maple's ledger record of a review item's status and thread, and of its readings.

    ``readings`` are the readings of reviewers' words in a review thread, by entry id (what
    ``classification`` holds on a ledger comment's entry): kept here, so they are recorded,
    not recomputed, while the words themselves stay on GitHub.
    """

    status: CommentStatus = CommentStatus.OPEN
    resolution: Resolution | None = None
    replies: tuple[JsonObject, ...] = ()
    readings: Mapping[str, JsonObject] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PullRequestReview:
    """Everything the pull request's own review holds, as one read found it.

    Attributes:
        pull: the pull request's number.
        branch: its head branch.
        threads: its review threads.
        reviews: its submitted reviews, oldest first.
        conversation: its conversation comments, oldest first (ledgers already left out).
        own_logins: the logins maple posts as.
        reading: a classifier reads trusted reviewers' replies in threads (``MAPLE_CLASSIFIER``):
            such a reply after maple's resolution waits for its reading instead of reopening.
    """

    pull: int
    branch: str
    threads: tuple[Thread, ...] = ()
    reviews: tuple[Review, ...] = ()
    conversation: tuple[Note, ...] = ()
    own_logins: frozenset[str] = field(default_factory=frozenset)
    reading: bool = False


@dataclass(frozen=True, slots=True)
class ReviewReading:
    """The pull request's review as maple sees it.

    Attributes:
        comments: the work: trusted or endorsed items, as comments.
        held: words held apart (held items, and held replies in threads that are work), shown
            to reviewers only (``maple comments list --all``), never to the agent.
    """

    comments: tuple[Comment, ...]
    held: tuple[Comment, ...]


_LINK = re.compile(
    r"https://[A-Za-z0-9.:-]+/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/pull/[0-9]+"
    r"#(?:discussion_r|pullrequestreview-|issuecomment-)[0-9]+"
)


def review_link(comment: Comment) -> str | None:
    """A review item's GitHub link, when it is one (safe to put in Markdown as it is)."""
    details = comment.extra.get(GITHUB)
    url = details.get("url") if isinstance(details, dict) else None
    if review_ref(comment.id) is None or not isinstance(url, str) or not _LINK.fullmatch(url):
        return None
    return url


def github_author(author: Author) -> JsonObject:
    """A GitHub author in Maple's author shape (``provenance: github``)."""
    user_id = f"github:{author.login}"
    return {
        "id": user_id,
        "name": author.login,
        "provenance": GITHUB,
        "colorSlot": color_slot(user_id),
    }
