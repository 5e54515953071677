"""Bench rows for GitHub, against the fake: what a wait and a resolve cost in requests.

``github_row``: an idle 55 s ``wait_for_comments`` costs no rate limit after its first look.
The anchor is Maple's loop, measured in the same run against the same fake: list the pull
request's comments every 2 s with plain requests, each of which counts against the limit.

``github_requests_row``: every request (a ``304`` too) a resolve with a gate token makes
through a fresh ``maple-mcp``, split into the resolve and the gate it publishes, and an idle
wait's first look through the wait service, against the budgets of issue 16.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from contract_tests.github_peers import api_transport
from contract_tests.support import FakeClock, git, make_repo
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.transport import PyGithubTransport
from maple_adapters.github.wrappers import ResilientTransport
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.paging import ListQuery
from maple_core.waiting import wait_for_comments
from tests.github.fake_github import FakeGitHub, Served, serve

OURS, MAPLES = "ghp_bench_maple_py", "ghp_bench_maple_ts"
GATE = "ghs_bench_gate_installation"
WAIT_MS = 55_000
RESOLVE_BUDGET, PUBLISH_BUDGET, FIRST_LOOK_BUDGET = 4, 3, 3
# resolve_comment claims the comment first and releases it after (docs/claims.md)
CLAIM_BUDGET, RELEASE_BUDGET = 4, 2
REVIEW_GETS = 2
"""What the pull request's own review (``MAPLE_PR_REVIEW=agent``, the default) adds to the gate's
read: its review comments and reviews, conditional; the review's own costs are its row's."""


def server_env(served: Served, **extra: str) -> dict[str, str]:
    """``maple-mcp``'s environment for the GitHub store on the fake, as ``OURS``."""
    return {
        "GITHUB_TOKEN": OURS,
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": served.base_url,
        "REQUESTS_CA_BUNDLE": served.ca_file,
        **extra,
    }


def maple_polling(base_url: str, ca_file: str, stop: threading.Event) -> None:
    """Maple's wait: list every 2 s without conditional requests."""
    store = GitHubLedgerStore(
        ResilientTransport(PyGithubTransport(MAPLES, base_url=base_url, verify=ca_file)),
        "acme",
        "web",
        FakeClock(),
    )
    while not stop.is_set():
        store.list(ListQuery(branch="feat/idle"))
        stop.wait(2.0)


def github_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub(tokens={OURS: 1, MAPLES: 1})
    fake.open_pull("feat/idle")
    with tempfile.TemporaryDirectory(prefix="maple-gh-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            seed = GitHubLedgerStore(
                ResilientTransport(
                    PyGithubTransport(OURS, base_url=served.base_url, verify=served.ca_file)
                ),
                "acme",
                "web",
                FakeClock(),
            )
            seed.append(NewComment(branch="feat/idle", body="waiting for nothing"))
            repo = make_repo(Path(tmp) / "repo", "feat/idle")
            env = server_env(served)
            stop = threading.Event()
            anchor = threading.Thread(
                target=maple_polling, args=(served.base_url, served.ca_file, stop)
            )

            async def wait() -> tuple[int, int, int]:
                params = StdioServerParameters(
                    command=str(Path(sys.executable).with_name("maple-mcp")),
                    cwd=repo,
                    env=env,
                )
                async with Client(params) as client:
                    start_counted = fake.counted_by_token.get(OURS, 0)
                    start_requests = fake.requests_by_token.get(OURS, 0)
                    anchor.start()
                    result = await client.call_tool(
                        "wait_for_comments",
                        {
                            "branch": "feat/idle",
                            "cursor": "2999-01-01T00:00:00Z",
                            "timeoutMs": WAIT_MS,
                        },
                    )
                    assert result.structured_content is not None
                    assert result.structured_content["status"] == "timeout"
                    ours = fake.counted_by_token.get(OURS, 0) - start_counted
                    total = fake.requests_by_token.get(OURS, 0) - start_requests
                    return ours, total, start_counted

            began = time.monotonic()
            counted, total, _ = anyio.run(wait)
            stop.set()
            anchor.join()
            elapsed = time.monotonic() - began
        finally:
            served.stop()
    # the pull request, its comments, GET /user, and the review's comments and reviews: no 304 yet
    first_look = FIRST_LOOK_BUDGET + REVIEW_GETS
    after_first = max(counted - first_look, 0)
    maples = fake.counted_by_token.get(MAPLES, 0)
    return (
        f"idle wait_for_comments on GitHub, {elapsed:.0f} s",
        f"{after_first} counted after the first look ({counted} counted, {total} requests in all)",
        f"Maple's 2 s loop, same run: {maples} counted",
        after_first / max(maples, 1),
        "0 counted after the first",
        after_first == 0,
    )


def github_requests_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub(tokens={OURS: 1, GATE: 4242})
    fake.open_pull("feat/resolve")
    with tempfile.TemporaryDirectory(prefix="maple-gh-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            transport = api_transport(served, OURS)
            seeded = GitHubLedgerStore(transport, "acme", "web", FakeClock()).append(
                NewComment(branch="feat/resolve", body="resolve me")
            )
            fake.requests.clear()
            fresh = GitHubLedgerStore(api_transport(served, OURS), "acme", "web", SystemClock())
            wait_for_comments(fresh, "feat/resolve", "2999-01-01T00:00:00Z", 0, SystemClock())
            first_look = len(fake.requests)
            env = server_env(served, MAPLE_GATE_TOKEN=GATE, MAPLE_GATE_APP_ID="4242")
            repo = make_repo(Path(tmp) / "repo", "feat/resolve")
            head = git(repo, "rev-parse", "HEAD")  # the fix, pushed: the pull request's head
            pull = next(p for p in fake.repo().pulls if p.head_ref == "feat/resolve")
            fake.push(pull.number, head)

            async def resolve() -> list[str]:
                params = StdioServerParameters(
                    command=str(Path(sys.executable).with_name("maple-mcp")), cwd=repo, env=env
                )
                async with Client(params) as client:
                    fake.requests.clear()
                    result = await client.call_tool(
                        "resolve_comment", {"id": seeded.id, "sha": head}
                    )
                    assert not result.is_error, result.content
                    return [path for _, path, _ in fake.requests]

            paths = anyio.run(resolve)
        finally:
            served.stop()
    gate_starts = next(i for i, path in enumerate(paths) if path.endswith("/pulls"))
    resolving, publishing = gate_starts, len(paths) - gate_starts
    budget = CLAIM_BUDGET + RESOLVE_BUDGET + PUBLISH_BUDGET + REVIEW_GETS + RELEASE_BUDGET
    return (
        "GitHub requests (304s too): a resolve with a gate token; an idle wait's first look",
        f"resolve {resolving} + gate {publishing}; first look {first_look}",
        "before issue 16: 12 in all; first look 4",
        (resolving + publishing) / budget,
        f"≤ {CLAIM_BUDGET} (claim) + {RESOLVE_BUDGET} + {PUBLISH_BUDGET} + {REVIEW_GETS} (review)"
        f" + {RELEASE_BUDGET} (release); ≤ {FIRST_LOOK_BUDGET}",
        resolving <= CLAIM_BUDGET + RESOLVE_BUDGET
        and publishing <= PUBLISH_BUDGET + REVIEW_GETS + RELEASE_BUDGET
        and first_look <= FIRST_LOOK_BUDGET,
    )
