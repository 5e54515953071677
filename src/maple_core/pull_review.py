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
listed apart (:attr:`ReviewReading.held`). Everything here is pure: the reader in the GitHub
adapter builds a :class:`PullRequestReview`, and :func:`read_review` maps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from maple_core.anchors import Anchor
from maple_core.authors import color_slot
from maple_core.comments import Comment, Resolution
from maple_core.conversation import CLASSIFICATION, MAX_REPLIES, REPLIES, TRUST, ReplyKind, Role
from maple_core.cursor import format_stamp, latest_stamp, next_arrival_stamp
from maple_core.feedback import Classification, Transition, Trust
from maple_core.json_types import JsonObject, JsonValue
from maple_core.page_context import Context
from maple_core.statuses import CommentStatus
from maple_core.trust import Author, Endorsement, Standing, TrustPolicy

__all__ = [
    "AWAITING_READING",
    "Arrival",
    "FirstSight",
    "GITHUB",
    "MAX_NOTE_CHARS",
    "Mark",
    "Note",
    "OwnMark",
    "PullRequestReview",
    "Review",
    "ReviewKind",
    "ReviewReading",
    "ReviewRef",
    "ReviewState",
    "Thread",
    "github_author",
    "marked",
    "own_mark",
    "read_review",
    "resolve_reply",
    "review_link",
    "review_ref",
    "visible_text",
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
_NOTE_PREFIX = "ghrc"  # one GitHub comment inside a thread: an entry, or a held reply


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


# -- maple's own posts ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OwnMark:
    """What one of maple's own posts on GitHub is, from the hidden mark at its end.

    Attributes:
        kind: ``reply``, ``question`` or ``resolve``.
        sha: for ``resolve``, the commit it names.
        target: for a reply in the conversation, the item it answers (``ghic_…``/``ghrv_…``).
    """

    kind: str
    sha: str | None = None
    target: str | None = None


_MARK = re.compile(
    r"\n*<!-- maple:(reply|question|resolve)(?: ([0-9a-f]{7,64}|gh(?:ic|rv)_[0-9]+_[0-9]+))?"
    r" -->\s*\Z"
)


def marked(body: str, mark: OwnMark) -> str:
    """``body`` with the mark maple reads its own posts by (an HTML comment GitHub hides)."""
    detail = mark.sha or mark.target
    return f"{body.rstrip()}\n\n<!-- maple:{mark.kind}{' ' + detail if detail else ''} -->"


def own_mark(body: str) -> OwnMark | None:
    """The mark at the end of ``body``, if it carries one (trust it only from maple's login)."""
    match = _MARK.search(body)
    if match is None:
        return None
    kind, detail = match.group(1), match.group(2)
    if kind == "resolve":
        return OwnMark(kind, sha=detail) if detail and not detail.startswith("gh") else None
    target = detail if detail and detail.startswith("gh") else None
    return OwnMark(kind, target=target)


def visible_text(body: str) -> str:
    """``body`` without maple's mark: what people see on GitHub."""
    return _MARK.sub("", body).rstrip()


def resolve_reply(sha: str, note: str | None) -> str:
    """The reply maple posts in a thread it resolves: ``Addressed in `<sha>`: note``."""
    said = f"Addressed in `{sha}`" + (f": {note.strip()}" if note and note.strip() else ".")
    return marked(said, OwnMark("resolve", sha=sha))


def _resolve_note(body: str, sha: str) -> str | None:
    text = visible_text(body)
    for prefix in (f"Addressed in `{sha}`: ", f"Addressed in `{sha}`."):
        if text.startswith(prefix):
            return text[len(prefix) :].strip() or None
    return text or None


# -- what GitHub holds ---------------------------------------------------------------------


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


# -- the mapping ---------------------------------------------------------------------------

Arrival = Callable[[str], str]
"""Gives the arrival stamp of a key (first sight of a note in the state the key names)."""


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
    reader = _Reader(review, policy, arrival, marks or {})
    comments: list[Comment] = []
    for thread in review.threads:
        comments += reader.thread(thread)
    latest = _latest_decisions(review.reviews)
    for item in review.reviews:
        comments += reader.review(item, latest)
    for note in review.conversation:
        comments += reader.conversation(note)
    return ReviewReading(tuple(comments), tuple(reader.held))


def _latest_decisions(reviews: Sequence[Review]) -> dict[str, int]:
    """Each reviewer's latest deciding review (approve, request changes, dismissed)."""
    latest: dict[str, int] = {}
    for item in reviews:
        if item.state is not ReviewState.COMMENTED:
            latest[item.note.author.login.lower()] = item.note.id
    return latest


@dataclass
class _Reader:
    pr: PullRequestReview
    policy: TrustPolicy
    arrival: Arrival
    marks: Mapping[str, Mark]
    held: list[Comment] = field(default_factory=list)

    def _own(self, note: Note) -> bool:
        return note.own is not None and note.author.login.lower() in self._own_logins

    @property
    def _own_logins(self) -> frozenset[str]:
        return frozenset(login.lower() for login in self.pr.own_logins)

    def _standing(self, note: Note, later: Iterable[Note]) -> Standing:
        replies = [Endorsement(n.author, n.created_at, "reply") for n in later if not self._own(n)]
        return self.policy.standing(note.author, note.updated_at, [*note.endorsements, *replies])

    def _hold(
        self, held_id: str, note: Note, kind: ReviewKind, where: Anchor, reply_to: str | None = None
    ) -> None:
        details: JsonObject = {
            "kind": kind.value,
            "standing": Standing.HELD.value,
            "heldBecause": self.policy.why_held(note.author),
            "association": note.author.association,
        }
        if reply_to is not None:
            details["replyTo"] = reply_to
        if note.url is not None:
            details["url"] = note.url
        self.held.append(
            Comment(
                id=held_id,
                branch=self.pr.branch,
                body=_capped(note.body, note.url),
                created_at=note.created_at,
                anchor=where,
                context=Context(url=note.url) if note.url else None,
                extra={"author": github_author(note.author), GITHUB: details},
            )
        )

    # -- threads

    def thread(self, thread: Thread) -> list[Comment]:
        notes = thread.notes
        if not notes or self._own(notes[0]):
            return []
        pull = self.pr.pull
        ref = ReviewRef(ReviewKind.THREAD, pull, thread.root)
        line = thread.line or thread.original_line or 1
        anchor = Anchor(source=f"{thread.path}:{line}", located_by=GITHUB)
        standings = [self._standing(n, notes[i + 1 :]) for i, n in enumerate(notes)]
        first = notes[0]
        if standings[0] is Standing.HELD:
            self._hold(ref.id, first, ReviewKind.THREAD, anchor)
            return []
        mark = self.marks.get(ref.id, Mark())
        entries: list[JsonValue] = [*mark.replies]
        last_resolve: Note | None = None
        answered: list[JsonObject] = []  # reviewers' words after maple's latest resolution
        for note, standing in zip(notes[1:], standings[1:], strict=True):
            if self._own(note):
                entries.append(self._own_entry(note))
                if note.own is not None and note.own.kind == "resolve":
                    last_resolve, answered = note, []
            elif standing is Standing.HELD:
                held_id = f"{_NOTE_PREFIX}_{pull}_{note.id}"
                self._hold(held_id, note, ReviewKind.THREAD, anchor, reply_to=ref.id)
            else:
                entry = self._reviewer_entry(note, standing, mark)
                entries.append(entry)
                answered.append(entry)
        reopening = [e for e in answered if self._reopens(e)]
        status, resolution = self._thread_status(thread, last_resolve, bool(reopening))
        by_maple = (thread.resolved_by or "").lower() in self._own_logins
        if status is CommentStatus.RESOLVED and last_resolve is not None and by_maple and answered:
            newest = answered[-1]  # the newest words decide; earlier ones are answered by them
            if CLASSIFICATION not in newest and newest.get(TRUST) == Trust.GITHUB.value:
                newest[GITHUB] = {AWAITING_READING: True}
        if last_resolve is not None and not thread.resolved:
            entries.append(self._reopen_entry(thread, last_resolve))
        details: JsonObject = {
            "kind": ReviewKind.THREAD.value,
            "standing": standings[0].value,
            "association": first.author.association,
            "path": thread.path,
            "line": thread.line,
            "originalLine": thread.original_line,
            "outdated": thread.outdated,
            "resolvedOnGitHub": thread.resolved,
            "gate": True,
        }
        if thread.resolved_by is not None:
            details["resolvedBy"] = thread.resolved_by
        context = Context(
            url=first.url, extra={"diffHunk": thread.diff_hunk, "outdated": thread.outdated}
        )
        return [
            self._comment(
                ref, first, standings[0], anchor, context, status, resolution, entries, details
            )
        ]

    def _reopens(self, entry: JsonObject) -> bool:
        """Whether a reviewer's words after maple's resolution reopen the thread.

        They do, as they always did, unless a classifier reads them: then a trusted reply
        reopens only once read as ``changes-requested`` (or once its reading is undone: a
        person overrode maple), and waits for its reading until then.
        """
        record = Classification.from_json(entry.get(CLASSIFICATION))
        if record is not None:
            return record.undone is not None or record.applied is Transition.REOPEN
        return not (self.pr.reading and entry.get(TRUST) == Trust.GITHUB.value)

    def _thread_status(
        self, thread: Thread, last_resolve: Note | None, answered: bool
    ) -> tuple[CommentStatus, Resolution | None]:
        """Open, or resolved; a reviewer's words after maple's resolution reopen it.

        A thread somebody else resolved stays resolved whatever was said in it: they decided.
        """
        resolution = None
        if last_resolve is not None and last_resolve.own is not None and last_resolve.own.sha:
            resolution = Resolution(
                sha=last_resolve.own.sha,
                at=last_resolve.created_at,
                note=_resolve_note(last_resolve.body, last_resolve.own.sha),
            )
        if not thread.resolved:
            return CommentStatus.OPEN, resolution
        by_maple = (thread.resolved_by or "").lower() in self._own_logins
        if by_maple and last_resolve is not None and answered:
            return CommentStatus.OPEN, resolution
        return CommentStatus.RESOLVED, resolution

    def _reviewer_entry(self, note: Note, standing: Standing, mark: Mark) -> JsonObject:
        """A reviewer's reply in a thread, with its reading when the ledger keeps one.

        A trusted person's (never a bot's) is marked ``trust: github``: the one kind of GitHub
        reply a classifier may read.
        """
        entry_id = f"{_NOTE_PREFIX}_{self.pr.pull}_{note.id}"
        entry: JsonObject = {
            "id": entry_id,
            "role": Role.REVIEWER.value,
            "kind": ReplyKind.REPLY.value,
            "body": _capped(note.body, note.url),
            "author": github_author(note.author),
            "at": note.created_at,
            "receivedAt": self.arrival(_key(note, standing)),
            "question": False,
        }
        if standing is Standing.ENDORSED:
            entry[GITHUB] = {"standing": standing.value}
        elif standing is Standing.TRUSTED and not note.author.bot:
            entry[TRUST] = Trust.GITHUB.value
        reading = mark.readings.get(entry_id)
        if reading is not None:
            entry[CLASSIFICATION] = reading
        return entry

    def _own_entry(self, note: Note) -> JsonObject:
        mark = note.own
        assert mark is not None
        entry: JsonObject = {
            "id": f"{_NOTE_PREFIX}_{self.pr.pull}_{note.id}",
            "role": Role.AGENT.value,
            "kind": ReplyKind.RESOLVE.value if mark.kind == "resolve" else ReplyKind.REPLY.value,
            "body": _capped(visible_text(note.body), note.url),
            "author": {"id": "agent", "name": "Coding agent", "provenance": "agent"},
            "at": note.created_at,
            "receivedAt": self.arrival(f"n{note.id}"),
            "question": mark.kind == "question",
        }
        if mark.kind == "resolve" and mark.sha:
            entry["resolution"] = {"sha": mark.sha, "at": note.created_at}
        return entry

    def _reopen_entry(self, thread: Thread, last_resolve: Note) -> JsonObject:
        undone: JsonObject = {"at": last_resolve.created_at}
        if last_resolve.own is not None and last_resolve.own.sha:
            undone["sha"] = last_resolve.own.sha
        return {
            "id": f"{_NOTE_PREFIX}_{self.pr.pull}_{last_resolve.id}_reopened",
            "role": Role.REVIEWER.value,
            "kind": ReplyKind.REOPEN.value,
            "body": "Unresolved on GitHub.",
            "author": {"id": "github", "name": "GitHub", "provenance": GITHUB},
            "at": None,
            "receivedAt": self.arrival(f"reopen{last_resolve.id}"),
            "question": False,
            "resolution": undone,
        }

    # -- reviews and the conversation

    def review(self, item: Review, latest: Mapping[str, int]) -> list[Comment]:
        note = item.note
        if not note.body.strip() or self._own(note):
            return []
        ref = ReviewRef(ReviewKind.REVIEW, self.pr.pull, note.id)
        standing = self._standing(note, self._linking(note))
        if standing is Standing.HELD:
            self._hold(ref.id, note, ReviewKind.REVIEW, Anchor())
            return []
        mark = self.marks.get(ref.id, Mark())
        dismissed = item.state is ReviewState.DISMISSED
        status = CommentStatus.RESOLVED if dismissed else mark.status
        deciding = latest.get(note.author.login.lower()) == note.id
        details: JsonObject = {
            "kind": ReviewKind.REVIEW.value,
            "standing": standing.value,
            "association": note.author.association,
            "state": item.state.value,
            "gate": item.state is ReviewState.CHANGES_REQUESTED and deciding,
        }
        reading = mark.readings.get(ref.id)
        if reading is not None:
            details[CLASSIFICATION] = reading
        elif (
            self.pr.reading
            and item.state is ReviewState.COMMENTED
            and standing is Standing.TRUSTED
            and not note.author.bot
            and status is CommentStatus.OPEN
        ):  # a trusted person's comment review says what they decided only in words
            details[AWAITING_READING] = True
        if item.commit is not None:
            details["commit"] = item.commit
        context = Context(url=note.url, extra={"reviewState": item.state.value})
        entries = [*mark.replies, *self._answers(ref.id)]
        return [
            self._comment(
                ref, note, standing, Anchor(), context, status, mark.resolution, entries, details
            )
        ]

    def conversation(self, note: Note) -> list[Comment]:
        if self._own(note):
            return []
        ref = ReviewRef(ReviewKind.CONVERSATION, self.pr.pull, note.id)
        standing = self._standing(note, self._linking(note))
        if standing is Standing.HELD:
            self._hold(ref.id, note, ReviewKind.CONVERSATION, Anchor())
            return []
        mark = self.marks.get(ref.id, Mark())
        details: JsonObject = {
            "kind": ReviewKind.CONVERSATION.value,
            "standing": standing.value,
            "association": note.author.association,
            "gate": False,
        }
        entries = [*mark.replies, *self._answers(ref.id)]
        return [
            self._comment(
                ref,
                note,
                standing,
                Anchor(),
                Context(url=note.url) if note.url else None,
                mark.status,
                mark.resolution,
                entries,
                details,
            )
        ]

    def _answers(self, target: str) -> list[JsonObject]:
        """The replies maple posted in the conversation to the item ``target``."""
        return [
            self._own_entry(n)
            for n in self.pr.conversation
            if self._own(n) and n.own is not None and n.own.target == target
        ]

    def _linking(self, note: Note) -> list[Note]:
        """Conversation comments after ``note`` that link to it or quote its first line."""
        return [
            other
            for other in self.pr.conversation
            if other.id != note.id and _refers_to(other, note)
        ]

    def _comment(
        self,
        ref: ReviewRef,
        note: Note,
        standing: Standing,
        anchor: Anchor,
        context: Context | None,
        status: CommentStatus,
        resolution: Resolution | None,
        entries: Sequence[JsonValue],
        details: JsonObject,
    ) -> Comment:
        if note.url is not None:
            details["url"] = note.url
        extra: JsonObject = {"author": github_author(note.author), GITHUB: details}
        if entries:
            extra[REPLIES] = _ordered(entries)[-MAX_REPLIES:]
        return Comment(
            id=ref.id,
            branch=self.pr.branch,
            body=_capped(note.body, note.url),
            status=status,
            created_at=note.created_at,
            received_at=self.arrival(_key(note, standing, ref.id)),
            anchor=anchor,
            context=context,
            resolution=resolution,
            extra=extra,
        )


def _key(note: Note, standing: Standing, item: str | None = None) -> str:
    """What an arrival stamp is kept under: the note, and for endorsed words their version.

    Words endorsed again after an edit are new to the agent; an edit of trusted words is not.
    """
    base = item or f"n{note.id}"
    return f"{base}@{note.updated_at}" if standing is Standing.ENDORSED else base


def _ordered(entries: Sequence[JsonValue]) -> list[JsonValue]:
    def stamp(entry: JsonValue) -> str:
        received = entry.get("receivedAt") if isinstance(entry, dict) else None
        return received if isinstance(received, str) else ""

    return sorted(entries, key=stamp)


def _refers_to(other: Note, note: Note) -> bool:
    """Whether ``other`` links to ``note`` (its page anchor) or quotes its first line."""
    anchors = (f"#issuecomment-{note.id}", f"#pullrequestreview-{note.id}")
    if any(a in other.body for a in anchors):
        return True
    first = next((line.strip() for line in note.body.splitlines() if line.strip()), "")
    quoted = next(
        (line[1:].strip() for line in other.body.splitlines() if line.startswith(">")), None
    )
    return bool(first) and quoted == first


def _capped(body: str, url: str | None) -> str:
    if len(body) <= MAX_NOTE_CHARS:
        return body
    where = f" on GitHub: {url}" if url else " on GitHub"
    return body[:MAX_NOTE_CHARS] + f"\n\n[cut at {MAX_NOTE_CHARS:,} characters; the rest is{where}]"
