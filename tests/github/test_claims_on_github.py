"""Claims on a pull request: a claim note and the check run say who is on each comment.

``maple-mcp``'s tools through the official client in-process, over the GitHub store (PyGithub)
and the check-run publisher against the fake GitHub.
"""

from __future__ import annotations

import pytest
from mcp.client import Client

from contract_tests.github_peers import api_transport
from contract_tests.support import FakeClock
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.log import ServerLog
from maple_core.anchors import Anchor
from maple_core.comments import Comment, NewComment
from maple_core.targets import GateTarget
from maple_entrypoints.mcp_server import build_server
from maple_entrypoints.mcp_session import ClaimSession
from tests.github.fake_github import FakeGitHub, Served
from tests.mcp_support import error_text, structured

pytestmark = pytest.mark.anyio
BRANCH = "feat/claimed"
SHA = "c0ffee1" + "b" * 33


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(tokens={"ghp_fake_token": 1, "ghp_gate_app": 4242})


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull(BRANCH, head_sha=SHA)
    return served.fake


def ledgers(fake: FakeGitHub) -> list[str]:
    return [c["body"] for c in fake.issue_comments(1) if "```maple" in c["body"]]


def one_comment(served: Served) -> tuple[FakeClock, GitHubLedgerStore, Comment]:
    """A fake clock, a GitHub store on it, and one comment on the pull request."""
    clock = FakeClock()
    store = GitHubLedgerStore(api_transport(served), "acme", "web", clock)
    return clock, store, store.append(NewComment(branch=BRANCH, body="One.", anchor=Anchor()))


def notes(fake: FakeGitHub) -> list[str]:
    return [c["body"] for c in fake.issue_comments(1) if "<!-- maple-claims " in c["body"]]


async def test_a_claim_shows_in_its_note_and_the_check_runs_summary(
    served: Served, fake: FakeGitHub
) -> None:
    clock = FakeClock()
    store = GitHubLedgerStore(api_transport(served), "acme", "web", clock)
    gate = GitHubCheckRunPublisher(
        api_transport(served, "ghp_gate_app"), "acme", "web", now=clock.now, app_id=4242
    )
    comment = store.append(NewComment(branch=BRANCH, body="Tighten the header.", anchor=Anchor()))
    [pull] = [p for p in fake.repo().pulls if p.head_ref == BRANCH]
    target = GateTarget(ServerLog("maple-mcp"), gate)
    server = build_server(
        store, target=target, clock=clock, session=ClaimSession(store, clock, "ms-github")
    )
    async with Client(server) as client:
        claimed = structured(await client.call_tool("claim_comment", {"id": comment.id}))
        assert claimed["outcome"] == "claimed"
        [ledger] = ledgers(fake)
        assert "| Agent |" not in ledger  # the grant is a note: the ledger is left as it is
        [note] = notes(fake)
        assert note.startswith(f"👀 `mcp` is on `{comment.id}` until 12:10 UTC (maple claim).")
        [run] = fake.repo().check_runs
        assert "_(on it: `mcp` since 12:00 UTC)_" in run["output"]["summary"]
        released = structured(
            await client.call_tool("claim_comment", {"id": comment.id, "release": True})
        )
        assert released["outcome"] == "released"
        assert notes(fake) == []  # the release deleted the note
        assert len(ledgers(fake)) == 1
        [run] = fake.repo().check_runs
        assert "on it" not in run["output"]["summary"]
    assert pull.number == 1


def test_racing_claimants_leave_one_note_and_the_ledger_untouched(
    served: Served, fake: FakeGitHub
) -> None:
    from maple_core.claims import Claimant, ClaimRequest

    clock = FakeClock()
    stores = [GitHubLedgerStore(api_transport(served), "acme", "web", clock) for _ in range(3)]
    comment = stores[0].append(NewComment(branch=BRANCH, body="One.", anchor=Anchor()))
    outcomes = [
        s.claim(comment.id, ClaimRequest.claim(Claimant.of("a", f"ms-{i}"))).outcome.value
        for i, s in enumerate(stores)
    ]
    assert outcomes == ["claimed", "held", "held"]
    assert len(ledgers(fake)) == 1
    assert len(notes(fake)) == 1


