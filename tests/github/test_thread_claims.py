"""A pull request's review thread keeps claims: in the ledger's record of it, shown by a 👀.

Through the public faces against the loopback fake GitHub, on both transports: the MCP tool
``claim_comment`` and ``maple comments claim/release`` on a ``ghrt_`` id put the token's 👀 on
the thread's first comment and take it off on release; of two claimants one wins and the other
is told who holds it; the session's sweep at its end takes the 👀 off too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contract_tests.conftest import review_store
from contract_tests.github_peers import TOKEN
from contract_tests.support import FakeClock, make_repo
from maple_core.claims import Claimant, ClaimRequest
from maple_core.listing import list_all
from tests.github.fake_github import DEFAULT_LOGIN, FakeGitHub, Served
from tests.github.test_end_to_end import env_for
from tests.github.test_pull_review_mcp import BRANCH, _maple, fake, fake_github
from tests.mcp_support import stdio_server, structured

__all__ = ["fake", "fake_github"]  # the fake GitHub this module shares with the review tests

pytestmark = pytest.mark.anyio


def opened_thread(fake: FakeGitHub) -> tuple[int, str]:
    """A reviewer's new thread on pull request 1: its first comment's id and the thread's id."""
    root = int(fake.add_review_comment(1, "rev", "Rename this.")["id"])
    return root, f"ghrt_1_{root}"


def eyes(fake: FakeGitHub, root: int) -> list[str]:
    """Who put a 👀 on the review comment ``root``."""
    listed: list[dict[str, Any]] = fake.repo().reactions.get(("pull", root), [])
    return [r["user"]["login"] for r in listed if r["content"] == "eyes"]


@pytest.mark.parametrize("transport", ["api", "cli"])
async def test_claim_comment_on_a_review_thread_puts_the_tokens_eyes_on_it_until_released(
    served: Served, fake: FakeGitHub, transport: str, tmp_path: Path
) -> None:
    root, thread = opened_thread(fake)
    repo = make_repo(tmp_path / "repo", BRANCH)
    async with stdio_server(repo, **env_for(served, transport, tmp_path)) as client:
        claimed = structured(await client.call_tool("claim_comment", {"id": thread}))
        assert claimed["outcome"] == "claimed"
        assert eyes(fake, root) == [DEFAULT_LOGIN]
        again = structured(await client.call_tool("claim_comment", {"id": thread}))
        assert again["outcome"] == "renewed"  # nothing written, the 👀 stays one
        assert eyes(fake, root) == [DEFAULT_LOGIN]
        released = structured(
            await client.call_tool("claim_comment", {"id": thread, "release": True})
        )
        assert released["outcome"] == "released"
        assert eyes(fake, root) == []
        listed = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert [c["id"] for c in listed] == [thread]
    posted = [(m, p) for m, p, _ in fake.requests if "/reactions" in p and m != "GET"]
    assert all(f"/repos/acme/web/pulls/comments/{root}/reactions" in p for _, p in posted)


@pytest.mark.parametrize("transport", ["api", "cli"])
async def test_maple_comments_claim_on_a_thread_another_session_holds_names_the_holder(
    served: Served, fake: FakeGitHub, transport: str, tmp_path: Path
) -> None:
    root, thread = opened_thread(fake)
    repo = make_repo(tmp_path / "repo", BRANCH)
    env = env_for(served, transport, tmp_path)
    async with stdio_server(repo, **env) as client:
        claimed = structured(await client.call_tool("claim_comment", {"id": thread}))
        assert claimed["outcome"] == "claimed"
        held = _maple(repo, env, "comments", "claim", thread)
        assert held.returncode == 1, held.stderr
        assert "session ms-" in held.stdout + held.stderr
        listed = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert listed[0]["claim"]["session"] == claimed["claim"]["session"]
    # the session ended cleanly: its claim, and its 👀, are gone
    assert eyes(fake, root) == []
    mine = _maple(repo, env, "comments", "claim", thread, "--json")
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout)["outcome"] == "claimed"
    assert eyes(fake, root) == [DEFAULT_LOGIN]
    gone = _maple(repo, env, "comments", "release", thread)
    assert gone.returncode == 0, gone.stderr
    assert eyes(fake, root) == []
    assert TOKEN not in held.stdout + held.stderr + mine.stdout + gone.stdout + gone.stderr


def test_of_racing_claimants_on_a_thread_exactly_one_wins(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    import threading

    root, thread = opened_thread(fake)
    clock = FakeClock()
    stores = [review_store(clock, served, "api", tmp_path / f"s{i}") for i in range(8)]
    outcomes: list[str] = []
    start = threading.Barrier(len(stores))

    def race(i: int) -> None:
        start.wait()
        request = ClaimRequest.claim(Claimant.of("agent", f"ms-{i}"))
        outcomes.append(stores[i].claim(thread, request).outcome.value)

    racers = [threading.Thread(target=race, args=(i,)) for i in range(len(stores))]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert sorted(outcomes) == ["claimed"] + ["held"] * 7
    assert eyes(fake, root) == [DEFAULT_LOGIN]
    [shown] = [c for c in list_all(stores[0], BRANCH) if c.id == thread]
    assert shown.extra["claim"]["agent"] == "agent"
