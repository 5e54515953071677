"""Resolving a comment and conversing in its thread, written against the ports.

A resolution is stamped in one place (:func:`stamped_resolution`), and its commit is checked
against the agent's checkout (:func:`verified_commit`).
"""

from __future__ import annotations

from maple_core.comments import Comment, Resolution
from maple_core.cursor import format_js_timestamp
from maple_core.errors import MissingCapabilityError, UnverifiedCommitError
from maple_core.gate_ports import CommitCheck, Commits
from maple_core.json_types import JsonObject
from maple_core.ports import Capability, Clock, CommentConversation, CommentStore
from maple_core.statuses import CommentStatus
from maple_core.thread_events import ThreadEvent

__all__ = [
    "conversation_with",
    "converse",
    "conversing",
    "resolve_comment",
    "stamped_resolution",
    "verified_commit",
]


def resolve_comment(
    store: CommentStore,
    comment_id: str,
    sha: str,
    note: str | None,
    clock: Clock,
    *,
    commits: Commits | None = None,
    author: JsonObject | None = None,
    by: JsonObject | None = None,
) -> Comment:
    """Mark a comment resolved, recording the commit that addressed it, when, and ``by`` whom.

    ``by`` is an agent's signature (see :func:`stamped_resolution`). With ``commits`` (the
    checkout the agent works in), ``sha`` must name a commit HEAD can reach; the full sha is
    recorded (see :func:`verified_commit`). On a store that keeps threads, a comment already
    resolved keeps its first resolution and the thread records this one.

    Raises:
        MissingCapabilityError: the store cannot change a status.
        UnverifiedCommitError: ``sha`` is not a commit the checkout's HEAD can reach.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise MissingCapabilityError(
            f"The {store.name} store cannot change a status; resolve the comment where it lives.",
            store=store.name,
            operation="set_status",
        )
    if commits is not None:
        sha = verified_commit(commits, sha)
    resolution = stamped_resolution(sha, note, clock, by)
    if Capability.CONVERSE in store.capabilities and isinstance(store, CommentConversation):
        return store.converse(comment_id, ThreadEvent.resolve(resolution, author))
    return store.set_status(comment_id, CommentStatus.RESOLVED, resolution)


def verified_commit(commits: Commits, sha: str) -> str:
    """``sha`` as the full commit it names, once the checkout shows HEAD can reach it.

    Outside a git checkout nothing can be checked and ``sha`` is taken as given.

    Raises:
        UnverifiedCommitError: saying what was expected and how to get it.
    """
    answer, full = commits.check(sha)
    if answer is CommitCheck.NO_CHECKOUT:
        return sha
    if answer is CommitCheck.REACHABLE and full is not None:
        return full
    head = commits.head()
    hint = f" HEAD is {head}." if head else ""
    shown_sha = sha[:64].encode("ascii", "replace").decode()
    if answer is CommitCheck.UNREACHABLE:
        raise UnverifiedCommitError(
            f"{shown_sha!r} is a commit, but HEAD cannot reach it, so it cannot have addressed "
            f"the comment here.{hint} Commit the fix on this branch and pass that commit's sha "
            "(git rev-parse HEAD)."
        )
    raise UnverifiedCommitError(
        f"{shown_sha!r} names no commit in this checkout; a resolution needs the sha of the "
        f"commit that addressed the comment.{hint} Commit the fix, then pass its sha "
        "(git rev-parse HEAD)."
    )


def conversation_with(
    store: CommentStore, capability: Capability, operation: str, refusal: str
) -> CommentConversation:
    """The store as a :class:`CommentConversation` that offers ``capability``.

    Raises:
        MissingCapabilityError: it does not; ``refusal`` (``{store}`` stands for the store's
            name) says where to go instead.
    """
    if capability in store.capabilities and isinstance(store, CommentConversation):
        return store
    raise MissingCapabilityError(
        refusal.format(store=store.name), store=store.name, operation=operation
    )


def conversing(store: CommentStore) -> CommentConversation:
    """The store as one that keeps threads.

    Raises:
        MissingCapabilityError: it keeps none (a deployed Maple route, for one).
    """
    return conversation_with(
        store,
        Capability.CONVERSE,
        "converse",
        "The {store} store keeps no replies; reply where the comment lives, or use a maple "
        "store (file, github or a maple route).",
    )


def converse(store: CommentStore, comment_id: str, event: ThreadEvent) -> Comment:
    """Apply ``event`` to the comment's thread (:meth:`CommentConversation.converse`).

    Raises:
        MissingCapabilityError: the store keeps no threads.
        ConversationError: the comment cannot take the event.
    """
    return conversing(store).converse(comment_id, event)


def stamped_resolution(
    sha: str, note: str | None, clock: Clock, by: JsonObject | None = None
) -> Resolution:
    """The resolution of a comment by ``sha``, stamped now: the one place a resolve is dated.

    ``by`` records the agent, model and session that resolved it, when an agent did.
    """
    extra: JsonObject = {"by": by} if by else {}
    return Resolution(sha=sha, note=note, at=format_js_timestamp(clock.now()), extra=extra)
