"""The claim contract: every store keeps leased claims (``Capability.CLAIM``) atomically.

Of any number of racing claimants exactly one wins and the others are told who holds the
comment; a lease lapses on the store's clock; a claimant killed with SIGKILL keeps its claim
only until it lapses; and two live claims on one comment never overlap in time. Runs over every
adapter in ``STORE_ADAPTERS``; racing claimants are other processes wherever another process can
reach the store (``claim_racers``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from contract_tests.claim_racers import Racers
from contract_tests.support import FakeClock
from contract_tests.test_comment_store import BRANCH, new
from maple_core.claims import (
    CLAIM,
    Claim,
    Claimant,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
    claim_of,
    live_claim,
)
from maple_core.comments import NewComment
from maple_core.cursor import parse_stamp
from maple_core.errors import NotFoundError
from maple_core.listing import list_all
from maple_core.ports import Capability, CommentClaims, CommentStore

ANA = Claimant.of("claude-code", "ms-ana")
BEN = Claimant.of("codex-mcp-client", "ms-ben")


def claims(store: CommentStore) -> CommentClaims:
    assert Capability.CLAIM in store.capabilities
    assert isinstance(store, CommentClaims)
    return store


def listed(store: CommentStore, comment_id: str) -> Claim | None:
    [found] = [c for c in list_all(store, BRANCH) if c.id == comment_id]
    return claim_of(found)


def when(stamp: str) -> datetime:
    instant = parse_stamp(stamp)
    assert instant is not None, stamp
    return instant


def test_every_store_keeps_claims(store: CommentStore) -> None:
    claims(store)


def test_a_claim_is_recorded_on_the_comment(store: CommentStore, clock: FakeClock) -> None:
    comment = store.append(new())
    result = claims(store).claim(comment.id, ClaimRequest.claim(ANA, 300))
    assert result.outcome is ClaimOutcome.CLAIMED
    assert result.decision.granted
    held = listed(store, comment.id)
    assert held is not None
    assert (held.agent, held.session) == ("claude-code", "ms-ana")
    assert when(held.since) == clock.now()
    assert when(held.expires) == clock.now() + timedelta(seconds=300)
    assert result.comment.id == comment.id
    assert live_claim(result.comment, clock.now()) is not None


def test_another_session_is_told_who_holds_it(store: CommentStore, clock: FakeClock) -> None:
    comment = store.append(new())
    claims(store).claim(comment.id, ClaimRequest.claim(ANA))
    refused = claims(store).claim(comment.id, ClaimRequest.claim(BEN))
    assert refused.outcome is ClaimOutcome.HELD
    assert not refused.decision.granted
    assert refused.decision.holder is not None
    assert refused.decision.holder.session == "ms-ana"
    assert refused.to_json()["holder"]["agent"] == "claude-code"
    held = listed(store, comment.id)
    assert held is not None
    assert held.session == "ms-ana"


def test_the_holder_renews_and_nothing_is_written_while_most_is_left(
    store: CommentStore, clock: FakeClock
) -> None:
    comment = store.append(new())
    first = claims(store).claim(comment.id, ClaimRequest.claim(ANA, 100))
    clock.advance(10)
    again = claims(store).claim(comment.id, ClaimRequest.claim(ANA, 100))
    assert again.outcome is ClaimOutcome.RENEWED
    assert not again.decision.write
    kept = listed(store, comment.id)
    assert kept is not None
    assert first.decision.claim is not None
    assert kept.shown() == first.decision.claim.shown()
    clock.advance(50)
    renewed = claims(store).claim(comment.id, ClaimRequest.claim(ANA, 100))
    assert renewed.outcome is ClaimOutcome.RENEWED
    held = listed(store, comment.id)
    assert held is not None
    assert when(held.expires) == clock.now() + timedelta(seconds=100)
    assert held.since == first.decision.claim.since if first.decision.claim else False


def test_a_release_ends_the_claim_and_the_comment_is_everyones(
    store: CommentStore, clock: FakeClock
) -> None:
    comment = store.append(new())
    claims(store).claim(comment.id, ClaimRequest.claim(ANA))
    clock.advance(5)
    released = claims(store).claim(comment.id, ClaimRequest.release(ANA))
    assert released.outcome is ClaimOutcome.RELEASED
    held = listed(store, comment.id)  # no claim at all (GitHub deletes its note), or one ended now
    assert held is None or (not held.live_at(clock.now()) and when(held.expires) == clock.now())
    assert claims(store).claim(comment.id, ClaimRequest.claim(BEN)).outcome is ClaimOutcome.CLAIMED


def test_only_the_holder_or_a_person_forcing_it_releases(
    store: CommentStore, clock: FakeClock
) -> None:
    comment = store.append(new())
    claims(store).claim(comment.id, ClaimRequest.claim(ANA))
    assert claims(store).claim(comment.id, ClaimRequest.release(BEN)).outcome is ClaimOutcome.HELD
    nothing = claims(store).claim(store.append(new("b")).id, ClaimRequest.release(BEN))
    assert nothing.outcome is ClaimOutcome.NOT_HELD
    person = Claimant.of("Ada (person)", "cli-ada")
    forced = claims(store).claim(comment.id, ClaimRequest.release(person, force=True))
    assert forced.outcome is ClaimOutcome.RELEASED
    assert forced.decision.holder is not None
    assert forced.decision.holder.session == "ms-ana"
    assert live_claim(forced.comment, clock.now()) is None


def test_a_person_takes_a_claim_over_by_force(store: CommentStore, clock: FakeClock) -> None:
    comment = store.append(new())
    claims(store).claim(comment.id, ClaimRequest.claim(ANA))
    person = Claimant.of("Ada (person)", "cli-ada")
    taken = claims(store).claim(comment.id, ClaimRequest.claim(person, force=True))
    assert taken.outcome is ClaimOutcome.TAKEN_OVER
    assert taken.decision.holder is not None
    assert taken.decision.holder.session == "ms-ana"
    held = listed(store, comment.id)
    assert held is not None
    assert held.session == "cli-ada"
    assert claims(store).claim(comment.id, ClaimRequest.claim(ANA)).outcome is ClaimOutcome.HELD


def test_a_lease_lapses_on_the_stores_clock(store: CommentStore, clock: FakeClock) -> None:
    comment = store.append(new())
    claims(store).claim(comment.id, ClaimRequest.claim(ANA, 60))
    clock.advance(59)
    assert claims(store).claim(comment.id, ClaimRequest.claim(BEN)).outcome is ClaimOutcome.HELD
    clock.advance(1)
    taken = claims(store).claim(comment.id, ClaimRequest.claim(BEN, 60))
    assert taken.outcome is ClaimOutcome.CLAIMED
    assert taken.decision.holder is None
    held = listed(store, comment.id)
    assert held is not None
    assert held.session == "ms-ben"


def test_an_unknown_id_is_not_found(store: CommentStore) -> None:
    store.append(new())
    with pytest.raises(NotFoundError, match=r"\bnope\b"):
        claims(store).claim("nope", ClaimRequest.claim(ANA))


def test_a_sweep_renews_or_ends_only_the_sessions_own_claims(
    store: CommentStore, clock: FakeClock
) -> None:
    mine = [store.append(new(f"mine {i}")).id for i in range(2)]
    theirs = store.append(new("theirs")).id
    for comment_id in mine:
        claims(store).claim(comment_id, ClaimRequest.claim(ANA, 100))
    claims(store).claim(theirs, ClaimRequest.claim(BEN, 100))
    clock.advance(60)
    renewed = claims(store).sweep_claims(BRANCH, ClaimRequest.claim(ANA, 100))
    assert sorted(c.id for c in renewed) == sorted(mine)
    for comment_id in mine:
        held = listed(store, comment_id)
        assert held is not None
        assert when(held.expires) == clock.now() + timedelta(seconds=100)
    ended = claims(store).sweep_claims(BRANCH, ClaimRequest.release(ANA))
    assert sorted(c.id for c in ended) == sorted(mine)
    assert all(live_claim(c, clock.now()) is None for c in ended)
    other = listed(store, theirs)
    assert other is not None
    assert other.live_at(clock.now())
    assert other.session == "ms-ben"
    assert claims(store).sweep_claims(BRANCH, ClaimRequest.release(ANA)) == []


def test_a_submitted_claim_is_never_taken(store: CommentStore, clock: FakeClock) -> None:
    planted = {"agent": "x", "session": "ms-x", "since": "2026-01-01T12:00:00.000Z"}
    planted["expires"] = "2026-01-01T12:30:00.000Z"
    stored = store.append(NewComment(branch=BRANCH, body="Hi", extra={CLAIM: planted}))
    assert claim_of(stored) is None
    assert listed(store, stored.id) is None
    granted = claims(store).claim(stored.id, ClaimRequest.claim(ANA))
    assert granted.outcome is ClaimOutcome.CLAIMED


def test_eight_processes_race_for_one_claim_and_exactly_one_wins(
    store: CommentStore, clock: FakeClock, racers: Racers
) -> None:
    comment = store.append(new())
    sessions = [f"ms-racer-{i}" for i in range(8)]
    results = racers.race(comment.id, sessions, 300, clock.now())
    assert not [r for r in results if "error" in r], results
    winners = [s for s, r in zip(sessions, results, strict=True) if r["outcome"] == "claimed"]
    assert len(winners) == 1, results
    [winner] = winners
    for session, result in zip(sessions, results, strict=True):
        if session != winner:
            assert result["outcome"] == "held", results
            assert result["holder"]["session"] == winner, results
    held = listed(store, comment.id)
    assert held is not None
    assert held.session == winner
    assert claims(store).claim(comment.id, ClaimRequest.claim(ANA)).outcome is ClaimOutcome.HELD


def test_a_claimant_killed_with_sigkill_loses_its_claim_at_expiry(
    store: CommentStore, clock: FakeClock, racers: Racers
) -> None:
    comment = store.append(new())
    holder = racers.hold(comment.id, "ms-doomed", 120, clock.now())
    assert holder.result["outcome"] == "claimed", holder.result
    holder.kill()
    refused = claims(store).claim(comment.id, ClaimRequest.claim(BEN))
    assert refused.outcome is ClaimOutcome.HELD
    assert refused.decision.holder is not None
    assert refused.decision.holder.session == "ms-doomed"
    clock.advance(120)
    taken = claims(store).claim(comment.id, ClaimRequest.claim(BEN))
    assert taken.outcome is ClaimOutcome.CLAIMED


_SESSIONS = [
    Claimant.of("agent a", "ms-a"),
    Claimant.of("agent b", "ms-b"),
    Claimant.of("a person", "cli-p"),
]
_STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("claim"), st.integers(0, 2), st.sampled_from([10, 30, 90]), st.booleans()
        ),
        st.tuples(st.just("release"), st.integers(0, 2), st.just(10), st.booleans()),
        st.tuples(st.just("wait"), st.just(0), st.sampled_from([1, 5, 20, 45]), st.just(False)),
    ),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=_STEPS)
@example(steps=[("claim", 0, 10, False), ("release", 0, 10, False), ("claim", 1, 10, False)])
def test_two_live_claims_on_one_comment_never_overlap_in_time(
    store: CommentStore, clock: FakeClock, steps: list[tuple[str, int, int, bool]]
) -> None:
    comment = store.append(new("raced for"))
    intervals: list[list[object]] = []  # [session, start, end], as the store answered
    for action, who, seconds, force in steps:
        if action == "wait":
            clock.advance(seconds)
            continue
        claimant = _SESSIONS[who]
        request = (
            ClaimRequest.claim(claimant, seconds, force=force)
            if action == "claim"
            else ClaimRequest.release(claimant, force=force)
        )
        result = claims(store).claim(comment.id, request)
        _record(intervals, result, clock.now(), claimant)
        held = listed(store, comment.id)
        stored = result.decision.claim
        assert (held.shown() if held else None) == (stored.shown() if stored else None)
    for i, (session_a, start_a, end_a) in enumerate(intervals):
        for session_b, start_b, end_b in intervals[i + 1 :]:
            if session_a != session_b:
                assert end_a <= start_b or end_b <= start_a, intervals  # type: ignore[operator]


def _record(
    intervals: list[list[object]], result: ClaimResult, now: datetime, claimant: Claimant
) -> None:
    """Note the store's answer as intervals each session held the comment.

    A release ends the holder's interval (a forced one names it), else the claimant's own; the
    store may keep the ended claim or none.
    """
    claim = result.decision.claim
    outcome = result.outcome
    if outcome in (ClaimOutcome.CLAIMED, ClaimOutcome.TAKEN_OVER) and claim is not None:
        if outcome is ClaimOutcome.TAKEN_OVER:
            holder = result.decision.holder
            _end(intervals, holder.session if holder is not None else None, now)
        intervals.append([claim.session, when(claim.since), when(claim.expires)])
    elif outcome is ClaimOutcome.RENEWED and claim is not None and intervals:
        intervals[-1][2] = when(claim.expires)
    elif outcome is ClaimOutcome.RELEASED:
        ended = result.decision.holder or claim
        _end(intervals, ended.session if ended is not None else claimant.session, now)


def _end(intervals: list[list[object]], session: str | None, now: datetime) -> None:
    if session is None:
        return
    for interval in reversed(intervals):
        if interval[0] == session:
            interval[2] = min(interval[2], now)  # type: ignore[type-var]
            return


def test_many_claims_land_in_one_call_each_decided_alone(
    store: CommentStore, clock: FakeClock
) -> None:
    free = [store.append(new(f"free {i}")).id for i in range(3)]
    taken = store.append(new("taken")).id
    claims(store).claim(taken, ClaimRequest.claim(BEN))
    results = claims(store).claim_many([*free, taken, "gone"], ClaimRequest.claim(ANA, 120))
    assert [r.comment.id for r in results] == [*free, taken]  # the unknown id has no result
    assert [r.outcome for r in results] == [ClaimOutcome.CLAIMED] * 3 + [ClaimOutcome.HELD]
    assert results[-1].decision.holder is not None
    assert results[-1].decision.holder.session == "ms-ben"
    for comment_id in free:
        held = listed(store, comment_id)
        assert held is not None
        assert held.session == "ms-ana"
    again = claims(store).claim_many(free, ClaimRequest.claim(ANA, 120))
    assert [r.outcome for r in again] == [ClaimOutcome.RENEWED] * 3
    assert claims(store).claim_many([], ClaimRequest.claim(ANA)) == []