async def test_a_resolve_ends_its_claim_in_its_own_edit_and_is_refused_anothers(
    served: Served, fake: FakeGitHub
) -> None:
    from maple_core.claims import Claimant, ClaimRequest, claim_of

    clock = FakeClock()
    store = GitHubLedgerStore(api_transport(served), "acme", "web", clock)
    mine, theirs = (
        store.append(NewComment(branch=BRANCH, body=text, anchor=Anchor())).id
        for text in ("Tighten the header.", "Fix the footer.")
    )
    other = GitHubLedgerStore(api_transport(served), "acme", "web", clock)
    held = other.claim(theirs, ClaimRequest.claim(Claimant.of("codex", "ms-other")))
    assert held.decision.granted
    server = build_server(
        store, target=None, clock=clock, session=ClaimSession(store, clock, "ms-github")
    )
    async with Client(server) as client:
        claimed = structured(await client.call_tool("claim_comment", {"id": mine}))
        assert claimed["outcome"] == "claimed"
        fake.requests.clear()
        resolved = structured(await client.call_tool("resolve_comment", {"id": mine, "sha": SHA}))
        assert resolved["status"] == "resolved"
        writes = [(m, p) for m, p, _ in fake.requests if m != "GET"]
        # the resolve's edit ends the claim; then its note goes
        assert [m for m, _ in writes] == ["PATCH", "DELETE"], writes
        refused = error_text(await client.call_tool("resolve_comment", {"id": theirs, "sha": SHA}))
        assert f"Comment {theirs} is claimed by codex (session ms-other)" in refused
    [ledger] = [c for c in store.list_branch(BRANCH) if c.id == mine]
    assert claim_of(ledger) is None  # ended by the resolve, its note gone: not left to lapse
    [note] = notes(fake)  # theirs is still on it
    assert theirs in note
    assert "| Agent |" in ledgers(fake)[0]  # the resolve's write shows who is on the rest


def test_a_claim_just_after_a_listing_decides_on_the_listings_read(
    served: Served, fake: FakeGitHub
) -> None:
    from maple_core.claims import Claimant, ClaimRequest
    from maple_core.listing import list_all

    _clock, store, comment = one_comment(served)
    assert [c.id for c in list_all(store, BRANCH)] == [comment.id]
    fake.requests.clear()
    claimed = store.claim(comment.id, ClaimRequest.claim(Claimant.of("a", "ms-a")))
    assert claimed.decision.granted
    # the grant's note and its read-back: no read of its own first
    assert [m for m, _, _ in fake.requests] == ["POST", "GET"], fake.requests
    fake.requests.clear()
    released = store.claim(comment.id, ClaimRequest.release(Claimant.of("a", "ms-a")))
    assert released.outcome.value == "released"
    assert [m for m, _, _ in fake.requests] == ["DELETE"], fake.requests


def test_a_note_posted_by_someone_who_cannot_write_the_ledger_claims_nothing(
    served: Served, fake: FakeGitHub
) -> None:
    """Note-looking text from a commenter without push access neither holds nor blocks."""
    import json

    from maple_core.claims import Claimant, ClaimRequest

    _clock, store, comment = one_comment(served)
    forged = {
        comment.id: {
            "agent": "mallory",
            "session": "ms-forged",
            "since": "2026-01-01T12:00:00.000Z",
            "expires": "2026-01-01T12:09:00.000Z",
            "chain": {"depth": 99, "rev": 1, "note": True},
        }
    }
    fake.add_comment(1, f"👀 hi\n<!-- maple-claims {json.dumps(forged)} -->", login="mallory")
    [listed] = store.list_branch(BRANCH)
    assert "claim" not in listed.extra
    claimed = store.claim(comment.id, ClaimRequest.claim(Claimant.of("a", "ms-a")))
    assert claimed.outcome.value == "claimed"
    assert any("mallory" in c["body"] for c in fake.issue_comments(1))  # never deleted either


def test_a_claimants_name_cannot_break_out_of_its_note(served: Served, fake: FakeGitHub) -> None:
    """An agent's name is shown inert, and cannot close the hidden block that keeps claims."""
    from maple_core.claims import Claimant, ClaimRequest, claim_of
    from maple_core.text import code_span

    _clock, store, comment = one_comment(served)
    hostile = Claimant.of("x --> @octocat `![i](https://evil.example/p.png)`", "ms-h")
    assert store.claim(comment.id, ClaimRequest.claim(hostile)).decision.granted
    [note] = notes(fake)
    words, block = note.split("\n", 1)
    assert words.startswith(f"👀 {code_span(hostile.agent, 40)} is on ")  # one inert code span
    assert "-->" not in words
    assert block.count("-->") == 1
    assert block.endswith("-->")
    [listed] = store.list_branch(BRANCH)
    held = claim_of(listed)
    assert held is not None
    assert held.session == "ms-h"


def test_a_lapsed_claims_note_goes_with_the_next_grant(served: Served, fake: FakeGitHub) -> None:
    """A session killed outright leaves its note; the next claimant's grant deletes it."""
    from maple_core.claims import Claimant, ClaimRequest

    clock, store, comment = one_comment(served)
    doomed = GitHubLedgerStore(api_transport(served), "acme", "web", clock)
    assert doomed.claim(
        comment.id, ClaimRequest.claim(Claimant.of("a", "ms-doomed"), 30)
    ).decision.granted
    [first] = notes(fake)
    clock.advance(31)
    taken = store.claim(comment.id, ClaimRequest.claim(Claimant.of("b", "ms-next")))
    assert taken.outcome.value == "claimed"
    [note] = notes(fake)
    assert note != first
    assert "`b`" in note
