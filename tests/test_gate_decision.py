"""Maple's ``gate-decide.test.ts``: every reason, title, summary and count of ``decide_gate``."""

from __future__ import annotations

from maple_core.anchors import Anchor, RegionMember
from maple_core.approvals import Approval
from maple_core.comments import Comment, Resolution
from maple_core.gate import GateConclusion, GatePolicy, GateReason, decide_gate
from maple_core.statuses import BLOCKING_STATUSES, CommentStatus

OPEN, RESOLVED = CommentStatus.OPEN, CommentStatus.RESOLVED
COMMIT = "9f2c1ab"


def c(status: CommentStatus = OPEN, body: str = "Tighten it", **kw: object) -> Comment:
    return Comment(id="c", branch="b", body=body, status=status, **kw)  # type: ignore[arg-type]


def approval(commit: str = COMMIT, note: str | None = None) -> Approval:
    return Approval("b", commit, "2026-01-01T00:00:00.000Z", {"name": "Dana"}, note, id="a1")


def test_each_blocking_status_blocks_and_resolved_clears() -> None:
    for status in (OPEN, CommentStatus.NEEDS_REVERIFY, CommentStatus.ORPHANED):
        verdict = decide_gate([c(status)])
        assert (verdict.conclusion, verdict.reason, verdict.open) == (
            GateConclusion.BLOCKED,
            GateReason.COMMENTS_OPEN,
            1,
        )
    assert decide_gate([c(RESOLVED)]).conclusion is GateConclusion.CLEAR


def test_blocking_statuses_are_marples() -> None:
    assert sorted(BLOCKING_STATUSES) == ["needs_reverify", "open", "orphaned"]


def test_block_on_open_only_clears_an_orphan() -> None:
    verdict = decide_gate([c(CommentStatus.ORPHANED)], GatePolicy(block_on=frozenset({OPEN})))
    assert verdict.reason is GateReason.ALL_RESOLVED


def test_neutral_reasons() -> None:
    unreadable = decide_gate(None)
    assert (unreadable.conclusion, unreadable.reason) == (
        GateConclusion.NEUTRAL,
        GateReason.UNREADABLE,
    )
    assert unreadable.title == "Visual review was not checked"
    assert "could not read" in unreadable.summary
    untracked = decide_gate([], GatePolicy(status_tracked=False))
    assert untracked.reason is GateReason.STATUS_UNTRACKED
    assert untracked.summary == (
        "This store cannot record whether a comment was resolved, "
        "so this check has nothing to say about them."
    )
    assert decide_gate([c()], GatePolicy(status_tracked=False)).conclusion is GateConclusion.NEUTRAL
    no_review = decide_gate([c()], GatePolicy(has_review=False))
    assert (no_review.reason, no_review.title) == (
        GateReason.NO_REVIEW,
        "No visual review on this pull request",
    )
    assert "could not read" not in no_review.summary
    assert (no_review.open, no_review.total) == (0, 0)


def test_clear_reasons() -> None:
    none = decide_gate([])
    assert (none.reason, none.title, none.summary) == (
        GateReason.NO_COMMENTS,
        "No visual review comments",
        "Nobody has left a visual review comment on this pull request.",
    )
    done = decide_gate([c(RESOLVED)])
    assert (done.reason, done.title, done.summary) == (
        GateReason.ALL_RESOLVED,
        "Every comment is resolved",
        "Every visual review comment on this pull request has been resolved.",
    )


def test_the_summary_numbers_comments_by_their_place_in_the_full_list() -> None:
    verdict = decide_gate(
        [
            c(RESOLVED, "done"),
            c(OPEN, "still wrong", anchor=Anchor(component="DashboardHeader")),
        ]
    )
    assert "2. `DashboardHeader` — `still wrong`" in verdict.summary
    assert "1. " not in verdict.summary
    assert verdict.summary.startswith("These comments are still open:\n\n")


def test_titles_and_counts() -> None:
    verdict = decide_gate([c(OPEN), c(RESOLVED), c(CommentStatus.ORPHANED)])
    assert (verdict.title, verdict.open, verdict.total) == ("2 of 3 comments still open", 2, 3)
    assert decide_gate([c()]).title == "1 of 1 comment still open"


def test_notes_and_flattening() -> None:
    assert "needs re-checking" in decide_gate([c(CommentStatus.NEEDS_REVERIFY)]).summary
    assert "(unpinned)" in decide_gate([c(CommentStatus.ORPHANED)]).summary
    assert "1. `one two`" in decide_gate([c(body="one\n\ntwo")]).summary


def test_more_than_ten_are_summed_up() -> None:
    verdict = decide_gate([c() for _ in range(13)])
    assert verdict.summary.endswith("…and 3 more.")
    assert verdict.open == 13
    assert verdict.summary.count("\n") == 2 + 10


