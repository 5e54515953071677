"""The route app over real HTTP (uvicorn on loopback): Maple's endpoints, answers and refusals."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.requests import Request

from contract_tests.support import FakeClock
from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.log import ServerLog
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_core.authors import Reviewer, color_slot
from maple_core.gate_rules import GateRules
from maple_core.listing import list_all
from maple_core.paging import ListQuery
from maple_entrypoints.route.app import RouteOptions
from tests.route_support import LiveRoute, draft, eventually, live_route

BRANCH = "feat/route"
HEAD = "9ab1c2d"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def file_store(repo: Path, clock: FakeClock) -> FileCommentStore:
    return FileCommentStore(clock, repo)


@pytest.fixture
def route(file_store: FileCommentStore, repo: Path, clock: FakeClock) -> Iterator[LiveRoute]:
    options = RouteOptions(store=file_store, media=FileMedia(repo), clock=clock)
    with live_route(options) as live:
        yield live


def comments_file(repo: Path) -> Path:
    return repo / ".maple" / "feat-route" / "comments.json"


class TestComments:
    def test_a_posted_comment_is_the_guests_and_is_listed(self, route: LiveRoute) -> None:
        answer = route.client.post("/comments", json=draft(author={"id": "ceo", "name": "CEO"}))
        assert answer.status_code == 201
        stored = answer.json()
        assert stored["author"] == {"id": "guest", "name": "Guest", "provenance": "guest"}
        assert stored["status"] == "open"
        assert stored["id"].startswith("loc_")
        page = route.client.get("/comments", params={"branch": BRANCH}).json()
        assert [c["id"] for c in page["comments"]] == [stored["id"]]
        assert "cursor" not in page

    def test_an_array_is_stored_in_order_and_answered_as_comments(self, route: LiveRoute) -> None:
        answer = route.client.post("/comments", json=[draft("one"), draft("two")])
        assert answer.status_code == 201
        assert [c["body"] for c in answer.json()["comments"]] == ["one", "two"]

    def test_pages_filters_and_conditional_reads(self, route: LiveRoute) -> None:
        route.client.post("/comments", json=[draft("a"), draft("b"), draft("c")])
        first = route.client.get("/comments", params={"branch": BRANCH, "limit": 2}).json()
        assert len(first["comments"]) == 2
        rest = route.client.get(
            "/comments", params={"branch": BRANCH, "limit": 2, "cursor": first["cursor"]}
        ).json()
        assert [c["body"] for c in rest["comments"]] == ["c"]
        listed = route.client.get("/comments", params={"branch": BRANCH})
        etag = listed.headers["etag"]
        unchanged = route.client.get(
            "/comments", params={"branch": BRANCH}, headers={"if-none-match": etag}
        )
        assert unchanged.status_code == 304
        resolved = route.client.get(
            "/comments", params=[("branch", BRANCH), ("status", "resolved"), ("status", "nope")]
        )
        assert resolved.json() == {"comments": []}

    def test_patch_resolves_and_the_server_stamps_the_time(
        self, route: LiveRoute, clock: FakeClock
    ) -> None:
        stored = route.client.post("/comments", json=draft()).json()
        answer = route.client.patch(
            f"/comments/{stored['id']}",
            json={"status": "resolved", "resolution": {"sha": HEAD, "note": "Done.", "at": "1999"}},
        )
        assert answer.status_code == 200
        assert answer.json()["status"] == "resolved"
        assert answer.json()["resolution"] == {
            "sha": HEAD,
            "note": "Done.",
            "at": "2026-01-01T12:00:00.000Z",
        }

    def test_a_patch_reports_the_verdict_to_the_gate(self, clock: FakeClock) -> None:
        store = InMemoryCommentStore(clock, heads={BRANCH: HEAD})
        gate = InMemoryGatePublisher()
        with live_route(RouteOptions(store=store, gate=gate, clock=clock)) as route:
            one, two = route.client.post("/comments", json=[draft("a"), draft("b")]).json()[
                "comments"
            ]
            route.client.patch(f"/comments/{one['id']}", json={"status": "resolved"})
            # The POST publishes too (two open): wait for the PATCH's verdict, not the first one.
            blocked = eventually(lambda: (v := gate.read(BRANCH, HEAD)) and v.open == 1 and v)
            assert blocked is not None
            assert (blocked.conclusion, blocked.open) == ("blocked", 1)
            route.client.patch(f"/comments/{two['id']}", json={"status": "resolved"})
            cleared = eventually(
                lambda: (v := gate.read(BRANCH, HEAD)) and v.conclusion == "clear" and v
            )
        assert cleared is not None
        assert (cleared.conclusion, cleared.reason) == ("clear", "all-resolved")

    def test_an_identified_reviewer_is_the_author(self, file_store: FileCommentStore) -> None:
        dana = Reviewer("u-17", "Dana", "https://avatars.example/dana.png")
        options = RouteOptions(store=file_store, identity=lambda request: dana)
        with live_route(options) as route:
            stored = route.client.post("/comments", json=draft()).json()
            me = route.client.get("/me").json()
        assert stored["author"] == {
            "id": "u-17",
            "name": "Dana",
            "provenance": "server",
            "colorSlot": color_slot("u-17"),
            "avatarUrl": "https://avatars.example/dana.png",
        }
        assert me == {
            "user": {"id": "u-17", "name": "Dana", "avatarUrl": "https://avatars.example/dana.png"},
            "media": False,
            "approval": {"required": False},
            "confirmation": {"required": False},
            "reading": {"harness": None, "trusted": True},  # no classifier reads replies here
        }


def test_color_slots_match_maples_fnv1a() -> None:
    # FNV-1a-32 over UTF-16 code units: "a" -> 0xE40C292C, "" -> 0x811C9DC5.
    assert color_slot("a") == 0xE40C292C % 10
    assert color_slot("") == 0x811C9DC5 % 10
    assert color_slot("é😀") in range(10)


class TestRefusals:
    @pytest.mark.parametrize(
        ("body", "status", "says"),
        [
            (b"{not json", 400, "not valid JSON"),
            (b"\xff\xfe", 400, "not UTF-8"),
            (b"NaN", 400, "not valid JSON"),
            (json.dumps({"branch": BRANCH, "anchor": {}}).encode(), 400, "'body' must be a string"),
            (json.dumps({"branch": 7, "body": "x", "anchor": {}}).encode(), 400, "'branch'"),
            (json.dumps({"branch": BRANCH, "body": "x"}).encode(), 400, "'anchor' is required"),
            (json.dumps(draft(commit="HEAD")).encode(), 400, "'commit' must be 7 to 40"),
            (json.dumps(draft(label=3)).encode(), 400, "'label' must be a string"),
            (json.dumps(draft(status="resolved")).encode(), 400, "resolve it with PATCH"),
            (json.dumps([draft()] * 501).encode(), 400, "at most 500"),
            (json.dumps("a comment").encode(), 400, "must be a JSON object"),
            (
                b'{"branch": "feat/route", "body": "x", "anchor": {"x": -1e400}}',
                400,
                "too large for JSON",
            ),
            (b"[" * 100_000, 400, "nests too deeply"),
        ],
    )
    def test_bad_comments_are_refused_and_nothing_is_written(
        self, route: LiveRoute, repo: Path, body: bytes, status: int, says: str
    ) -> None:
        answer = route.client.post(
            "/comments", content=body, headers={"content-type": "application/json"}
        )
        assert answer.status_code == status
        assert says in answer.json()["error"]
        assert answer.headers["cache-control"] == "no-store"
        assert answer.headers["content-type"] == "application/json"
        assert not comments_file(repo).exists()

    def test_an_oversized_body_is_refused_before_it_is_read(
        self, file_store: FileCommentStore, repo: Path
    ) -> None:
        with live_route(RouteOptions(store=file_store, max_json_bytes=1024)) as route:
            answer = route.client.post("/comments", json=draft("x" * 2000))
            chunked = route.client.post(
                "/comments",
                content=iter([b'{"body": "', b"x" * 2000, b'"}']),
                headers={"content-type": "application/json"},
            )
        assert answer.status_code == 413
        assert "larger than 1,024 bytes" in answer.json()["error"]
        assert chunked.status_code == 413
        assert not comments_file(repo).exists()

    def test_an_unknown_id_is_404_and_the_file_is_unchanged(
        self, route: LiveRoute, repo: Path
    ) -> None:
        route.client.post("/comments", json=draft())
        before = comments_file(repo).read_bytes()
        answer = route.client.patch("/comments/loc_nope", json={"status": "resolved"})
        assert answer.status_code == 404
        assert "loc_nope" in answer.json()["error"]
        assert comments_file(repo).read_bytes() == before

    @pytest.mark.parametrize(
        ("change", "says"),
        [
            ({"status": "done"}, "A known status is required"),
            ({}, "A known status is required"),
            ({"status": "resolved", "resolution": {"note": "x"}}, "A resolution needs a sha"),
            ({"status": "resolved", "resolution": {"sha": "abc", "note": 4}}, "note must be"),
        ],
    )
    def test_bad_status_changes_are_refused(
        self, route: LiveRoute, repo: Path, change: dict[str, Any], says: str
    ) -> None:
        stored = route.client.post("/comments", json=draft()).json()
        before = comments_file(repo).read_bytes()
        answer = route.client.patch(f"/comments/{stored['id']}", json=change)
        assert answer.status_code == 400
        assert says in answer.json()["error"]
        assert comments_file(repo).read_bytes() == before

    @pytest.mark.parametrize(
        ("params", "says"),
        [
            ({}, "A branch is required"),
            ({"branch": BRANCH, "limit": "0"}, "limit must be positive"),
            ({"branch": BRANCH, "limit": "ten"}, "limit must be positive"),
            ({"branch": BRANCH, "cursor": "nonsense"}, "nonsense"),
        ],
    )
    def test_bad_listings_are_400(
        self, route: LiveRoute, params: dict[str, str], says: str
    ) -> None:
        answer = route.client.get("/comments", params=params)
        assert answer.status_code == 400
        assert says in answer.json()["error"]

    def test_unknown_paths_and_methods_answer_json(self, route: LiveRoute) -> None:
        missing = route.client.get("/nothing-here")
        assert (missing.status_code, missing.json()) == (404, {"error": "Not found"})
        assert missing.headers["cache-control"] == "no-store"
        wrong = route.client.delete("/comments")
        assert (wrong.status_code, wrong.json()) == (405, {"error": "Method not allowed"})
        wrong_one = route.client.get("/comments/loc_1")
        assert wrong_one.status_code == 405
        refresh = route.client.post("/gate/refresh", json={"branch": BRANCH})
        assert (refresh.status_code, refresh.json()) == (404, {"error": "Not found"})

    def test_a_store_that_fails_is_a_500_that_names_nothing_and_logs_no_token(
        self, clock: FakeClock
    ) -> None:
        secret = "ghp_caller_secret_1234"

        class Exploding(InMemoryCommentStore):
            def list(self, query: ListQuery) -> Any:
                raise RuntimeError(f"boom with {secret} inside")

        sink = io.StringIO()
        options = RouteOptions(
            store=Exploding(clock), log=ServerLog("maple-route", stream=sink), clock=clock
        )
        with live_route(options) as route:
            answer = route.client.get(
                "/comments",
                params={"branch": BRANCH},
                headers={"authorization": f"Bearer {secret}"},
            )
        assert (answer.status_code, answer.json()) == (500, {"error": "Something went wrong"})
        assert "The Maple route failed." in sink.getvalue()
        assert "boom with" in sink.getvalue()
        assert secret not in sink.getvalue()

    def test_no_store_for_the_request_is_401(self) -> None:
        def nobody(request: Request) -> None:
            return None

        with live_route(RouteOptions(store=nobody)) as route:
            answer = route.client.get("/comments", params={"branch": BRANCH})
        assert (answer.status_code, answer.json()) == (
            401,
            {"error": "This reviewer has no store to write to"},
        )


class TestMedia:
    def test_an_image_round_trips(self, route: LiveRoute, repo: Path) -> None:
        put = route.client.post("/media", content=PNG, headers={"content-type": "image/png"})
        assert put.status_code == 201
        ref = put.json()
        assert ref["connector"] == "file"
        assert ref["contentType"] == "image/png"
        assert (repo / ".maple" / "feat-route" / "media" / f"{ref['key']}.png").read_bytes() == PNG
        got = route.client.get(f"/media/{ref['key']}", params={"type": "image/png"})
        assert got.status_code == 200
        assert got.content == PNG
        assert got.headers["content-type"] == "image/png"

    @pytest.mark.parametrize(
        ("content_type", "body", "status"),
        [("text/plain", b"hello", 415), ("image/png", b"", 400), ("", PNG, 415)],
    )
    def test_what_is_not_an_image_is_refused(
        self, route: LiveRoute, repo: Path, content_type: str, body: bytes, status: int
    ) -> None:
        answer = route.client.post("/media", content=body, headers={"content-type": content_type})
        assert answer.status_code == status
        assert "An image is required" in answer.json()["error"]
        assert not (repo / ".maple" / "feat-route" / "media").exists()

    def test_an_oversized_image_is_413(self, file_store: FileCommentStore, repo: Path) -> None:
        options = RouteOptions(store=file_store, media=FileMedia(repo), max_media_bytes=32)
        with live_route(options) as route:
            answer = route.client.post("/media", content=PNG, headers={"content-type": "image/png"})
        assert answer.status_code == 413
        assert not (repo / ".maple" / "feat-route" / "media").exists()

    @pytest.mark.parametrize("key", ["a/b", "..%2Fcomments", "shot.png", "%2E%2E"])
    def test_keys_that_are_not_bare_names_are_400(self, route: LiveRoute, key: str) -> None:
        answer = route.client.get(f"/media/{key}")
        assert answer.status_code == 400
        assert "letters, digits" in answer.json()["error"]

    def test_an_unknown_key_is_404_and_no_media_store_is_404(
        self, route: LiveRoute, file_store: FileCommentStore
    ) -> None:
        assert route.client.get("/media/shot-000000000000").status_code == 404
        with live_route(RouteOptions(store=file_store)) as bare:
            answer = bare.client.post("/media", content=PNG, headers={"content-type": "image/png"})
        assert (answer.status_code, answer.json()) == (
            404,
            {"error": "This deployment keeps no screenshots"},
        )


class TestApprovals:
    def test_approve_list_and_withdraw_report_to_the_gate(self, clock: FakeClock) -> None:
        store = InMemoryCommentStore(clock, heads={BRANCH: HEAD})
        gate = InMemoryGatePublisher()
        reviewers = {"dana": Reviewer("u1", "Dana"), "sam": Reviewer("u2", "Sam")}

        def identity(request: Request) -> Reviewer | None:
            return reviewers.get(request.headers.get("x-test-user", ""))

        options = RouteOptions(
            store=store,
            gate=gate,
            identity=identity,
            rules=GateRules(require_approval=True),
            clock=clock,
        )
        with live_route(options) as route:
            assert route.client.get("/approvals", params={"branch": BRANCH}).json() == {
                "approvals": []
            }
            guest = route.client.post("/approvals", json={"branch": BRANCH})
            assert (guest.status_code, guest.json()["error"]) == (
                401,
                "Sign in before you can approve this preview",
            )
            approved = route.client.post(
                "/approvals",
                json={"branch": BRANCH, "note": "Checked at 375px", "commit": "deadbee"},
                headers={"x-test-user": "dana"},
            )
            assert approved.status_code == 201
            approval = approved.json()
            assert approval["commit"] == HEAD  # the store names it, never the browser
            assert approval["author"]["name"] == "Dana"
            assert approval["at"] == "2026-01-01T12:00:00.000Z"
            verdict = eventually(lambda: gate.read(BRANCH, HEAD))
            assert verdict is not None
            assert verdict.title == "Approved by Dana"
            listed = route.client.get("/approvals", params={"branch": BRANCH}).json()
            assert [a["id"] for a in listed["approvals"]] == [approval["id"]]
            others = route.client.delete(
                f"/approvals/{approval['id']}",
                params={"branch": BRANCH},
                headers={"x-test-user": "sam"},
            )
            assert (others.status_code, others.json()["error"]) == (
                404,
                "No approval of yours with that id",
            )
            withdrawn = route.client.delete(
                f"/approvals/{approval['id']}",
                params={"branch": BRANCH},
                headers={"x-test-user": "dana"},
            )
            assert (withdrawn.status_code, withdrawn.json()) == (200, {"branch": BRANCH})
            verdict = eventually(
                lambda: (v := gate.read(BRANCH, HEAD)) and v.reason == "awaiting-approval" and v
            )
        assert verdict is not None
        assert (verdict.conclusion, verdict.reason) == ("blocked", "awaiting-approval")

    def test_a_store_without_a_head_cannot_take_an_approval(
        self, file_store: FileCommentStore
    ) -> None:
        options = RouteOptions(store=file_store, identity=lambda request: Reviewer("u1", "Dana"))
        with live_route(options) as route:
            answer = route.client.post("/approvals", json={"branch": BRANCH})
        assert (answer.status_code, answer.json()["error"]) == (
            409,
            "Nothing here can name the commit this preview is serving",
        )


def test_the_route_mounts_under_any_prefix(file_store: FileCommentStore) -> None:
    with live_route(RouteOptions(store=file_store), prefix="/review/api") as route:
        assert route.url.endswith("/review/api")
        assert route.client.post("/comments", json=draft()).status_code == 201
        assert len(route.client.get("/comments", params={"branch": BRANCH}).json()["comments"]) == 1


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)  # a PATCH sends it with json=
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["branch", "body", "anchor", "status", "commit", "label", "x"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
BODIES = (
    JSON_VALUES.map(lambda v: json.dumps(v).encode())
    | st.sampled_from([b"1e400", b'{"anchor": {"r": 2e308}}', b"[[[[[[[[[[" * 2_000, b"-0"])
    | st.binary(max_size=64)
    | st.fixed_dictionaries(
        {"branch": st.just(BRANCH), "body": st.text(max_size=20)},
        optional={
            "anchor": JSON_VALUES,
            "commit": st.text("0123456789abcdefg", max_size=41),
            "status": st.sampled_from(["open", "resolved", 3]),
        },
    ).map(lambda v: json.dumps(v).encode())
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=BODIES, patch=JSON_VALUES)
def test_any_body_is_stored_whole_or_refused_with_a_reason(
    route: LiveRoute, file_store: FileCommentStore, body: bytes, patch: Any
) -> None:
    before = len(list_all(file_store, BRANCH))
    answer = route.client.post(
        "/comments", content=body, headers={"content-type": "application/json"}
    )
    after = list_all(file_store, BRANCH)
    if answer.status_code == 201:
        created = answer.json()
        added = created.get("comments", [created])
        assert len(after) == before + len(added)
        assert all(c["author"]["provenance"] == "guest" for c in added)
    else:
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]
        assert len(after) == before
    if after:
        target = after[0]
        change = route.client.patch(f"/comments/{target.id}", json=patch)
        # 401: an edit by nobody; 415: no JSON body at all
        assert change.status_code in (200, 400, 401, 415), change.text
        reread = next(c for c in list_all(file_store, BRANCH) if c.id == target.id)
        if change.status_code != 200:
            assert reread == target


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(key=st.text(min_size=1, max_size=24).filter(lambda k: k not in (".", "..")))
def test_any_media_key_is_a_bare_name_or_refused(route: LiveRoute, repo: Path, key: str) -> None:
    from urllib.parse import quote

    answer = route.client.get("/media/" + quote(key, safe=""))
    assert answer.status_code in (400, 404), (key, answer.status_code)
    error = answer.json()["error"]
    bare = all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    if answer.status_code == 400:
        assert "letters, digits" in error
        assert not bare
    elif bare:
        assert "No blob is held" in error
    else:  # a path no route matches, such as one with a newline
        assert error == "Not found"


def test_an_idle_route_signal_asks_once_per_poll_even_in_short_slices(
    file_store: FileCommentStore, repo: Path
) -> None:
    import time

    from maple_adapters.route.http import RouteHttp
    from maple_adapters.route.signal import RouteChangeSignal
    from tests.route_support import Recorder

    recorders: list[Recorder] = []

    def wrap(app: Any) -> Recorder:
        recorders.append(Recorder(app))
        return recorders[0]

    with live_route(RouteOptions(store=file_store), wrap=wrap) as route:
        http = RouteHttp(route.url)
        try:
            signal = RouteChangeSignal(http, BRANCH, poll_s=0.5)
            token = signal.token()
            started = time.monotonic()
            while time.monotonic() - started < 2.0:
                assert signal.wait(token, 0.1) is False
            listings = [r for r in recorders[0].seen if r[1].endswith("/comments")]
            assert 4 <= len(listings) <= 6  # the first look, then one per 0.5 s
            assert any("if-none-match" in r[2] for r in listings)
            route.client.post("/comments", json=draft())
            assert signal.wait(token, 2.0) is True
        finally:
            http.close()


@pytest.mark.parametrize("url", ["http://x\x00y", "http://" + "a" * 300 + ".example"])
def test_a_route_url_httpx_cannot_send_to_is_an_unavailable_store(url: str) -> None:
    from maple_adapters.route.http import RouteHttp
    from maple_adapters.route.store import RouteCommentStore
    from maple_core.errors import StoreUnavailableError

    http = RouteHttp(url)
    try:
        with pytest.raises(StoreUnavailableError, match="could not be reached"):
            RouteCommentStore(http).list(ListQuery(branch=BRANCH))
    finally:
        http.close()
