"""``POST /comments/{id}/thread`` over real HTTP: replies, reopenings and confirmations, what a
browser may claim on a ``client_authors`` route, the gate republished after each, a resolve
twice keeping its first evidence, and the route client store's way to a route without threads
(issue 18)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from starlette.responses import JSONResponse

from contract_tests.support import FakeClock, make_repo
from maple_adapters.files import FileCommentStore
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_adapters.route import RouteCommentStore, RouteHttp
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.conversation import ConversationError, ReplyKind, Role, ThreadEvent, thread_of
from maple_core.cursor import select_fresh
from maple_core.errors import MissingCapabilityError, NotFoundError
from maple_core.ports import Capability
from maple_core.services import converse, list_all, resolve_comment
from maple_entrypoints.route import RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.loopback import serve_asgi
from tests.mcp_support import clean_env
from tests.route_support import LiveRoute, eventually, live_route

BRANCH = "feat/thread"
HEAD = "9ab1c2d"
SHA = "0123456789abcdef0123456789abcdef01234567"
BROWSER = {"id": "browser-0001abcd", "name": "Ana Lima"}


def draft(body: str = "The header wraps at 375px.") -> dict[str, Any]:
    return {"branch": BRANCH, "body": body, "anchor": {"selector": "h1"}}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


@pytest.fixture
def proxy_route(repo: Path, clock: FakeClock) -> Iterator[LiveRoute]:
    """The route as the review proxy serves it to a browser: authors named by the client."""
    options = RouteOptions(store=FileCommentStore(clock, repo), client_authors=True, clock=clock)
    with live_route(options) as live:
        yield live


@pytest.fixture
def agent_route(repo: Path, clock: FakeClock) -> Iterator[LiveRoute]:
    """The route as a deployment serves it to an agent: nobody is identified."""
    with live_route(RouteOptions(store=FileCommentStore(clock, repo), clock=clock)) as live:
        yield live


def post(route: LiveRoute, comment_id: str, **event: Any) -> Any:
    return route.client.post(f"/comments/{comment_id}/thread", json=event)


def resolved(route: LiveRoute, note: str = "Wrapped it.") -> dict[str, Any]:
    stored = route.client.post("/comments", json=draft()).json()
    answer = route.client.patch(
        f"/comments/{stored['id']}",
        json={"status": "resolved", "resolution": {"sha": SHA, "note": note}},
    )
    assert answer.status_code == 200
    return dict(answer.json())


class TestABrowserOnTheProxysRoute:
    def test_speaks_as_the_reviewer_it_names_never_as_the_agent_nor_asking(
        self, proxy_route: LiveRoute
    ) -> None:
        stored = proxy_route.client.post("/comments", json=draft()).json()
        answer = post(
            proxy_route, stored["id"], body="Done?", role="agent", question=True, author=BROWSER
        )
        assert answer.status_code == 200
        [entry] = answer.json()["replies"]
        assert (entry["role"], entry["question"], entry["kind"], entry["body"]) == (
            "reviewer",
            False,
            "reply",
            "Done?",
        )
        author = entry["author"]
        assert (author["id"], author["name"], author["provenance"]) == (
            "browser:browser-0001abcd",
            "Ana Lima",
            "client",
        )
        listed = proxy_route.client.get("/comments", params={"branch": BRANCH}).json()
        assert listed["comments"][0]["replies"] == [entry]
        assert len(listed["comments"]) == 1  # a reply is never a comment

    def test_without_a_well_formed_author_is_the_guest(self, proxy_route: LiveRoute) -> None:
        stored = proxy_route.client.post("/comments", json=draft()).json()
        answer = post(proxy_route, stored["id"], body="Hi", author={"id": "x", "name": "Eve"})
        assert answer.json()["replies"][0]["author"]["provenance"] == "guest"

    @pytest.mark.parametrize(
        ("event", "said"),
        [
            ({"body": "x" * 10_001}, "longer than 10,000 characters"),
            ({"kind": "resolve", "body": "Done."}, "'kind' must be reply, reopen or confirm"),
            ({"kind": "nope"}, "'kind' must be reply, reopen or confirm"),
            ({"body": "   "}, "The reply is empty"),
            ({"body": 7}, "'body' must be a string"),
            ({"kind": "reopen", "body": "Still wraps."}, "only a resolved comment can be reopened"),
            ({"kind": "confirm"}, "only a resolved comment can be confirmed"),
        ],
    )
    def test_an_event_that_does_not_fit_is_refused_with_the_reason(
        self, proxy_route: LiveRoute, event: dict[str, Any], said: str
    ) -> None:
        stored = proxy_route.client.post("/comments", json=draft()).json()
        answer = post(proxy_route, stored["id"], **event)
        assert answer.status_code == 400
        assert said in answer.json()["error"]
        listed = proxy_route.client.get("/comments", params={"branch": BRANCH}).json()
        assert "replies" not in listed["comments"][0]

    def test_a_body_that_is_not_an_object_is_refused(self, proxy_route: LiveRoute) -> None:
        stored = proxy_route.client.post("/comments", json=draft()).json()
        answer = proxy_route.client.post(f"/comments/{stored['id']}/thread", json=["reply"])
        assert answer.status_code == 400

    def test_an_unknown_comment_is_not_found(self, proxy_route: LiveRoute) -> None:
        answer = post(proxy_route, "loc_nope", body="Hello?")
        assert answer.status_code == 404
        assert answer.json()["error"].startswith("No comment with id loc_nope")

    def test_reopens_a_resolved_comment_with_a_reason_and_confirms_one(
        self, proxy_route: LiveRoute
    ) -> None:
        first = resolved(proxy_route)
        confirmed = post(proxy_route, first["id"], kind="confirm", author=BROWSER).json()
        assert confirmed["status"] == "resolved"
        assert confirmed["replies"][-1]["kind"] == "confirm"
        assert confirmed["replies"][-1]["resolution"]["sha"] == SHA
        reopened = post(proxy_route, first["id"], kind="reopen", body="Still wraps.").json()
        assert reopened["status"] == "open"
        assert reopened["resolution"]["sha"]  # kept, as Maple keeps it
        assert (reopened["replies"][-1]["kind"], reopened["replies"][-1]["body"]) == (
            "reopen",
            "Still wraps.",
        )


def test_an_agent_route_records_the_agents_question(agent_route: LiveRoute) -> None:
    stored = agent_route.client.post("/comments", json=draft()).json()
    answer = post(
        agent_route, stored["id"], body="Bigger or brighter?", role="agent", question=True
    )
    assert answer.status_code == 200
    [entry] = answer.json()["replies"]
    assert (entry["role"], entry["question"]) == ("agent", True)
    assert entry["author"]["provenance"] == "guest"  # nobody identified the caller


def test_a_second_resolve_through_patch_keeps_the_first_evidence(agent_route: LiveRoute) -> None:
    first = resolved(agent_route, "First fix.")
    again = agent_route.client.patch(
        f"/comments/{first['id']}",
        json={"status": "resolved", "resolution": {"sha": "f" * 40, "note": "Second fix."}},
    ).json()
    assert again["resolution"] == first["resolution"]
    [entry] = again["replies"]
    assert (entry["kind"], entry["role"], entry["resolution"]["sha"]) == (
        "resolve",
        "agent",
        "f" * 40,
    )
    reopened = agent_route.client.patch(f"/comments/{first['id']}", json={"status": "open"})
    assert reopened.json()["status"] == "open"  # other status changes stay Maple's


def test_the_gate_is_published_after_a_reopen_and_after_a_confirmation(clock: FakeClock) -> None:
    store = InMemoryCommentStore(clock, heads={BRANCH: HEAD})
    gate = InMemoryGatePublisher()
    options = RouteOptions(
        store=store, gate=gate, client_authors=True, require_confirmation=True, clock=clock
    )
    with live_route(options) as route:
        assert route.client.get("/me").json()["confirmation"] == {"required": True}
        stored = resolved(route)
        waiting = eventually(
            lambda: (v := gate.read(BRANCH, HEAD)) and v.reason == "awaiting-confirmation" and v
        )
        assert waiting is not None
        assert waiting.conclusion == "blocked"
        assert post(route, stored["id"], kind="confirm", author=BROWSER).status_code == 200
        cleared = eventually(
            lambda: (v := gate.read(BRANCH, HEAD)) and v.conclusion == "clear" and v
        )
        assert cleared is not None
        assert post(route, stored["id"], kind="reopen", body="No.").status_code == 200
        blocked = eventually(
            lambda: (v := gate.read(BRANCH, HEAD)) and v.reason == "comments-open" and v
        )
    assert blocked is not None
    assert (blocked.conclusion, blocked.open) == ("blocked", 1)


class _Silent(InMemoryCommentStore):
    """A store that keeps no threads."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.CONVERSE}


