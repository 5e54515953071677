"""One read of a pull request's review: what each item is read with.

:class:`ReviewReader` holds the read's review, trust policy, arrival stamps and ledger marks,
and does what every kind of item needs: tell maple's own posts, judge a note's standing, hold
words apart, and build the comment. ``review_threads.py`` and ``review_items.py`` read the
items with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from maple_core.anchors import Anchor
from maple_core.comments import Comment, Resolution
from maple_core.conversation import MAX_REPLIES, REPLIES, ReplyKind, Role
from maple_core.json_types import JsonObject, JsonValue
from maple_core.own_posts import visible_text
from maple_core.page_context import Context
from maple_core.pull_review import (
    GITHUB,
    MAX_NOTE_CHARS,
    NOTE_PREFIX,
    Mark,
    Note,
    PullRequestReview,
    ReviewKind,
    ReviewRef,
    github_author,
)
from maple_core.statuses import CommentStatus
from maple_core.trust import Endorsement, Standing, TrustPolicy

__all__ = ["Arrival", "ReviewReader", "arrival_key", "capped"]

Arrival = Callable[[str], str]
"""Gives the arrival stamp of a key (first sight of a note in the state the key names)."""


@dataclass
class ReviewReader:
    """One read of a pull request's review: what every kind of item is read with.

    Attributes:
        pr: the review as GitHub holds it.
        policy: whose words are work.
        arrival: the arrival stamp of a key.
        marks: the ledger's records, by item id.
        held: the words held apart so far.
    """

    pr: PullRequestReview
    policy: TrustPolicy
    arrival: Arrival
    marks: Mapping[str, Mark]
    held: list[Comment] = field(default_factory=list)

    def own(self, note: Note) -> bool:
        """Whether ``note`` is one of maple's own posts (its mark, from maple's login)."""
        return note.own is not None and note.author.login.lower() in self.own_logins

    @property
    def own_logins(self) -> frozenset[str]:
        """The logins maple posts as, lower-cased."""
        return frozenset(login.lower() for login in self.pr.own_logins)

    def standing(self, note: Note, later: Iterable[Note]) -> Standing:
        """Whether ``note``'s words are work: its author, its 👍s and the replies ``later``."""
        replies = [Endorsement(n.author, n.created_at, "reply") for n in later if not self.own(n)]
        return self.policy.standing(note.author, note.updated_at, [*note.endorsements, *replies])

    def hold(
        self, held_id: str, note: Note, kind: ReviewKind, where: Anchor, reply_to: str | None = None
    ) -> None:
        """List ``note`` apart as held words (shown to reviewers, never to the agent)."""
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
                body=capped(note.body, note.url),
                created_at=note.created_at,
                anchor=where,
                context=Context(url=note.url) if note.url else None,
                extra={"author": github_author(note.author), GITHUB: details},
            )
        )

    def own_entry(self, note: Note) -> JsonObject:
        """One of maple's own posts as a thread entry (the agent's reply, question or resolve)."""
        mark = note.own
        assert mark is not None
        entry: JsonObject = {
            "id": f"{NOTE_PREFIX}_{self.pr.pull}_{note.id}",
            "role": Role.AGENT.value,
            "kind": ReplyKind.RESOLVE.value if mark.kind == "resolve" else ReplyKind.REPLY.value,
            "body": capped(visible_text(note.body), note.url),
            "author": {"id": "agent", "name": "Coding agent", "provenance": "agent"},
            "at": note.created_at,
            "receivedAt": self.arrival(f"n{note.id}"),
            "question": mark.kind == "question",
        }
        if mark.kind == "resolve" and mark.sha:
            entry["resolution"] = {"sha": mark.sha, "at": note.created_at}
        return entry

    def comment(
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
        """The review item ``ref`` as a comment, its newest entries kept."""
        if note.url is not None:
            details["url"] = note.url
        extra: JsonObject = {"author": github_author(note.author), GITHUB: details}
        if entries:
            extra[REPLIES] = _ordered(entries)[-MAX_REPLIES:]
        return Comment(
            id=ref.id,
            branch=self.pr.branch,
            body=capped(note.body, note.url),
            status=status,
            created_at=note.created_at,
            received_at=self.arrival(arrival_key(note, standing, ref.id)),
            anchor=anchor,
            context=context,
            resolution=resolution,
            extra=extra,
        )


def arrival_key(note: Note, standing: Standing, item: str | None = None) -> str:
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


def capped(body: str, url: str | None) -> str:
    """``body``, cut at :data:`MAX_NOTE_CHARS` with a note of where the rest is."""
    if len(body) <= MAX_NOTE_CHARS:
        return body
    where = f" on GitHub: {url}" if url else " on GitHub"
    return body[:MAX_NOTE_CHARS] + f"\n\n[cut at {MAX_NOTE_CHARS:,} characters; the rest is{where}]"
