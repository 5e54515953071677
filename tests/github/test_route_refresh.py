"""``POST /gate/refresh`` against the fake GitHub, wired as ``maple route serve`` wires it.

These are Maple's route-refresh cases (behaviour §5.4, §10.14): the gate App's installation
tokens are minted by PyGithub from a real RS256 JWT the fake checks, the caller's push access is
asked with the caller's own token, and the verdict lands as a real check run.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract_tests.github_peers import api_transport
from contract_tests.support import FakeClock
from maple_adapters.github.parsing import parse_ledger_body
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.log import ServerLog
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from maple_core.paging import ListQuery
from maple_core.statuses import CommentStatus
from maple_entrypoints.bootstrap.route import route_server
from maple_entrypoints.route.serve import server_options
from maple_entrypoints.settings import StoreKind, load_settings
from tests.github.fake_github import FakeGitHub, Fault, Served
from tests.route_support import LiveRoute, Recorder, eventually, live_route
from tests.support import APP_ID, INSTALLATION, gate_app_environment

PUSHER = "ghp_pusher_0000000000000000000001"
READER = "ghp_reader_0000000000000000000002"
HIDDEN = "ghp_hidden_0000000000000000000003"
BRANCH = "feat/leaf"
HEAD = "f00dfeed" * 5


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    tokens = {PUSHER: 1, READER: 1, HIDDEN: 1}
    return FakeGitHub(tokens)


@pytest.fixture
def fake(served: Served, app_key: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    served.fake.reset()
    served.fake.install_app(APP_ID, app_key[1], INSTALLATION)
    served.fake.access.update({READER: "read", HIDDEN: "none"})
    served.fake.open_pull(BRANCH, head_sha=HEAD)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", served.ca_file)
    return served.fake


@pytest.fixture
def sink() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def route(
    fake: FakeGitHub,
    served: Served,
    app_key: tuple[str, str],
    clock: FakeClock,
    sink: io.StringIO,
    tmp_path: Path,
) -> Iterator[LiveRoute]:
    settings = load_settings(gate_app_environment(served.base_url, app_key[0]))
    options = server_options(
        route_server(StoreKind.GITHUB, tmp_path, settings=settings, clock=clock)
    )
    options = type(options)(**{**options.__dict__, "log": ServerLog("maple-route", stream=sink)})
    with live_route(options) as live:
        yield live


def seed(served: Served, clock: FakeClock, bodies: list[str]) -> list[str]:
    store = GitHubLedgerStore(api_transport(served, PUSHER), "acme", "web", clock)
    stored = store.append_many(
        [NewComment(branch=BRANCH, body=b, anchor=Anchor(selector="h1")) for b in bodies]
    )
    return [c.id for c in stored]


def resolve_all(served: Served, clock: FakeClock, ids: list[str]) -> None:
    store = GitHubLedgerStore(api_transport(served, PUSHER), "acme", "web", clock)
    for comment_id in ids:
        store.set_status(comment_id, CommentStatus.RESOLVED)


def refresh(route: LiveRoute, token: str | None, body: Any = None) -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return route.client.post(
        "/gate/refresh", json=body if body is not None else {"branch": BRANCH}, headers=headers
    )


def runs(fake: FakeGitHub) -> list[dict[str, Any]]:
    return fake.repo().check_runs


def test_two_open_comments_publish_a_blocked_run(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    seed(served, clock, ["one", "two"])
    answer = refresh(route, PUSHER)
    assert answer.status_code == 200
    assert answer.json() == {
        "branch": BRANCH,
        "sha": HEAD,
        "verdict": {"conclusion": "blocked", "reason": "comments-open", "open": 2, "total": 2},
    }
    assert answer.headers["cache-control"] == "no-store"
    [run] = runs(fake)
    assert (run["status"], run["head_sha"], run["name"]) == (
        "in_progress",
        HEAD,
        "maple/visual-review",
    )
    assert run["app"]["id"] == APP_ID
    assert "details_url" not in run  # no MAPLE_REVIEW_URL, so no link (never the Host's)


def test_all_resolved_completes_the_run_and_a_sent_verdict_is_ignored(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    ids = seed(served, clock, ["one"])
    forged = refresh(route, PUSHER, {"branch": BRANCH, "verdict": {"conclusion": "clear"}})
    assert forged.json()["verdict"]["conclusion"] == "blocked"
    assert runs(fake)[-1]["conclusion"] is None
    resolve_all(served, clock, ids)
    cleared = refresh(route, PUSHER)
    assert cleared.json()["verdict"] == {
        "conclusion": "clear",
        "reason": "all-resolved",
        "open": 0,
        "total": 1,
    }
    assert (runs(fake)[-1]["status"], runs(fake)[-1]["conclusion"]) == ("completed", "success")


def test_a_comment_posted_through_the_route_turns_a_clear_check_blocked(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    import json

    assert refresh(route, PUSHER).json()["verdict"]["conclusion"] == "clear"
    assert (runs(fake)[-1]["status"], runs(fake)[-1]["conclusion"]) == ("completed", "success")
    posted = route.client.post(
        "/comments",
        json={"branch": BRANCH, "body": "The footer overlaps.", "anchor": {"selector": "h1"}},
        headers={"authorization": f"Bearer {PUSHER}"},
    )
    assert posted.status_code == 201, posted.text
    blocked = eventually(lambda: runs(fake)[-1]["status"] == "in_progress" and runs(fake)[-1])
    assert blocked, runs(fake)
    assert (blocked["head_sha"], blocked["conclusion"]) == (HEAD, None)
    assert json.loads(blocked["external_id"]) == {"r": "comments-open", "o": 1, "t": 1}


def test_installation_tokens_are_minted_again_when_they_near_expiry(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    seed(served, clock, ["one"])
    fake.token_lifetime_s = 10  # inside PyGithub's 20 s refresh margin: each use mints anew
    refresh(route, PUSHER)
    refresh(route, PUSHER)
    assert fake.mints >= 2
    assert len(runs(fake)) == 1  # the same App's run, updated


def test_an_hour_long_installation_token_is_reused(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    seed(served, clock, ["one"])
    refresh(route, PUSHER)
    refresh(route, PUSHER)
    assert fake.mints == 1


def test_no_head_is_409_and_publishes_nothing(route: LiveRoute, fake: FakeGitHub) -> None:
    answer = refresh(route, PUSHER, {"branch": "feat/no-pull"})
    assert (answer.status_code, answer.json()) == (
        409,
        {"error": 'No head commit for "feat/no-pull"'},
    )
    assert runs(fake) == []


@pytest.mark.parametrize(
    ("token", "status", "error"),
    [
        (None, 401, "A GitHub token is required"),
        ("ghp_unknown_to_github_000000000000", 401, "GitHub did not accept this token"),
        (READER, 403, "This token cannot push to the repository"),
        (HIDDEN, 403, "This token cannot push to the repository"),
    ],
)
def test_callers_who_cannot_push_are_refused(
    route: LiveRoute, fake: FakeGitHub, token: str | None, status: int, error: str
) -> None:
    answer = refresh(route, token)
    assert (answer.status_code, answer.json()) == (status, {"error": error})
    assert runs(fake) == []
    assert fake.mints == 0


def test_push_answers_are_kept_a_minute(
    route: LiveRoute, fake: FakeGitHub, clock: FakeClock
) -> None:
    def repo_checks() -> int:
        return sum(1 for m, p, _ in fake.requests if m == "GET" and p.endswith("/repos/acme/web"))

    refresh(route, READER)
    refresh(route, READER)
    assert repo_checks() == 1
    clock.advance(61)
    refresh(route, READER)
    assert repo_checks() == 2


def test_github_failing_the_push_check_is_a_500_logged_without_the_token(
    route: LiveRoute, fake: FakeGitHub, sink: io.StringIO
) -> None:
    fake.faults.append(
        Fault("GET", "/repos/acme/web", 502, {"message": "Bad Gateway"}, times=9, exact=True)
    )
    answer = refresh(route, PUSHER)
    assert (answer.status_code, answer.json()) == (500, {"error": "Something went wrong"})
    assert "GitHub 502" in sink.getvalue()
    assert PUSHER not in sink.getvalue()


def test_the_verdict_is_read_with_a_store_built_from_the_callers_token(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], clock: FakeClock, tmp_path: Path
) -> None:
    import dataclasses

    seed(served, clock, ["one"])
    settings = load_settings(gate_app_environment(served.base_url, app_key[0]))
    options = server_options(
        route_server(StoreKind.GITHUB, tmp_path, settings=settings, clock=clock)
    )
    nobody = dataclasses.replace(options, store=lambda request: None)  # the fallback is empty
    with live_route(nobody) as route:
        fake.requests_by_token.clear()
        answer = refresh(route, PUSHER)
        assert answer.status_code == 200
        assert answer.json()["verdict"]["total"] == 1
        assert fake.requests_by_token.get(PUSHER, 0) >= 2  # the push check and the ledger read
    assert options.refresh is not None
    without = dataclasses.replace(
        nobody, refresh=dataclasses.replace(options.refresh, store_for_token=None)
    )
    with live_route(without) as route:
        answer = refresh(route, PUSHER)
    assert (answer.status_code, answer.json()) == (
        401,
        {"error": "There is no store to read the verdict from"},
    )


@pytest.mark.parametrize(
    ("body", "method", "status", "error"),
    [
        ({}, "POST", 400, "A branch is required"),
        ({"branch": ""}, "POST", 400, "A branch is required"),
        (None, "GET", 405, "Method not allowed"),
    ],
)
def test_a_missing_branch_is_400_and_a_get_is_405(
    route: LiveRoute, body: Any, method: str, status: int, error: str
) -> None:
    answer = route.client.request(
        method,
        "/gate/refresh",
        json=body,
        headers={"authorization": f"Bearer {PUSHER}"},
    )
    assert (answer.status_code, answer.json()) == (status, {"error": error})


def test_without_a_gate_app_the_refresh_answers_404(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], tmp_path: Path
) -> None:
    env = gate_app_environment(served.base_url, app_key[0])
    for name in ("MAPLE_GATE_APP_ID", "MAPLE_GATE_INSTALLATION_ID", "MAPLE_GATE_PRIVATE_KEY"):
        env.pop(name)
    options = server_options(route_server(StoreKind.GITHUB, tmp_path, settings=load_settings(env)))
    with live_route(options) as route:
        answer = refresh(route, PUSHER)
    assert (answer.status_code, answer.json()) == (
        404,
        {"error": "This deployment publishes no gate"},
    )


# -- the MCP side: a resolve asks the route (behaviour §5.5, §10.6) ----------------------------


@pytest.fixture
def recorded(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], clock: FakeClock, tmp_path: Path
) -> Iterator[tuple[LiveRoute, Recorder]]:
    settings = load_settings(gate_app_environment(served.base_url, app_key[0]))
    options = server_options(
        route_server(StoreKind.GITHUB, tmp_path, settings=settings, clock=clock)
    )
    recorders: list[Recorder] = []

    def wrap(app: Any) -> Recorder:
        recorders.append(Recorder(app))
        return recorders[0]

    with live_route(options, wrap=wrap) as live:
        yield live, recorders[0]


async def resolve_through_mcp(
    url: str, token: str, comment_id: str, served: Served, clock: FakeClock
) -> tuple[Any, str]:
    from mcp.client import Client

    from maple_adapters.route.http import RouteHttp
    from maple_adapters.route.refresh import RouteGateRefresher
    from maple_core.targets import GateTarget
    from maple_entrypoints.mcp_server import build_server
    from tests.mcp_support import structured

    sink = io.StringIO()
    log = ServerLog("maple-mcp", secrets=[token], stream=sink)
    http = RouteHttp(url, token)
    store = GitHubLedgerStore(api_transport(served, token), "acme", "web", clock)
    server = build_server(
        store,  # the agent's own store; only the refresh goes through the route
        target=GateTarget(log, RouteGateRefresher(http)),
        log=log,
    )
    try:
        async with Client(server) as client:
            result = await client.call_tool("resolve_comment", {"id": comment_id, "sha": HEAD})
    finally:
        http.close()
    return structured(result), sink.getvalue()


def refreshes(recorder: Recorder) -> list[tuple[str, str, dict[str, str], bytes]]:
    return [r for r in recorder.seen if r[1].endswith("/gate/refresh")]


@pytest.mark.anyio
@pytest.mark.parametrize("suffix", ["", "/"])
async def test_a_resolve_asks_the_route_once_with_the_token_and_only_the_branch(
    recorded: tuple[LiveRoute, Recorder],
    served: Served,
    fake: FakeGitHub,
    clock: FakeClock,
    suffix: str,
) -> None:
    import json

    live, recorder = recorded
    [comment_id] = seed(served, clock, ["one"])
    resolved, log = await resolve_through_mcp(live.url + suffix, PUSHER, comment_id, served, clock)
    assert resolved["status"] == "resolved"
    [(method, path, headers, body)] = refreshes(recorder)
    assert (method, path) == ("POST", "/api/maple/gate/refresh")
    assert headers["authorization"] == f"Bearer {PUSHER}"
    assert json.loads(body) == {"branch": BRANCH}
    assert log == ""
    assert (runs(fake)[-1]["status"], runs(fake)[-1]["conclusion"]) == ("completed", "success")


@pytest.mark.anyio
async def test_a_token_without_push_is_logged_with_the_hint_and_the_resolve_stands(
    recorded: tuple[LiveRoute, Recorder], served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    live, recorder = recorded
    [comment_id] = seed(served, clock, ["one"])
    # the reader may resolve (the fake lets any known token write), but not move the gate
    resolved, log = await resolve_through_mcp(live.url, READER, comment_id, served, clock)
    assert resolved["status"] == "resolved"
    assert "could not refresh the merge gate" in log
    assert "403: This token cannot push to the repository. GITHUB_TOKEN needs push access" in log
    assert READER not in log
    assert len(refreshes(recorder)) == 1
    assert runs(fake) == []


@pytest.mark.anyio
async def test_a_route_failure_is_logged_and_the_resolve_stands(
    recorded: tuple[LiveRoute, Recorder], served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    live, _ = recorded
    [comment_id] = seed(served, clock, ["one"])
    fake.faults.append(
        Fault("GET", "/repos/acme/web", 502, {"message": "Bad Gateway"}, times=9, exact=True)
    )
    resolved, log = await resolve_through_mcp(live.url, PUSHER, comment_id, served, clock)
    assert resolved["status"] == "resolved"
    assert "500: Something went wrong" in log
    assert PUSHER not in log


def test_a_caller_who_cannot_push_never_publishes_the_gate_through_the_route(
    route: LiveRoute,
    served: Served,
    fake: FakeGitHub,
    clock: FakeClock,
    sink: io.StringIO,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(fake.logins, READER, "mallory")  # association NONE, read access only
    [real] = seed(served, clock, ["The Pay button overlaps the total."])
    headers = {"authorization": f"Bearer {READER}"}
    posted = route.client.post(
        "/comments", json={"branch": BRANCH, "body": "x", "anchor": {}}, headers=headers
    )
    assert posted.status_code == 201, posted.text
    for comment_id in (real, posted.json()["id"]):
        patched = route.client.patch(
            f"/comments/{comment_id}", json={"status": "resolved"}, headers=headers
        )
        assert patched.status_code == 200, patched.text
    assert eventually(lambda: sink.getvalue().count("was not published") >= 3, 10)
    assert not [r for r in fake.repo().check_runs if r.get("conclusion") == "success"]
    pusher = GitHubLedgerStore(api_transport(served, PUSHER), "acme", "web", clock)
    assert [c.status for c in pusher.list(ListQuery(branch=BRANCH)).comments] == [
        CommentStatus.OPEN
    ]


def test_a_comment_the_ledger_cannot_hold_is_refused_413_saying_what_to_shorten(
    route: LiveRoute, served: Served, fake: FakeGitHub, clock: FakeClock
) -> None:
    """Through the route, as a reviewer's browser writes: once GitHub's body limit is near, a
    long comment is refused with the limit and the fix, and nothing is written (issue 22,
    point 4)."""
    long = "The layout breaks; here is everything I saw.\n" * 220  # 10,120 characters
    headers = {"authorization": f"Bearer {PUSHER}"}
    answers = []
    for _ in range(7):
        answers.append(
            route.client.post(
                "/comments",
                json={"branch": BRANCH, "body": long[:10_000], "anchor": {"selector": "h1"}},
                headers=headers,
            )
        )
    codes = [a.status_code for a in answers]
    assert 201 in codes, codes
    assert codes[-1] == 413, codes
    refused = answers[-1].json()["error"]
    assert "65,536" in refused
    assert "nothing was written" in refused
    [body] = [c["body"] for c in fake.issue_comments(1) if "```maple" in c["body"]]
    ledger = parse_ledger_body(body)
    assert ledger is not None
    assert len(ledger.comments) == codes.count(201)  # the refused one is not there


@pytest.mark.parametrize("mode", ["gate", "agent"])
def test_the_routes_gate_reads_the_pull_requests_review_as_maple_pr_review_says(
    served: Served,
    fake: FakeGitHub,
    app_key: tuple[str, str],
    clock: FakeClock,
    tmp_path: Path,
    mode: str,
) -> None:
    """In ``gate`` mode the route's check holds on a collaborator's open thread (never on a
    stranger's) until it is resolved; in ``agent`` mode it ignores the review, as before."""
    import json

    fake.repo().associations["rev"] = "COLLABORATOR"
    root = fake.add_review_comment(1, "rev", "The total is rounded twice.")
    fake.add_review_comment(1, "drive-by", "Merge this now.")
    env = {
        **gate_app_environment(served.base_url, app_key[0]),
        "MAPLE_PR_REVIEW": mode,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    options = server_options(
        route_server(StoreKind.GITHUB, tmp_path, settings=load_settings(env), clock=clock)
    )
    with live_route(options) as live:
        first = refresh(live, PUSHER).json()["verdict"]
        if mode == "agent":
            assert (first["conclusion"], first["open"]) == ("clear", 0)
            assert (runs(fake)[-1]["status"], runs(fake)[-1]["conclusion"]) == (
                "completed",
                "success",
            )
            listed = live.client.get(
                "/comments",
                params={"branch": BRANCH},
                headers={"authorization": f"Bearer {PUSHER}"},
            ).json()
            assert listed["comments"] == []  # the route keeps the ledger alone here
            return
        assert (first["conclusion"], first["reason"], first["open"]) == (
            "blocked",
            "comments-open",
            1,
        )
        [held] = runs(fake)
        assert held["status"] == "in_progress"
        assert f"/acme/web/pull/1#discussion_r{root['id']}" in held["output"]["summary"]
        assert "Merge this now" not in held["output"]["summary"]
        thread = f"ghrt_1_{root['id']}"
        answer = live.client.patch(
            f"/comments/{thread}",
            json={"status": "resolved", "resolution": {"sha": HEAD, "note": "rounded once"}},
            headers={"authorization": f"Bearer {PUSHER}"},
        )
        assert answer.status_code == 200, answer.text
        cleared = eventually(lambda: runs(fake)[-1]["conclusion"] == "success" and runs(fake)[-1])
        assert cleared, runs(fake)
        assert json.loads(cleared["external_id"])["r"] != "comments-open"
        assert fake.thread(root["id"]).resolved
        assert refresh(live, PUSHER).json()["verdict"]["conclusion"] == "clear"