def test_approval_rules() -> None:
    assert decide_gate([]).conclusion is GateConclusion.CLEAR
    required = GatePolicy(require_approval=True, approvals=[], commit=COMMIT)
    waiting = decide_gate([c(RESOLVED)], required)
    assert (waiting.conclusion, waiting.reason, waiting.open, waiting.total) == (
        GateConclusion.BLOCKED,
        GateReason.AWAITING_APPROVAL,
        0,
        1,
    )
    assert "nobody has approved the preview" in waiting.summary
    assert waiting.summary.endswith("\n\nOpen the preview and approve it from the Maple overlay.")
    assert "nobody has approved it either" in decide_gate([], required).summary

    approved = decide_gate(
        [], GatePolicy(require_approval=True, approvals=[approval()], commit=COMMIT)
    )
    assert (approved.conclusion, approved.reason, approved.title) == (
        GateConclusion.CLEAR,
        GateReason.NO_COMMENTS,
        "Approved by Dana",
    )
    stale = GatePolicy(require_approval=True, approvals=[approval("deadbee")], commit=COMMIT)
    assert decide_gate([], stale).reason is GateReason.AWAITING_APPROVAL

    noted = decide_gate(
        [], GatePolicy(approvals=[approval(note="Checked at 375px\ntoo")], commit=COMMIT)
    )
    assert "> `Checked at 375px too`" in noted.summary
    both = decide_gate([c(RESOLVED)], GatePolicy(approvals=[approval()], commit=COMMIT))
    assert both.reason is GateReason.ALL_RESOLVED
    assert "`Dana` approved this preview." in both.summary

    open_required = GatePolicy(require_approval=True, approvals=[], commit=COMMIT)
    assert decide_gate([c()], open_required).reason is GateReason.COMMENTS_OPEN
    assert (
        decide_gate([], GatePolicy(require_approval=True, has_review=False)).reason
        is GateReason.NO_REVIEW
    )


def test_approval_untracked() -> None:
    cannot = decide_gate([], GatePolicy(require_approval=True, commit=COMMIT))
    assert (cannot.conclusion, cannot.reason) == (
        GateConclusion.NEUTRAL,
        GateReason.APPROVAL_UNTRACKED,
    )
    assert "cannot record" in cannot.summary
    uncommitted = decide_gate([], GatePolicy(require_approval=True, approvals=[]))
    assert uncommitted.reason is GateReason.APPROVAL_UNTRACKED
    assert "names the commit" in uncommitted.summary
    assert decide_gate([c()], GatePolicy(require_approval=True)).reason is GateReason.COMMENTS_OPEN


def test_reverify() -> None:
    older = c(RESOLVED, resolution=Resolution(sha="older11", at="t"))
    assert decide_gate([older], GatePolicy(commit=COMMIT)).conclusion is GateConclusion.CLEAR
    reverify = decide_gate([older], GatePolicy(commit=COMMIT, reverify_resolved=True))
    assert (reverify.conclusion, reverify.reason) == (
        GateConclusion.BLOCKED,
        GateReason.COMMENTS_OPEN,
    )
    assert "needs re-checking" in reverify.summary
    same = c(RESOLVED, resolution=Resolution(sha=COMMIT, at="t"))
    assert decide_gate([same], GatePolicy(commit=COMMIT, reverify_resolved=True)).conclusion is (
        GateConclusion.CLEAR
    )
    bare = c(RESOLVED)
    assert decide_gate([bare], GatePolicy(commit=COMMIT, reverify_resolved=True)).conclusion is (
        GateConclusion.CLEAR
    )
    assert decide_gate([older], GatePolicy(reverify_resolved=True)).conclusion is (
        GateConclusion.CLEAR
    )


def test_a_region_is_named_by_its_members_as_maple_names_it() -> None:
    members = (
        RegionMember(Anchor(component="BrewGuideCard")),
        RegionMember(Anchor(component="Price")),
    )
    region = Anchor(selector="main > section:nth-of-type(2)", members=members)
    summary = decide_gate([c(anchor=region)]).summary
    assert "1. `BrewGuideCard +1` — `Tighten it`" in summary
    quoted = Anchor(members=(RegionMember(Anchor(quote={"exact": "  Dial in your grinder  "})),))
    assert "1. `“Dial in your grinder”` — " in decide_gate([c(anchor=quoted)]).summary


def test_an_empty_approval_note_is_quoted_as_maple_quotes_it() -> None:
    verdict = decide_gate([], GatePolicy(approvals=[approval(note="")], commit=COMMIT))
    assert verdict.summary.endswith("`Dana` approved this preview.\n\n> ")


def test_an_approval_without_a_name_is_somebodys() -> None:
    nameless = Approval("b", COMMIT, "2026-01-01T00:00:00.000Z", {}, None, id="a1")
    verdict = decide_gate([], GatePolicy(approvals=[nameless], commit=COMMIT))
    assert verdict.title == "Approved by somebody"  # Maple prints "undefined": see compatibility


