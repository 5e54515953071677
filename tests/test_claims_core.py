"""The claim rule, presence, readiness and what the gate and the ledger's table say of claims.

Pure functions of the core (and the GitHub ledger's codec), each taking ``now``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maple_adapters.github.claim_chain import CHAIN, current_claim
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.parsing import parse_ledger_body
from maple_adapters.github.rendering import render_ledger_body
from maple_core.claim_views import (
    Presence,
    presence_of,
    ready_comments,
)
from maple_core.claims import (
    CLAIM,
    MAX_LEASE_S,
    Claim,
    Claimant,
    ClaimOutcome,
    ClaimRequest,
    apply_claim,
    check_session_id,
    decide_claim,
    with_claim,
)
from maple_core.comments import Comment, Resolution
from maple_core.cursor import format_js_timestamp, select_fresh
from maple_core.errors import InvalidInputError
from maple_core.gate import GatePolicy, decide_gate
from maple_core.statuses import CommentStatus

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
ANA = Claimant.of("claude-code", "ms-ana")
BEN = Claimant.of("codex-mcp-client", "ms-ben")


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def claim_for(who: Claimant, since: float, until: float) -> Claim:
    return Claim(
        who.agent, who.session, format_js_timestamp(at(since)), format_js_timestamp(at(until))
    )


def comment(cid: str = "c1", arrived: float = 0, **extra: object) -> Comment:
    stamp = format_js_timestamp(at(arrived))
    return Comment(
        id=cid, branch="b", body="Fix it", created_at=stamp, received_at=stamp, extra=dict(extra)
    )


class TestTheRule:
    def test_nobody_holds_it_so_the_claim_is_granted_for_the_lease(self) -> None:
        decision = decide_claim(None, ClaimRequest.claim(ANA, 300), NOW)
        assert decision.outcome is ClaimOutcome.CLAIMED
        assert decision.write
        assert decision.claim == claim_for(ANA, 0, 300)

    def test_a_live_claim_is_held_and_a_lapsed_one_is_not(self) -> None:
        live = claim_for(ANA, -10, 10)
        refused = decide_claim(live, ClaimRequest.claim(BEN), NOW)
        assert (refused.outcome, refused.holder, refused.write) == (ClaimOutcome.HELD, live, False)
        lapsed = claim_for(ANA, -20, 0)  # expires now: lapsed
        assert decide_claim(lapsed, ClaimRequest.claim(BEN), NOW).outcome is ClaimOutcome.CLAIMED

    def test_a_claim_further_ahead_than_a_lease_is_no_claim(self) -> None:
        squatter = claim_for(BEN, 0, MAX_LEASE_S + 1)
        assert not squatter.live_at(NOW)
        assert decide_claim(squatter, ClaimRequest.claim(ANA), NOW).outcome is ClaimOutcome.CLAIMED

    def test_a_renewal_writes_only_past_half_the_lease(self) -> None:
        mine = claim_for(ANA, -100, 200)
        early = decide_claim(mine, ClaimRequest.claim(ANA, 300), NOW)
        assert (early.outcome, early.write, early.claim) == (ClaimOutcome.RENEWED, False, mine)
        late = decide_claim(claim_for(ANA, -200, 100), ClaimRequest.claim(ANA, 300), NOW)
        assert late.write
        assert late.claim is not None
        assert (late.claim.since, late.claim.expires) == (
            format_js_timestamp(at(-200)),
            format_js_timestamp(at(300)),
        )

    def test_force_takes_over_and_releases_for_a_person(self) -> None:
        live = claim_for(ANA, -10, 10)
        taken = decide_claim(live, ClaimRequest.claim(BEN, force=True), NOW)
        assert (taken.outcome, taken.holder) == (ClaimOutcome.TAKEN_OVER, live)
        ended = decide_claim(live, ClaimRequest.release(BEN, force=True), NOW)
        assert ended.outcome is ClaimOutcome.RELEASED
        assert ended.claim is not None
        assert ended.claim.expires == format_js_timestamp(NOW)
        assert decide_claim(live, ClaimRequest.release(BEN), NOW).outcome is ClaimOutcome.HELD
        assert decide_claim(None, ClaimRequest.release(BEN), NOW).outcome is ClaimOutcome.NOT_HELD

    @pytest.mark.parametrize("lease", [0, 9, MAX_LEASE_S + 1])
    def test_a_lease_out_of_bounds_is_refused(self, lease: float) -> None:
        with pytest.raises(InvalidInputError, match="A lease is 10 to 3600 seconds"):
            ClaimRequest.claim(ANA, lease)

    @pytest.mark.parametrize("session", ["", "-x", "a/b", "a b", "x" * 65, "a\nb", "../../etc"])
    def test_a_session_id_is_a_plain_name(self, session: str) -> None:
        with pytest.raises(InvalidInputError, match="is not a session id"):
            check_session_id(session)

    def test_a_clients_names_are_made_inert_and_bounded(self) -> None:
        who = Claimant.of("claude\n<code>\u202e" + "x" * 200, "ms-a", "m\x1b[31m")
        assert "\n" not in who.agent
        assert "<" not in who.agent
        assert "\u202e" not in who.agent
        assert len(who.agent) <= 64
        assert who.model is not None
        assert "\x1b" not in who.model
        with pytest.raises(InvalidInputError, match="empty"):
            Claimant.of("\u200b\n", "ms-a")

    def test_a_posted_claim_is_read_and_checked(self) -> None:
        read = ClaimRequest.from_json(
            {
                "action": "release",
                "agent": "a",
                "session": "ms-a",
                "leaseSeconds": 60,
                "force": True,
            }
        )
        assert (read.action.value, read.claimant.session, read.lease_s, read.force) == (
            "release",
            "ms-a",
            60,
            True,
        )
        for bad in (
            {"agent": "a"},
            {"agent": "a", "session": "ms-a", "leaseSeconds": True},
            {"agent": "a", "session": "ms-a", "action": "steal"},
            {"agent": "a", "session": "ms-a", "force": "yes"},
            [],
        ):
            with pytest.raises(InvalidInputError):
                ClaimRequest.from_json(bad)  # type: ignore[arg-type]


@given(st.lists(st.tuples(st.integers(0, 2), st.booleans(), st.integers(0, 120)), max_size=30))
def test_one_holder_at_a_time_whatever_the_requests(steps: list[tuple[int, bool, int]]) -> None:
    """Applied in turn, the rule never lets two sessions hold one comment at the same moment."""
    who = [ANA, BEN, Claimant.of("p", "cli-p")]
    current = comment()
    moment = 0.0
    for index, force, wait in steps:
        moment += wait
        now = at(moment)
        before = Claim.read(current.extra.get(CLAIM))
        holder = before.session if before is not None and before.live_at(now) else None
        current, decision = apply_claim(
            current, ClaimRequest.claim(who[index], 60, force=force), now
        )
        stored = Claim.read(current.extra.get(CLAIM))
        live = stored.session if stored is not None and stored.live_at(now) else None
        if holder is not None and live != holder:
            assert decision.outcome is ClaimOutcome.TAKEN_OVER


def test_presence_resolved_then_waiting_then_on_it_then_nobody() -> None:
    claimed = with_claim(comment(), claim_for(ANA, -1, 60))
    assert presence_of(claimed, NOW) == (Presence.ON_IT, claim_for(ANA, -1, 60))
    asked = with_claim(
        comment(
            replies=[{"id": "r", "role": "agent", "kind": "reply", "body": "?", "question": True}]
        ),
        claim_for(ANA, -1, 60),
    )
    assert presence_of(asked, NOW)[0] is Presence.WAITING
    done = Comment(id="c", branch="b", body="x", status=CommentStatus.RESOLVED)
    assert presence_of(with_claim(done, claim_for(ANA, -1, 60)), NOW)[0] is Presence.RESOLVED
    assert presence_of(comment(), NOW) == (Presence.NOBODY, None)
    assert presence_of(claimed, at(60))[0] is Presence.NOBODY


def test_another_sessions_comment_is_not_ready_until_its_claim_lapses() -> None:
    theirs = with_claim(comment("c1", arrived=5), claim_for(BEN, 0, 60))
    cursor = format_js_timestamp(at(1))
    found = select_fresh([theirs], cursor)
    assert ready_comments(found, [theirs], "ms-ana", at(10), set(), cursor).comments == ()
    mine = comment("c2", arrived=6)
    both = select_fresh([theirs, mine], cursor)
    ready = ready_comments(both, [theirs, mine], "ms-ana", at(10), set(), cursor)
    assert sorted(c.id for c in ready.comments) == ["c1", "c2"]  # the other's shown beside
    seen = format_js_timestamp(at(6))
    nothing = select_fresh([theirs], seen)
    assert ready_comments(nothing, [theirs], "ms-ana", at(61), {"c1"}, seen).comments == (theirs,)
    assert ready_comments(nothing, [theirs], "ms-ana", at(61), set(), seen).comments == ()


def test_the_gate_summary_says_which_comments_an_agent_is_on() -> None:
    claimed = with_claim(comment("c1"), claim_for(ANA, 0, 600))
    verdict = decide_gate([claimed, comment("c2")], GatePolicy(now=at(5)))
    assert "_(on it: `claude-code` since 12:00 UTC)_" in verdict.summary
    assert verdict.summary.count("on it") == 1
    lapsed = decide_gate([claimed], GatePolicy(now=at(600)))
    assert "on it" not in lapsed.summary
    assert "on it" not in decide_gate([claimed], GatePolicy()).summary


def test_the_ledger_table_shows_who_is_on_each_comment_and_the_fence_keeps_the_claim() -> None:
    claimed = with_claim(comment("gh_1_1"), claim_for(ANA, 0, 600))
    ledger = GitHubLedger("b", (claimed, comment("gh_1_2", arrived=1)))
    body = render_ledger_body(ledger, now=at(5))
    header = next(line for line in body.splitlines() if line.startswith("| #"))
    assert "| Agent |" in header
    row = next(line for line in body.splitlines() if line.startswith("| 1 |"))
    assert "on it: `claude-code` until 12:10 UTC" in row
    parsed = parse_ledger_body(body)
    assert parsed is not None
    assert Claim.read(parsed.comments[0].extra[CLAIM]) == claim_for(ANA, 0, 600)
    assert "| Agent |" not in render_ledger_body(ledger, now=at(600))
    resolved = GitHubLedger(
        "b", (claimed.with_status(CommentStatus.RESOLVED, Resolution("a", "t")),)
    )
    assert "on it" not in render_ledger_body(resolved, now=at(5))


class TestTheChain:
    """GitHub's numbering of ledger comments arbitrates between grants (claim_chain)."""

    def claim(self, who: Claimant, **chain: int) -> dict[str, object]:
        return {**claim_for(who, 0, 600).to_json(), CHAIN: chain}

    def test_of_grants_from_one_read_the_first_numbered_wins_wherever_it_is_read(self) -> None:
        versions = [(101, self.claim(ANA, depth=1)), (102, self.claim(BEN, depth=1))]
        won = current_claim(versions)
        assert won is not None
        assert (won["session"], won[CHAIN]) == ("ms-ana", {"grant": 101, "depth": 1, "rev": 1})
        copied = [(102, self.claim(BEN, depth=1)), (103, won)]  # 101 consolidated into 103
        assert current_claim(copied) == won

    def test_a_deeper_grant_follows_and_the_highest_revision_of_a_grant_stands(self) -> None:
        first = self.claim(ANA, grant=101, depth=1, rev=1)
        released = {**self.claim(ANA, grant=101, depth=1, rev=2), "expires": "x"}
        assert current_claim([(105, first), (104, released)]) == {
            **released,
            CHAIN: {"grant": 101, "depth": 1, "rev": 2},
        }
        next_grant = self.claim(BEN, depth=2)
        won = current_claim([(104, released), (107, next_grant)])
        assert won is not None
        assert won["session"] == "ms-ben"