def test_a_store_without_threads_answers_501(clock: FakeClock) -> None:
    with live_route(RouteOptions(store=_Silent(clock), clock=clock)) as route:
        stored = route.client.post("/comments", json=draft()).json()
        answer = post(route, stored["id"], body="Hello?")
    assert (answer.status_code, answer.json()["error"]) == (501, "This store keeps no replies")


def _without_threads(app: Any) -> Any:
    """A route as TypeScript Maple serves it: no thread endpoint, Starlette's JSON 404."""

    async def served(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/thread"):
            await JSONResponse({"error": "Not found"}, 404)(scope, receive, send)
            return
        await app(scope, receive, send)

    return served


class TestTheRouteClientStore:
    def test_converses_through_the_thread_endpoint_and_resolves_through_patch(
        self, agent_route: LiveRoute
    ) -> None:
        http = RouteHttp(agent_route.url)
        try:
            store = RouteCommentStore(http)
            assert Capability.CONVERSE in store.capabilities
            stored = agent_route.client.post("/comments", json=draft()).json()
            asked = converse(
                store, stored["id"], ThreadEvent.reply(Role.AGENT, "Which?", question=True)
            )
            assert [(r.role, r.question) for r in thread_of(asked)] == [(Role.AGENT, True)]
            first = resolve_comment(store, stored["id"], SHA, "One.", FakeClock())
            second = resolve_comment(store, stored["id"], "f" * 40, "Two.", FakeClock())
            assert second.resolution == first.resolution
            reopened = converse(store, first.id, ThreadEvent.reopen("Still wraps."))
            assert reopened.status.value == "open"
            with pytest.raises(ConversationError, match="only a resolved comment can be confirmed"):
                converse(store, first.id, ThreadEvent.confirm())
            with pytest.raises(NotFoundError):
                converse(store, "loc_nope", ThreadEvent.reply(Role.AGENT, "Hello?"))
        finally:
            http.close()

    def test_a_route_without_threads_keeps_no_replies(self, repo: Path, clock: FakeClock) -> None:
        options = RouteOptions(store=FileCommentStore(clock, repo), clock=clock)
        with live_route(options, wrap=_without_threads) as route:
            http = RouteHttp(route.url)
            try:
                store = RouteCommentStore(http)
                stored = route.client.post("/comments", json=draft()).json()
                with pytest.raises(MissingCapabilityError, match="keeps no replies"):
                    converse(store, stored["id"], ThreadEvent.reply(Role.AGENT, "Hello?"))
                # a resolve still goes through Maple's PATCH
                done = resolve_comment(store, stored["id"], SHA, None, FakeClock())
                assert done.status.value == "resolved"
            finally:
                http.close()


def test_a_web_page_cannot_write_without_declaring_json(tmp_path: Path) -> None:
    """A page may POST text/plain or a form to any address without a preflight; the route
    answers 415 and writes nothing (the attack from another origin, issue 18's review)."""
    store = FileCommentStore(SystemClock(), make_repo(tmp_path / "repo", "feat/x"))
    stored = store.append(NewComment(branch="feat/x", body="Fix it."))
    running = serve_asgi(served_app(RouteOptions(store=store)))
    try:
        base = f"{running.url}/api/maple"
        for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {"origin": "https://evil.example"}
            if content_type:
                headers["content-type"] = content_type
            for path in ("/comments", f"/comments/{stored.id}/thread"):
                answer = httpx.post(
                    base + path,
                    content=b'{"branch":"feat/x","body":"x","kind":"reply"}',
                    headers=headers,
                    timeout=10,
                )
                assert answer.status_code == 415, answer.text
                assert "Content-Type: application/json" in answer.json()["error"]
    finally:
        running.stop()
    [only] = list_all(store, "feat/x")
    assert "replies" not in only.extra


def test_maple_route_serve_on_loopback_refuses_a_rebound_host_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "feat/x")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("maple")), "route", "serve", "--port", str(port)],
        cwd=repo,
        env=clean_env(MAPLE_STORE="file"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/api/maple/me"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "maple route serve did not start"
            time.sleep(0.05)
        rebound = httpx.get(url, headers={"host": f"attacker.example:{port}"}, timeout=5)
        assert rebound.status_code == 400
        # every loopback form docs/route.md names is answered (issue 22, point 6)
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "[::1]"):
            assert httpx.get(url, headers={"host": host}, timeout=5).status_code == 200, host
        for host in ("::1", "[", f"[::2]:{port}"):
            assert httpx.get(url, headers={"host": host}, timeout=5).status_code == 400, host
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_maples_patch_to_open_reopens_a_resolved_comment_and_wakes_the_agent(
    agent_route: LiveRoute, repo: Path, clock: FakeClock
) -> None:
    """Maple's overlay reopens with ``PATCH {status: "open"}``: on a store that keeps threads it
    is a reopening, so a waiting agent's next wait returns the comment (attack review)."""
    store = FileCommentStore(clock, repo)
    stored = store.append(NewComment(branch=BRANCH, body="Fix it."))
    resolve_comment(store, stored.id, "a" * 40, None, clock)
    drained = select_fresh(list_all(store, BRANCH), None)
    answer = agent_route.client.patch(f"/comments/{stored.id}", json={"status": "open"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "open"
    woke = select_fresh(list_all(store, BRANCH), drained.cursor)
    assert [c.id for c in woke.comments] == [stored.id]
    [entry] = thread_of(woke.comments[0])
    assert entry.kind is ReplyKind.REOPEN
    # An open comment set open again stays as Maple leaves it: no entry, no error.
    again = agent_route.client.patch(f"/comments/{stored.id}", json={"status": "open"})
    assert again.status_code == 200
    assert len(thread_of(list_all(store, BRANCH)[0])) == 1


def test_resolve_and_reopen_cycles_never_grow_a_thread_past_its_bound(
    agent_route: LiveRoute,
) -> None:
    """A reviewer and an agent go round and round (the agent's notes long, as the route lets
    them be): the thread stays within 200 entries, plain replies go first, the newest status
    changes stay, and no entry outgrows a reply's 10,000 characters (issue 22, point 3)."""
    stored = agent_route.client.post("/comments", json=draft()).json()
    path = f"/comments/{stored['id']}"
    for i in range(5):
        assert post(agent_route, stored["id"], body=f"word {i}").status_code == 200
    for i in range(110):  # two entries a round: a confirmation and a reopening
        note = f"round {i} " + "n" * (9_000 if i % 10 == 0 else 10)
        answer = agent_route.client.patch(
            path, json={"status": "resolved", "resolution": {"sha": SHA, "note": note}}
        )
        assert answer.status_code == 200, answer.text
        assert post(agent_route, stored["id"], kind="confirm").status_code == 200
        reason = f"still wrong {i} " * (500 if i % 10 == 0 else 1)
        reopened = post(agent_route, stored["id"], kind="reopen", body=reason)
        assert reopened.status_code == 200, reopened.text
    thread = reopened.json()["replies"]
    assert len(thread) <= 200
    assert not [e for e in thread if e["kind"] == "reply"]  # shed first
    assert thread[-1]["body"].startswith("still wrong 109 ")  # the newest kept, in order
    assert [e["kind"] for e in thread[-4:]] == ["confirm", "reopen", "confirm", "reopen"]
    assert [e["body"].split()[2] for e in thread[-3::2]] == ["108", "109"]
    for entry in thread:
        assert len(json.dumps(entry)) < 2 * 10_000 + 1_000