def test_an_empty_resolution_sha_is_re_checked_under_reverification() -> None:
    empty = c(RESOLVED, resolution=Resolution(sha="", at="2026-01-01T00:00:00.000Z"))
    verdict = decide_gate([empty], GatePolicy(commit=COMMIT, reverify_resolved=True))
    assert verdict.reason is GateReason.COMMENTS_OPEN
    assert decide_gate([empty], GatePolicy(commit=COMMIT)).conclusion is GateConclusion.CLEAR


def test_flattening_counts_javascripts_white_space() -> None:
    body = "one\ufefftwo\u2028three\u00a0four\x1cfive"
    summary = decide_gate([c(body=body)]).summary
    assert "`one two three four" in summary  # U+FEFF and U+2028 are white space in JavaScript
    assert "\x1c" not in summary  # and a control character is dropped, never shown


# -- maple's own: the conversation (issue 18) -------------------------------------------------

SHA = "0123456789abcdef0123456789abcdef01234567"


def threaded(status: CommentStatus, *replies: dict[str, object], **kw: object) -> Comment:
    resolution = Resolution(sha=SHA, at="2026-01-01T00:00:00.000Z") if status is RESOLVED else None
    return c(status, resolution=resolution, extra={"replies": list(replies)}, **kw)


def confirm(sha: str = SHA, name: str = "Dana") -> dict[str, object]:
    return {
        "id": "r1",
        "role": "reviewer",
        "kind": "confirm",
        "body": "",
        "author": {"name": name},
        "resolution": {"sha": sha, "at": "2026-01-01T00:00:00.000Z"},
    }


def test_required_confirmation_holds_until_each_resolution_is_confirmed() -> None:
    policy = GatePolicy(require_confirmation=True)
    waiting = decide_gate([threaded(RESOLVED), threaded(RESOLVED, confirm())], policy)
    assert (waiting.conclusion, waiting.reason) == (
        GateConclusion.BLOCKED,
        GateReason.AWAITING_CONFIRMATION,
    )
    assert waiting.title == "1 resolution waiting for a reviewer to confirm"
    assert "1. `Tighten it` — resolved in `0123456789ab`" in waiting.summary
    cleared = decide_gate([threaded(RESOLVED, confirm(name="@everyone"))], policy)
    assert cleared.conclusion is GateConclusion.CLEAR
    assert "`@everyone` confirmed 1, resolved in `0123456789ab`" in cleared.summary
    assert decide_gate([threaded(RESOLVED)]).conclusion is GateConclusion.CLEAR  # not required


def test_a_confirmation_of_another_resolution_does_not_count() -> None:
    policy = GatePolicy(require_confirmation=True)
    stale = threaded(RESOLVED, confirm(sha="f" * 40))
    assert decide_gate([stale], policy).reason is GateReason.AWAITING_CONFIRMATION
    reopened = threaded(RESOLVED, confirm(), {"id": "r2", "role": "reviewer", "kind": "reopen"})
    assert decide_gate([reopened], policy).reason is GateReason.AWAITING_CONFIRMATION


def test_open_comments_block_before_confirmation_is_asked() -> None:
    verdict = decide_gate([c(OPEN), threaded(RESOLVED)], GatePolicy(require_confirmation=True))
    assert verdict.reason is GateReason.COMMENTS_OPEN


def test_the_agents_questions_are_listed_for_the_reviewer_and_still_block() -> None:
    question = {
        "id": "r1",
        "role": "agent",
        "kind": "reply",
        "body": "Bigger, or <b>brighter</b>?",
        "question": True,
    }
    verdict = decide_gate([threaded(OPEN, question)])
    assert verdict.reason is GateReason.COMMENTS_OPEN
    assert "_(the agent asked a question; waiting for the reviewer)_" in verdict.summary
    assert "Questions waiting for the reviewer" in verdict.summary
    assert "- On 1: `Bigger, or <b>brighter</b>?`" in verdict.summary
    answer = {"id": "r2", "role": "reviewer", "kind": "reply", "body": "Brighter."}
    assert "Questions waiting" not in decide_gate([threaded(OPEN, question, answer)]).summary


def test_a_resolution_whose_commit_is_not_on_the_pull_request_is_shown_not_pushed() -> None:
    unpushed = decide_gate([threaded(RESOLVED)], GatePolicy(pushed=frozenset({"f" * 40})))
    assert unpushed.conclusion is GateConclusion.CLEAR
    assert f"`{SHA}`, which is not pushed to this pull request yet" in unpushed.summary
    pushed = decide_gate([threaded(RESOLVED)], GatePolicy(pushed=frozenset({SHA})))
    assert "Not pushed" not in pushed.summary
