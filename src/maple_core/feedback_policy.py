"""Whose words are read as an outcome: a trusted person's reply on a resolved comment, only.

Policy decides before any harness is asked (Decision 042, point 5): the agent's and bots' words
never, a guest's never, words that did not arrive on a trusted path never, and only a reply
written after the comment's resolution answers a fix. Each refusal says why, in one line.
"""

from __future__ import annotations

from maple_core.comments import Comment
from maple_core.conversation import Reply, ReplyKind, Role
from maple_core.cursor import parse_stamp
from maple_core.feedback import Trust
from maple_core.statuses import CommentStatus
from maple_core.text import capped, one_line

__all__ = ["came_before", "refusal", "unheard", "who"]

_TRUSTS = frozenset(t.value for t in Trust)


def unheard(entry: Reply) -> str | None:
    """Why policy never reads ``entry``'s words, or ``None`` when they are a trusted person's.

    The agent's own words and a bot's are never read; nor a guest's, nor anyone's whose words
    did not arrive on a trusted path (no ``trust`` mark); nor a reopening or a confirmation,
    which say themselves.
    """
    author = entry.author or {}
    if entry.role is not Role.REVIEWER or author.get("provenance") == "agent":
        return "the agent's own words are never classified"
    if author.get("bot") is True:
        return f"{who(entry)} is a bot, and a bot's words are never classified"
    if entry.kind is not ReplyKind.REPLY:
        return f"a {entry.kind.value} says itself; only a reply is classified"
    if not entry.body.strip():
        return "an empty reply says nothing to classify"
    if entry.trust not in _TRUSTS:
        return (
            f"{who(entry)}'s words did not arrive from a trusted reviewer (a route that "
            "identified them, or this machine's paired browser), so they are never classified"
        )
    return None


def refusal(comment: Comment, entry: Reply) -> str | None:
    """Why ``entry`` is not classified on ``comment`` now, or ``None`` when it is.

    Policy first (:func:`unheard`), then the comment: only a reply on a resolved comment,
    written after its resolution, answers a fix.
    """
    unheard_why = unheard(entry)
    if unheard_why is not None:
        return unheard_why
    if comment.status is not CommentStatus.RESOLVED or comment.resolution is None:
        return f"only a reply on a resolved comment is classified, and {comment.id} is " + (
            comment.status.value
        )
    if came_before(entry.at, comment.resolution.at):
        return "the reply came before the comment's resolution, so it answers no fix"
    return None


def came_before(at: str | None, then: str) -> bool:
    """True when ``at`` is known and earlier than ``then`` (an unreadable time is not earlier)."""
    instant, reference = parse_stamp(at or ""), parse_stamp(then)
    return instant is not None and reference is not None and instant < reference


def who(entry: Reply) -> str:
    """Who wrote ``entry``, as one capped line for a message."""
    return capped(one_line(entry.author_name), 80)
