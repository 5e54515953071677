"""``maple-mcp`` and ``maple-stop-hook`` configured for GitHub, against the fake over TLS.

The request counts are every request the fake saw, a ``304`` included: it is free against the
rate limit but not in time. Each server is fresh, so once-per-store questions (``GET /user``)
are paid.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from contract_tests.github_peers import TOKEN, api_transport, cli_transport
from contract_tests.support import FakeClock, git, make_repo
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.waiting import wait_for_comments
from tests.github.fake_github import FakeGitHub, Served
from tests.mcp_support import stdio_server, structured
from tests.support import HOOK

pytestmark = pytest.mark.anyio
GATE_TOKEN = "ghs_gate_installation_token_42"


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(tokens={TOKEN: 1, GATE_TOKEN: 4242})


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull("feat/x")
    return served.fake


def checkout_at_head(fake: FakeGitHub, tmp: Path, branch: str) -> tuple[Path, str]:
    """A checkout of ``branch`` whose commit is pushed as pull request 1's head; and that sha."""
    repo = make_repo(tmp / "repo", branch)
    head = git(repo, "rev-parse", "HEAD")
    fake.push(1, head)
    return repo, head


def env_for(served: Served, transport: str, tmp: Path) -> dict[str, str]:
    common = {
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": served.base_url,
        "REQUESTS_CA_BUNDLE": served.ca_file,
        "SSL_CERT_FILE": served.ca_file,
        "GH_CONFIG_DIR": str(tmp / "gh"),
        "XDG_CACHE_HOME": str(tmp / "cache"),  # the shared poll's folder, the test's own
    }
    if transport == "api":
        return {**common, "GITHUB_TOKEN": TOKEN}
    return {**common, "MAPLE_GITHUB_TRANSPORT": "cli", "GH_ENTERPRISE_TOKEN": TOKEN}


@pytest.mark.parametrize("transport", ["api", "cli"])
async def test_the_agent_loop_over_github(
    served: Served, fake: FakeGitHub, transport: str, tmp_path: Path
) -> None:
    seeded = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock()).append(
        NewComment(branch="feat/x", body="The header wraps at 375px.")
    )
    repo, head = checkout_at_head(fake, tmp_path, "feat/x")
    env = env_for(served, transport, tmp_path)
    async with stdio_server(
        repo, **env, MAPLE_GATE_TOKEN=GATE_TOKEN, MAPLE_GATE_APP_ID="4242"
    ) as client:
        listed = structured(await client.call_tool("list_comments", {"branch": "feat/x"}))
        assert [c["id"] for c in listed] == [seeded.id]
        drained = structured(await client.call_tool("wait_for_comments", {"branch": "feat/x"}))
        assert drained["status"] == "comments"
        resolved = structured(
            await client.call_tool("resolve_comment", {"id": seeded.id, "sha": head})
        )
        assert resolved["status"] == "resolved"
    [run] = fake.repo().check_runs
    assert (run["app"]["id"], run["status"], run["conclusion"]) == (4242, "completed", "success")
    assert run["head_sha"] == fake.repo().pulls[0].head_sha
    ledger = next(c["body"] for c in fake.issue_comments(1) if "```maple" in c["body"])
    assert '"status":"resolved"' in ledger


@pytest.mark.parametrize("transport", ["api", "cli"])
def test_the_stop_hook_reads_the_pull_request(
    served: Served, fake: FakeGitHub, transport: str, tmp_path: Path
) -> None:
    GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock()).append(
        NewComment(branch="feat/x", body="Still open on GitHub.")
    )
    repo = make_repo(tmp_path / "repo", "feat/x")
    payload = json.dumps({"session_id": "s", "cwd": str(repo), "stop_hook_active": False})
    done = subprocess.run(
        [str(HOOK)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **__import__("os").environ,
            **env_for(served, transport, tmp_path),
            "TMPDIR": str(tmp_path),
        },
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["decision"] == "block"
    assert "Still open on GitHub." in answer["reason"]


def test_the_stop_hook_gives_up_on_a_silent_github_within_ten_seconds(tmp_path: Path) -> None:
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts connections, never answers
    port = listener.getsockname()[1]
    repo = make_repo(tmp_path / "repo", "feat/x")
    env = {
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "GITHUB_TOKEN": TOKEN,
        "MAPLE_GITHUB_API": f"https://127.0.0.1:{port}/api/v3",
        "TMPDIR": str(tmp_path),
    }
    started = time.monotonic()
    done = subprocess.run(
        [str(HOOK)],
        input=json.dumps({"session_id": "s", "cwd": str(repo)}),
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, **env},
    )
    elapsed = time.monotonic() - started
    listener.close()
    assert (done.returncode, done.stdout) == (0, "{}")
    assert "within 10 s" in done.stderr
    assert elapsed < 12
    assert TOKEN not in done.stderr


