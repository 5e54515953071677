"""Attacks on the route, each driven over real HTTP and named after the property that stops it.

- The merge gate's check run links only to the configured review URL, never to the request's
  ``Host`` (issue 14, point 4).
- Submissions are validated at the door: a malformed comment is refused with 400 and nothing is
  written (point 5).
- Media cannot run script: only raster images are taken, and whatever is served is inert
  (point 6).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from contract_tests.github_peers import api_transport
from contract_tests.support import FakeClock
from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.store import GitHubLedgerStore
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from maple_core.errors import ConfigurationError
from maple_entrypoints.bootstrap.route import route_server
from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import server_options
from maple_entrypoints.settings import StoreKind, load_settings
from maple_entrypoints.solo import start_bridge
from tests.github.fake_github import FakeGitHub, Served
from tests.loopback import free_port
from tests.route_support import LiveRoute, draft, eventually, live_route, route_serve
from tests.support import APP_ID, INSTALLATION, MAPLE, clean_env, gate_app_environment

BRANCH = "feat/route"
FOLDER = "feat-route"

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 48
GIF = b"GIF89a" + b"\x01\x00\x01\x00" + b"\x00" * 32
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 32
AVIF = b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + b"\x00" * 32
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
HTML = b"<!doctype html><script>alert(document.cookie)</script>"
RASTERS = {"image/png": PNG, "image/jpeg": JPEG, "image/gif": GIF, "image/webp": WEBP}
RASTERS["image/avif"] = AVIF


@pytest.fixture
def route(repo: Path) -> Iterator[LiveRoute]:
    clock = FakeClock()
    options = RouteOptions(store=FileCommentStore(clock, repo), media=FileMedia(repo), clock=clock)
    with live_route(options) as live:
        yield live


def comments_file(repo: Path) -> Path:
    return repo / ".maple" / FOLDER / "comments.json"


def media_folder(repo: Path) -> Path:
    return repo / ".maple" / FOLDER / "media"


# -- 4. the check run's link comes from configuration ------------------------------------------

PUSHER = "ghp_pusher_0000000000000000000001"
PR_BRANCH = "feat/leaf"
HEAD = "f00dfeed" * 5
REVIEW_URL = "https://feat-leaf.preview.example/"
EVIL = "evil.example"


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub({PUSHER: 1})


@pytest.fixture
def fake(served: Served, app_key: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    served.fake.reset()
    served.fake.install_app(APP_ID, app_key[1], INSTALLATION)
    served.fake.open_pull(PR_BRANCH, head_sha=HEAD)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", served.ca_file)
    return served.fake


def seed(served: Served) -> str:
    store = GitHubLedgerStore(api_transport(served, PUSHER), "acme", "web", FakeClock())
    [stored] = store.append_many([NewComment(PR_BRANCH, "one", Anchor(selector="h1"))])
    return stored.id


def forged_host() -> dict[str, str]:
    return {"host": EVIL, "authorization": f"Bearer {PUSHER}"}


def check_runs(fake: FakeGitHub) -> list[dict[str, Any]]:
    return fake.repo().check_runs


def test_the_check_run_links_only_to_the_configured_review_url(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], tmp_path: Path
) -> None:
    comment_id = seed(served)
    settings = load_settings(
        gate_app_environment(served.base_url, app_key[0], MAPLE_REVIEW_URL=REVIEW_URL)
    )
    options = server_options(route_server(StoreKind.GITHUB, tmp_path, settings=settings))
    with live_route(options) as route:
        refreshed = route.client.post(
            "/gate/refresh", json={"branch": PR_BRANCH}, headers=forged_host()
        )
        assert refreshed.status_code == 200, refreshed.text
        [run] = check_runs(fake)
        assert run["details_url"] == REVIEW_URL
        patched = route.client.patch(
            f"/comments/{comment_id}", json={"status": "resolved"}, headers=forged_host()
        )
        assert patched.status_code == 200, patched.text
        published = eventually(lambda: check_runs(fake)[-1]["status"] == "completed")
    assert published
    assert {run["details_url"] for run in check_runs(fake)} == {REVIEW_URL}
    assert all(EVIL not in json.dumps(run) for run in check_runs(fake))


def test_without_a_review_url_the_check_run_has_no_link(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], tmp_path: Path
) -> None:
    comment_id = seed(served)
    settings = load_settings(gate_app_environment(served.base_url, app_key[0]))
    options = server_options(route_server(StoreKind.GITHUB, tmp_path, settings=settings))
    with live_route(options) as route:
        refreshed = route.client.post(
            "/gate/refresh", json={"branch": PR_BRANCH}, headers=forged_host()
        )
        assert refreshed.status_code == 200, refreshed.text
        route.client.patch(
            f"/comments/{comment_id}", json={"status": "resolved"}, headers=forged_host()
        )
        published = eventually(lambda: check_runs(fake)[-1]["status"] == "completed")
    assert published
    assert all("details_url" not in run for run in check_runs(fake))


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "ftp://preview.example/",
        "preview.example",
        "https://",
        "https://user:secret@preview.example/",
        "https://preview.example/ x",
    ],
)
def test_a_review_url_that_is_not_a_plain_http_url_stops_the_route_at_start_up(
    url: str, tmp_path: Path
) -> None:
    settings = load_settings({"MAPLE_REVIEW_URL": url})
    with pytest.raises(ConfigurationError) as raised:
        route_server(StoreKind.FILE, tmp_path, settings=settings)
    message = str(raised.value)
    assert message.startswith("MAPLE_REVIEW_URL ")
    assert "https://" in message  # the fix: an example of what it should be
    assert "\n" not in message


def test_maple_route_serve_refuses_a_bad_review_url_with_one_line(repo: Path) -> None:
    for args, env, named in [
        (["--review-url", "javascript:alert(1)"], {}, "--review-url"),
        ([], {"MAPLE_REVIEW_URL": "ftp://preview.example/"}, "MAPLE_REVIEW_URL"),
    ]:
        served = subprocess.run(
            [str(MAPLE), "route", "serve", "--port", str(free_port()), *args],
            cwd=repo,
            env=clean_env(**env),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert served.returncode == 2, served.stderr
        [line] = served.stderr.splitlines()
        assert named in line
        assert "Traceback" not in served.stderr


def test_maple_route_serve_links_the_check_run_to_its_review_url_option(
    fake: FakeGitHub, served: Served, app_key: tuple[str, str], tmp_path: Path
) -> None:
    env = clean_env(
        **gate_app_environment(
            served.base_url, app_key[0], MAPLE_REVIEW_URL="https://elsewhere.example/"
        ),
        REQUESTS_CA_BUNDLE=served.ca_file,
    )
    with route_serve(tmp_path, "--store", "github", "--review-url", REVIEW_URL, env=env) as url:
        seed(served)
        forged = httpx.post(
            url + "/gate/refresh", json={"branch": PR_BRANCH}, headers=forged_host(), timeout=30
        )
        assert forged.status_code == 400  # on loopback, a Host naming another machine is refused
        answer = httpx.post(
            url + "/gate/refresh",
            json={"branch": PR_BRANCH},
            headers={"authorization": f"Bearer {PUSHER}"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
    [run] = check_runs(fake)
    assert run["details_url"] == REVIEW_URL  # the option wins over the variable


# -- 5. submissions are validated at the door --------------------------------------------------


def refused(route: LiveRoute, body: Any) -> str:
    answer = route.client.post("/comments", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"] == "application/json"
    error: str = answer.json()["error"]
    return error


def test_a_string_anchor_is_refused_and_nothing_is_written(route: LiveRoute, repo: Path) -> None:
    error = refused(route, draft(anchor="h1"))
    assert "'anchor' must be an object" in error
    assert "not a string" in error
    assert not comments_file(repo).exists()


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"anchor": ["h1"]}, "'anchor' must be an object"),
        ({"anchor": 1}, "'anchor' must be an object"),
        ({"anchor": True}, "'anchor' must be an object"),
        ({"context": "mobile"}, "'context' must be an object"),
        ({"context": [375, 812]}, "'context' must be an object"),
        ({"createdAt": 1767268800000}, "'createdAt' must be an ISO 8601 timestamp string"),
        ({"createdAt": "yesterday"}, "'createdAt' must be an ISO 8601 timestamp string"),
        ({"createdAt": "2026-13-45T99:00:00Z"}, "'createdAt' must be an ISO 8601 timestamp"),
        ({"attachments": "shot-0123456789ab"}, "'attachments' must be an array of objects"),
        ({"attachments": {"key": "shot-1"}}, "'attachments' must be an array of objects"),
        ({"attachments": [{"key": "shot-1"}, "x"]}, "'attachments' must be an array of objects"),
        ({"attachments": [{}] * 21}, "at most 20 attachments"),
        ({"body": "x" * 10_001}, "'body' is longer than 10,000 characters"),
    ],
)
def test_a_malformed_comment_is_refused_naming_the_field_and_nothing_is_written(
    route: LiveRoute, repo: Path, changes: dict[str, Any], says: str
) -> None:
    error = refused(route, draft(**changes))
    assert says in error
    assert error.startswith("A branch and a body are required: the comment has ")
    assert not comments_file(repo).exists()


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"n": value}
    return value


def test_json_nested_more_than_64_levels_is_refused_and_nothing_is_written(
    route: LiveRoute, repo: Path
) -> None:
    error = refused(route, draft(anchor=nested(70)))
    assert "nests more than 64 levels deep" in error
    assert not comments_file(repo).exists()
    taken = route.client.post("/comments", json=draft(anchor=nested(40)))
    assert taken.status_code == 201, taken.text


def test_a_body_that_trickles_in_is_cut_off_at_the_deadline(
    route: LiveRoute, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from maple_entrypoints.route import answers

    monkeypatch.setattr(answers, "BODY_DEADLINE_S", 1.0)
    address = httpx.URL(route.url)
    with socket.create_connection((address.host, address.port), timeout=10) as sock:
        head = (
            f"POST {address.path}/comments HTTP/1.1\r\nHost: {address.host}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        sock.sendall(head.encode())
        started = time.monotonic()
        received = b""
        while chunk := sock.recv(4096):  # until the route closes the connection
            received += chunk
        waited = time.monotonic() - started
        answer = received.decode("latin-1")
    assert answer.startswith("HTTP/1.1 408"), answer
    assert "took longer than 1 s to arrive" in answer
    assert waited < 8
    assert not comments_file(repo).exists()


def test_one_bad_comment_in_an_array_refuses_the_whole_array(route: LiveRoute, repo: Path) -> None:
    assert route.client.post("/comments", json=draft("kept")).status_code == 201
    before = comments_file(repo).read_bytes()
    error = refused(route, [draft("one"), draft("two", context="x"), draft("three")])
    assert "comment 2 has 'context' must be an object" in error
    assert comments_file(repo).read_bytes() == before


def test_fields_the_route_owns_are_never_taken_from_the_client(
    route: LiveRoute, repo: Path
) -> None:
    forged = draft(
        id="loc_000000000000",
        receivedAt="2099-01-01T00:00:00.000000Z",
        updatedAt="2099-01-01T00:00:00.000Z",
        resolution={"sha": "9ab1c2d", "at": "2099-01-01T00:00:00.000Z"},
        author={"id": "ceo", "name": "CEO", "provenance": "server"},
    )
    answer = route.client.post("/comments", json=forged)
    assert answer.status_code == 201, answer.text
    stored = answer.json()
    [kept] = json.loads(comments_file(repo).read_text())["comments"]
    for record in (stored, kept):
        assert record["id"] != "loc_000000000000"
        assert not record["receivedAt"].startswith("2099")
        assert "updatedAt" not in record
        assert "resolution" not in record
        assert record["author"]["provenance"] == "guest"


def test_a_well_formed_comment_with_every_optional_field_is_taken(
    route: LiveRoute, repo: Path
) -> None:
    ref = {"connector": "file", "key": "shot-0123456789ab", "contentType": "image/png"}
    answer = route.client.post(
        "/comments",
        json=draft(
            "x" * 10_000,
            context={"url": "https://preview.example/", "viewportWidth": 375},
            attachments=[ref] * 20,
            createdAt="2026-01-01T12:00:00+02:00",
        ),
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["attachments"] == [ref] * 20


# -- 6. media cannot run script ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("image/svg+xml", SVG),
        ("image/svg+xml; charset=utf-8", SVG),
        ("text/html", HTML),
        ("image/x-icon", b"\x00\x00\x01\x00" + b"\x00" * 32),
    ],
)
def test_an_svg_upload_is_refused(
    route: LiveRoute, repo: Path, content_type: str, body: bytes
) -> None:
    answer = route.client.post("/media", content=body, headers={"content-type": content_type})
    assert answer.status_code == 415
    error = answer.json()["error"]
    assert "An image is required" in error
    for accepted in RASTERS:
        assert accepted in error
    assert not media_folder(repo).exists()


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("image/png", SVG),
        ("image/png", HTML),
        ("image/gif", b"<html>" + GIF),
        ("image/jpeg", PNG),
        ("image/webp", b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 32),
        ("image/avif", b"\x00\x00\x00\x1cftypisom\x00\x00\x00\x00isomiso2mp41" + b"\x00" * 8),
    ],
)
def test_bytes_that_are_not_the_declared_raster_image_are_refused(
    route: LiveRoute, repo: Path, content_type: str, body: bytes
) -> None:
    answer = route.client.post("/media", content=body, headers={"content-type": content_type})
    assert answer.status_code == 415, answer.text
    error = answer.json()["error"]
    assert content_type in error
    assert "image/png, image/jpeg, image/gif, image/webp or image/avif" in error
    assert not media_folder(repo).exists()


def inert(answer: httpx.Response) -> None:
    assert answer.headers["x-content-type-options"] == "nosniff"
    policy = [d.strip() for d in answer.headers["content-security-policy"].split(";")]
    assert "default-src 'none'" in policy
    assert "sandbox" in policy  # no allow-scripts: nothing in it runs, even opened directly
    assert answer.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("content_type", sorted(RASTERS))
def test_a_raster_image_is_taken_and_served_inline_yet_sandboxed(
    route: LiveRoute, content_type: str
) -> None:
    put = route.client.post(
        "/media", content=RASTERS[content_type], headers={"content-type": content_type}
    )
    assert put.status_code == 201, put.text
    assert put.json()["contentType"] == content_type
    got = route.client.get(f"/media/{put.json()['key']}")
    assert got.status_code == 200
    assert got.content == RASTERS[content_type]
    assert got.headers["content-type"] == content_type
    assert got.headers["content-disposition"] == "inline"
    inert(got)


@pytest.mark.parametrize(("extension", "body"), [("svg", SVG), ("bin", HTML), ("html", HTML)])
def test_a_stored_svg_is_served_as_an_inert_attachment(
    route: LiveRoute, repo: Path, extension: str, body: bytes
) -> None:
    # as an older maple or Maple's own route kept it
    media_folder(repo).mkdir(parents=True)
    (media_folder(repo) / f"shot-0123456789ab.{extension}").write_bytes(body)
    got = route.client.get("/media/shot-0123456789ab")
    assert got.status_code == 200
    assert got.headers["content-disposition"] == "attachment"
    assert "html" not in got.headers["content-type"]
    inert(got)


def test_errors_are_never_sniffed_as_a_page(route: LiveRoute) -> None:
    answer = route.client.get("/media/<script>alert(1)<%2Fscript>")
    assert answer.status_code in (400, 404)
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_the_solo_bridge_shows_a_screenshot_inline_and_a_stored_svg_as_an_attachment(
    repo: Path,
) -> None:
    origin = "https://feat-x.preview.example"
    bridge = start_bridge(origin, cwd=repo)
    try:
        put = httpx.post(
            bridge.url + "/api/maple/media",
            content=PNG,
            headers={"origin": origin, "x-maple-solo": bridge.token, "content-type": "image/png"},
        )
        assert put.status_code == 201, put.text
        svg = httpx.post(
            bridge.url + "/api/maple/media",
            content=SVG,
            headers={"origin": origin, "x-maple-solo": bridge.token, "content-type": "image/png"},
        )
        assert svg.status_code == 415
        [folder] = (p for p in (repo / ".maple").iterdir() if p.is_dir())
        (folder / "media" / "shot-0123456789ab.svg").write_bytes(SVG)

        def shown(key: str) -> httpx.Response:
            # what an <img> on the preview asks: the token in the query, the page as referer
            return httpx.get(
                bridge.url + f"/api/maple/media/{key}",
                params={"maple-solo": bridge.token},
                headers={"referer": origin + "/dashboard"},
            )

        image, stored_svg = shown(put.json()["key"]), shown("shot-0123456789ab")
    finally:
        bridge.stop()
    assert (image.status_code, image.content) == (200, PNG)
    assert image.headers["content-disposition"] == "inline"
    assert image.headers["access-control-allow-origin"] == origin
    assert "cross-origin-resource-policy" not in image.headers  # the preview's <img> still loads
    inert(image)
    assert stored_svg.status_code == 200
    assert stored_svg.headers["content-disposition"] == "attachment"
    inert(stored_svg)
