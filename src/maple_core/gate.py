"""The merge gate's decision: blocked, clear or neutral, with Maple's exact words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from maple_core.approvals import Approval
from maple_core.claims import live_claim
from maple_core.comments import Comment
from maple_core.conversation import thread_of
from maple_core.cursor import parse_stamp
from maple_core.pull_review import review_link
from maple_core.statuses import BLOCKING_STATUSES, CommentStatus
from maple_core.text import capped, code_span, one_line, where_of
from maple_core.threads import awaiting_reviewer, confirmation_of
from maple_core.worklist import member_name

__all__ = [
    "GateConclusion",
    "GatePolicy",
    "GateReason",
    "GateReport",
    "GateVerdict",
    "decide_gate",
    "merge_queue_verdict",
    "unreadable_ledger_verdict",
]

_LISTED = 10
# Reviewer text in the summary is capped so ten comments stay far under GitHub's 65,535
# characters: a longer summary is refused, and the gate could not be published at all.
_BODY_LIMIT = 300
_WHERE_LIMIT = 80
_NOT_CHECKED = "Visual review was not checked"


class GateConclusion(StrEnum):
    """The three outcomes; ``blocked`` is published as an ``in_progress`` check run."""

    BLOCKED = "blocked"
    CLEAR = "clear"
    NEUTRAL = "neutral"


class GateReason(StrEnum):
    """Why the gate concluded what it did (the check run's ``external_id`` ``r``)."""

    COMMENTS_OPEN = "comments-open"
    AWAITING_APPROVAL = "awaiting-approval"
    ALL_RESOLVED = "all-resolved"
    NO_COMMENTS = "no-comments"
    UNREADABLE = "unreadable"
    STATUS_UNTRACKED = "status-untracked"
    APPROVAL_UNTRACKED = "approval-untracked"
    NO_REVIEW = "no-review"
    MERGE_QUEUE = "merge-queue"  # maple's own: the queue's commit, held on the pull request
    LEDGER_UNREADABLE = "ledger-unreadable"  # maple's own: fail closed, never neutral
    AWAITING_CONFIRMATION = "awaiting-confirmation"  # maple's own: MAPLE_REQUIRE_CONFIRMATION


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """The gate's decision: conclusion, reason, one-line title, markdown summary and counts."""

    conclusion: GateConclusion
    reason: GateReason
    title: str
    summary: str
    open: int
    total: int


@dataclass(frozen=True, slots=True)
class GateReport:
    """What a gate publisher is asked to show: a verdict for one commit of one branch."""

    branch: str
    sha: str
    verdict: GateVerdict
    review_url: str | None = None


@dataclass(frozen=True, slots=True)
class GatePolicy:
    """What the gate holds a pull request on (Maple's ``decideGate`` options).

    ``approvals`` is ``None`` when the store keeps none, which is not the same as nobody having
    approved. ``commit`` is the commit under judgement. With ``now``, the summary says which
    open comments an agent is on (their live claims at that time).
    """

    block_on: frozenset[CommentStatus] = BLOCKING_STATUSES
    has_review: bool | None = None
    status_tracked: bool | None = None
    require_approval: bool = False
    approvals: Sequence[Approval] | None = None
    commit: str | None = None
    reverify_resolved: bool = False
    require_confirmation: bool = False
    pushed: frozenset[str] | None = None
    now: datetime | None = None


def _neutral(reason: GateReason, summary: str, title: str = _NOT_CHECKED) -> GateVerdict:
    return GateVerdict(GateConclusion.NEUTRAL, reason, title, summary, open=0, total=0)


def _judged_status(comment: Comment, policy: GatePolicy) -> CommentStatus:
    resolution = comment.resolution
    if (
        policy.reverify_resolved
        and policy.commit is not None
        and comment.status is CommentStatus.RESOLVED
        and resolution is not None
        and resolution.sha != policy.commit  # an empty sha names no commit: re-check, as Maple
    ):
        return CommentStatus.NEEDS_REVERIFY
    return comment.status


_NOTES = {
    CommentStatus.ORPHANED: " _(unpinned)_",
    CommentStatus.NEEDS_REVERIFY: " _(needs re-checking after a new commit)_",
}


def _on_it(comment: Comment, now: datetime | None) -> str:
    """`` _(on it: `agent` since 12:05 UTC)_`` for a comment an agent claimed, else nothing."""
    claim = live_claim(comment, now) if now is not None else None
    if claim is None:
        return ""
    since = parse_stamp(claim.since)
    when = f" since {since:%H:%M} UTC" if since is not None else ""
    return f" _(on it: {code_span(claim.agent, _WHERE_LIMIT)}{when})_"


def _open_summary(
    comments: Sequence[Comment],
    statuses: Sequence[CommentStatus],
    block_on: frozenset[CommentStatus],
    now: datetime | None = None,
) -> str:
    lines: list[str] = []
    blocking = [i for i, status in enumerate(statuses) if status in block_on]
    for index in blocking[:_LISTED]:
        comment = comments[index]
        where = member_name(comment.anchor.data) or where_of(comment.anchor)
        prefix = f"{code_span(where, _WHERE_LIMIT)} — " if where else ""
        note = _NOTES.get(statuses[index], "")
        if awaiting_reviewer(comment):
            note += " _(the agent asked a question; waiting for the reviewer)_"
        else:
            note += _on_it(comment, now)
        link = review_link(comment)
        if link is not None:
            note += f" ([on GitHub]({link}))"
        lines.append(f"{index + 1}. {prefix}{code_span(comment.body, _BODY_LIMIT)}{note}")
    if len(blocking) > _LISTED:
        lines.append(f"…and {len(blocking) - _LISTED} more.")
    return "These comments are still open:\n\n" + "\n".join(lines) + _questions(comments)


def _questions(comments: Sequence[Comment]) -> str:
    """The agent's unanswered questions, for the reviewer to answer in the overlay."""
    lines: list[str] = []
    for index, comment in enumerate(comments):
        if not awaiting_reviewer(comment):
            continue
        asked = next(r for r in reversed(thread_of(comment)) if r.question)
        if len(lines) < _LISTED:
            lines.append(f"- On {index + 1}: {code_span(asked.body, _BODY_LIMIT)}")
        else:
            lines.append("- …and more.")
            break
    if not lines:
        return ""
    return (
        "\n\nQuestions waiting for the reviewer (answer them in the Maple overlay):\n\n"
        + "\n".join(lines)
    )


def _unconfirmed_verdict(comments: Sequence[Comment], unconfirmed: Sequence[int]) -> GateVerdict:
    total = len(comments)
    lines = []
    for index in unconfirmed[:_LISTED]:
        comment = comments[index]
        resolution = comment.resolution
        sha = code_span(resolution.sha[:12], 16) if resolution is not None else "—"
        lines.append(f"{index + 1}. {code_span(comment.body, _BODY_LIMIT)} — resolved in {sha}")
    if len(unconfirmed) > _LISTED:
        lines.append(f"…and {len(unconfirmed) - _LISTED} more.")
    noun = "resolution" if len(unconfirmed) == 1 else "resolutions"
    return GateVerdict(
        GateConclusion.BLOCKED,
        GateReason.AWAITING_CONFIRMATION,
        f"{len(unconfirmed)} {noun} waiting for a reviewer to confirm",
        "Every comment is resolved, and this repository asks a reviewer to confirm each "
        "resolution (MAPLE_REQUIRE_CONFIRMATION). Waiting for confirmation:\n\n"
        + "\n".join(lines)
        + "\n\nOpen the preview and confirm or reopen them from the Maple overlay.",
        open=0,
        total=total,
    )


def _evidence(comments: Sequence[Comment], policy: GatePolicy) -> str:
    """Who confirmed which resolution, and resolutions whose commit is not on the pull request."""
    confirmed: list[str] = []
    unpushed: list[str] = []
    for index, comment in enumerate(comments):
        resolution = comment.resolution
        if comment.status is not CommentStatus.RESOLVED or resolution is None:
            continue
        confirmation = confirmation_of(comment)
        if confirmation is not None and len(confirmed) < _LISTED:
            who = code_span(capped(one_line(confirmation.author_name), _WHERE_LIMIT))
            sha = code_span(resolution.sha[:12])
            read = next((r for r in thread_of(comment) if r.id == confirmation.classified), None)
            said = f" from their reply {code_span(read.body, _BODY_LIMIT)}" if read else ""
            confirmed.append(f"- {who} confirmed {index + 1}{said}, resolved in {sha}")
        unpushed_here = policy.pushed is not None and resolution.sha not in policy.pushed
        if unpushed_here and len(unpushed) < _LISTED:
            unpushed.append(
                f"- {index + 1} names {code_span(resolution.sha[:40], 48)}, which is not "
                "pushed to this pull request yet"
            )
    out = ""
    if confirmed:
        out += "\n\nConfirmed by reviewers:\n\n" + "\n".join(confirmed)
    if unpushed:
        out += "\n\nNot pushed:\n\n" + "\n".join(unpushed)
    return out


def decide_gate(
    comments: Sequence[Comment] | None, policy: GatePolicy | None = None
) -> GateVerdict:
    """Decide the merge gate for ``comments`` (``None`` when they could not be read).

    The checks run in Maple's order: no review, unreadable, status untracked, open comments,
    (maple's own: awaiting confirmation,) approval untracked, awaiting approval, then clear
    (``no-comments`` or ``all-resolved``, titled ``Approved by <name>`` when an approval names
    the commit). Summaries name the agent's questions waiting for the reviewer, who confirmed
    which resolution, and resolutions not pushed to the pull request.
    """
    policy = policy or GatePolicy()
    if policy.has_review is False:
        return _neutral(
            GateReason.NO_REVIEW,
            "Maple is not reviewing this pull request, so this check has nothing to hold it on.",
            title="No visual review on this pull request",
        )
    if comments is None:
        return _neutral(
            GateReason.UNREADABLE,
            "Maple could not read the comments, so this check has nothing to say about them.",
        )
    if policy.status_tracked is False:
        return _neutral(
            GateReason.STATUS_UNTRACKED,
            "This store cannot record whether a comment was resolved, "
            "so this check has nothing to say about them.",
        )
    statuses = [_judged_status(c, policy) for c in comments]
    total = len(comments)
    blocking = sum(1 for s in statuses if s in policy.block_on)
    if blocking:
        noun = "comment" if total == 1 else "comments"
        return GateVerdict(
            GateConclusion.BLOCKED,
            GateReason.COMMENTS_OPEN,
            f"{blocking} of {total} {noun} still open",
            _open_summary(comments, statuses, policy.block_on, policy.now)
            + _evidence(comments, policy),
            open=blocking,
            total=total,
        )
    if policy.require_confirmation:
        unconfirmed = [
            i
            for i, (c, s) in enumerate(zip(comments, statuses, strict=True))
            if s is CommentStatus.RESOLVED and confirmation_of(c) is None
        ]
        if unconfirmed:
            return _unconfirmed_verdict(comments, unconfirmed)
    if policy.require_approval and (policy.approvals is None or policy.commit is None):
        if policy.approvals is None:
            why = "This store cannot record that anybody approved the preview"
        else:
            why = (
                "Nothing here names the commit the preview is serving, "
                "so an approval of it cannot be found"
            )
        return _neutral(
            GateReason.APPROVAL_UNTRACKED, f"{why}, so this check has nothing to say about them."
        )
    approved = next((a for a in policy.approvals or () if a.commit == policy.commit), None)
    if policy.require_approval and approved is None:
        if total == 0:
            state = (
                "Nobody has left a visual review comment on this pull request, "
                "and nobody has approved it either."
            )
        else:
            state = (
                "Every visual review comment on this pull request is resolved, "
                "but nobody has approved the preview."
            )
        return GateVerdict(
            GateConclusion.BLOCKED,
            GateReason.AWAITING_APPROVAL,
            "Waiting for somebody to approve the preview",
            f"{state}\n\nOpen the preview and approve it from the Maple overlay.",
            open=0,
            total=total,
        )
    if total == 0:
        reason, title = GateReason.NO_COMMENTS, "No visual review comments"
        summary = "Nobody has left a visual review comment on this pull request."
    else:
        reason, title = GateReason.ALL_RESOLVED, "Every comment is resolved"
        summary = "Every visual review comment on this pull request has been resolved."
        summary += _evidence(comments, policy)
    if approved is not None:
        name = capped(one_line(approved.author_name), _WHERE_LIMIT)
        title = f"Approved by {name}"
        summary += f"\n\n{code_span(name)} approved this preview."
        if approved.note is not None:  # Maple quotes an empty note too
            note = code_span(approved.note, _BODY_LIMIT) if approved.note.strip() else ""
            summary += f"\n\n> {note}"
    return GateVerdict(GateConclusion.CLEAR, reason, title, summary, open=0, total=total)


def merge_queue_verdict() -> GateVerdict:
    """The verdict for a merge queue's commit: it passes at once.

    A pull request reaches the queue only once its own check let it, and reviewers cannot look
    at the queue's temporary commit, so holding it would only hang the queue.
    """
    return GateVerdict(
        GateConclusion.CLEAR,
        GateReason.MERGE_QUEUE,
        "Reviewed on the pull request",
        "The merge queue's commit passes: the visual review was held on the pull request, "
        "before it could join the queue.",
        open=0,
        total=0,
    )


def unreadable_ledger_verdict(problem: str) -> GateVerdict:
    """The verdict when the comments could not be read: blocked, saying why and the fix.

    Maple reports an unreadable store as neutral, and a neutral required check lets the merge
    through; a gate that cannot see the comments must hold the pull request instead. ``problem``
    is the store's error, which names the ledger and how to mend it.
    """
    return GateVerdict(
        GateConclusion.BLOCKED,
        GateReason.LEDGER_UNREADABLE,
        "Visual review comments cannot be read",
        "maple could not read this pull request's review comments, so it holds the merge until "
        f"it can.\n\n{problem}\n\nOnce that is mended, re-run this check or resolve a comment.",
        open=0,
        total=0,
    )