RESOLVE_BUDGET = 4
"""Requests the resolve itself may make: who the token is, the ledger, the edit, its read-back."""
CLAIM_BUDGET = 1
"""Requests asking who holds the comment (``resolve_comment`` asks before resolving,
docs/claims.md) may add: the ledger (a conditional read). It posts no grant: the resolve's own
edit ends the claim."""
RELEASE_BUDGET = 0
"""Requests ending the claim once the comment is resolved may add: none, the resolve ended it."""
PUBLISH_BUDGET = 3
"""Requests publishing the gate may add: the pull request's head, the check run, its write."""
NOT_PUSHED_CHECK = 1
"""One more, the pull request's commits, when the resolution names a commit other than the head
(asked once per head), so the check run can say the fix is not pushed yet."""
FIRST_LOOK_BUDGET = 3
"""Requests an idle wait's first look may make: the pull request, its comments, who the token is."""
REVIEW_GETS = 2
"""What the pull request's own review adds to a read of the branch (``MAPLE_PR_REVIEW=agent``, the
default): its review comments and its reviews, conditional GETs like the ledger's."""


def _seeded(served: Served) -> str:
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    return store.append(NewComment(branch="feat/x", body="The header wraps at 375px.")).id


@pytest.mark.parametrize("pushed", [True, False], ids=["pushed", "not-pushed"])
@pytest.mark.parametrize("transport", ["api", "cli"])
async def test_a_resolve_its_claim_and_its_gate_stay_inside_their_request_budgets(
    served: Served,
    fake: FakeGitHub,
    transport: str,
    pushed: bool,
    tmp_path: Path,
) -> None:
    comment_id = _seeded(served)
    repo = make_repo(tmp_path / "repo", "feat/x")
    fake.push(1, git(repo, "rev-parse", "HEAD"))
    if not pushed:  # a commit the checkout has and the pull request does not, yet
        git(repo, "commit", "-q", "--allow-empty", "-m", "not pushed yet")
    sha = git(repo, "rev-parse", "HEAD")
    env = env_for(served, transport, tmp_path)
    async with stdio_server(
        repo, **env, MAPLE_GATE_TOKEN=GATE_TOKEN, MAPLE_GATE_APP_ID="4242"
    ) as client:
        fake.requests.clear()
        resolved = structured(
            await client.call_tool("resolve_comment", {"id": comment_id, "sha": sha})
        )
        assert resolved["status"] == "resolved"
        made = list(fake.requests)
    gate_starts = next(i for i, (_, path, _) in enumerate(made) if path.endswith("/pulls"))
    resolving, publishing = made[:gate_starts], made[gate_starts:]
    assert len(resolving) <= CLAIM_BUDGET + RESOLVE_BUDGET, resolving
    extra = REVIEW_GETS + (0 if pushed else NOT_PUSHED_CHECK) + RELEASE_BUDGET
    assert len(publishing) <= PUBLISH_BUDGET + extra, publishing
    [run] = fake.repo().check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    assert ("Not pushed" in run["output"]["summary"]) is not pushed


@pytest.mark.parametrize("transport", ["api", "cli"])
def test_an_idle_waits_first_look_costs_at_most_three_requests(
    served: Served,
    fake: FakeGitHub,
    transport: str,
    tmp_path: Path,
) -> None:
    _seeded(served)
    made = cli_transport(served, tmp_path / "gh") if transport == "cli" else api_transport(served)
    store = GitHubLedgerStore(made, "acme", "web", SystemClock())
    fake.requests.clear()
    waited = wait_for_comments(store, "feat/x", "2999-01-01T00:00:00Z", 0, SystemClock())
    assert waited.comments == ()
    assert len(fake.requests) <= FIRST_LOOK_BUDGET, fake.requests


@pytest.mark.parametrize("transport", ["api", "cli"])
async def test_an_idle_wait_through_maple_mcp_looks_first_with_at_most_three_requests(
    served: Served,
    fake: FakeGitHub,
    transport: str,
    tmp_path: Path,
) -> None:
    _seeded(served)
    repo = make_repo(tmp_path / "repo", "feat/x")
    async with stdio_server(repo, **env_for(served, transport, tmp_path)) as client:
        fake.requests.clear()
        waited = structured(  # one second: shorter than the ledger's 2 s conditional polling
            await client.call_tool(
                "wait_for_comments",
                {"branch": "feat/x", "cursor": "2999-01-01T00:00:00Z", "timeoutMs": 1000},
            )
        )
        made = list(fake.requests)
    assert waited["status"] == "timeout"
    assert len(made) <= FIRST_LOOK_BUDGET + REVIEW_GETS, made
    assert not any(path.endswith("/graphql") for _, path, _ in made)  # nothing to act on
