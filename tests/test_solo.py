"""Solo mode: the pairing rules as a table, the bridge over real HTTP, and ``start_solo``.

Maple's solo-bridge.test.ts and solo.test.ts cases (behaviour §9, §10.10, §10.14).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
import pytest
from mcp.client import Client

from contract_tests.support import FakeClock, git, make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.store import GitHubLedgerStore
from maple_core.errors import InvalidInputError
from maple_entrypoints.mcp_server import build_server
from maple_entrypoints.solo import BridgeStartError, start_bridge
from maple_entrypoints.solo_bridges import SoloBridge, SoloBridges
from maple_entrypoints.solo_pairing import (
    SoloRequest,
    SoloRules,
    origin_of,
    pairing_of,
    solo_link,
    solo_refusal,
)
from tests.mcp_support import EVENT_S, OutputLines, error_text, interrupt, structured
from tests.support import maple, start_maple

ORIGIN = "https://feat-x.preview.example"
TOKEN = "t" * 43
RULES = SoloRules(port=4100, token=TOKEN, origin=ORIGIN)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def ask(
    method: str = "POST",
    path: str = "/api/maple/comments",
    host: str | None = "127.0.0.1:4100",
    origin: str | None = ORIGIN,
    token: str | None = TOKEN,
    **kw: Any,
) -> tuple[int, str] | None:
    request = SoloRequest(
        method=method, path=path, host=host, origin=origin, token_header=token, **kw
    )
    refusal = solo_refusal(request, RULES)
    return None if refusal is None else (refusal.status, refusal.error)


class TestRefusalTable:
    def test_a_valid_request_passes_on_either_host_name(self) -> None:
        assert ask() is None
        assert ask(host="localhost:4100") is None

    @pytest.mark.parametrize("token", [None, "", "u" * 43, "t" * 42, "t" * 44])
    def test_no_wrong_or_short_token_is_401(self, token: str | None) -> None:
        assert ask(token=token) == (401, "A pairing token is required.")

    @pytest.mark.parametrize(
        "origin",
        ["https://evil.example", "http://feat-x.preview.example", None, ORIGIN + ":8443"],
    )
    def test_another_origin_is_403(self, origin: str | None) -> None:
        assert ask(origin=origin) == (403, "This origin is not paired.")

    @pytest.mark.parametrize(
        "host", ["evil.example:4100", "127.0.0.1:4101", "127.0.0.1", "", None, "[::1]:4100"]
    )
    def test_another_host_is_403(self, host: str | None) -> None:
        assert ask(host=host) == (403, "This is not the bridge's address.")

    def test_a_query_token_counts_only_for_a_screenshot_get(self) -> None:
        assert ask(token=None, token_query=TOKEN) == (401, "A pairing token is required.")
        shot = "/api/maple/media/shot-0123456789ab"
        referer = ORIGIN + "/dashboard?x=1"
        assert ask("GET", shot, origin=None, token=None, token_query=TOKEN, referer=referer) is None
        assert ask(
            "GET", shot, origin=None, token=None, token_query=TOKEN, referer="https://evil.example/"
        ) == (403, "This origin is not paired.")
        assert ask("GET", shot, origin=None, token=None, token_query=TOKEN) == (
            403,
            "This origin is not paired.",
        )
        assert ask("GET", shot, origin=None, token=None, token_query="x" * 43, referer=referer) == (
            401,
            "A pairing token is required.",
        )

    def test_an_empty_origin_counts_as_absent_so_the_referer_decides(self) -> None:
        shot = "/api/maple/media/shot-0123456789ab"
        referer = ORIGIN + "/dashboard"
        by_query = {"token": None, "token_query": TOKEN}
        assert ask("GET", shot, origin="", referer=referer, **by_query) is None
        assert ask("GET", shot, origin="", referer="https://evil.example/", **by_query) == (
            403,
            "This origin is not paired.",
        )
        assert ask("GET", shot, origin="", referer="", **by_query) == (
            403,
            "This origin is not paired.",
        )
        assert ask(origin="", referer=referer) == (403, "This origin is not paired.")
        assert ask("OPTIONS", token=None, origin="") == (403, "This origin is not paired.")

    def test_an_empty_token_header_counts_as_absent_so_the_query_decides(self) -> None:
        shot = "/api/maple/media/shot-0123456789ab"
        referer = ORIGIN + "/dashboard"
        assert ask("GET", shot, token="", token_query=TOKEN, referer=referer) is None
        assert ask(token="", token_query=TOKEN) == (401, "A pairing token is required.")

    def test_a_preflight_needs_only_the_paired_origin(self) -> None:
        assert ask("OPTIONS", token=None) is None
        assert ask("OPTIONS", token=None, origin="https://evil.example") == (
            403,
            "This origin is not paired.",
        )

    def test_a_path_outside_the_route_is_403(self) -> None:
        assert ask(path="/etc/passwd") == (403, "Not a Maple route.")
        assert ask(path="/api/maplex") == (403, "Not a Maple route.")


class TestLinks:
    def test_the_link_keeps_path_and_query_and_replaces_the_fragment(self) -> None:
        link = solo_link(ORIGIN + "/menu?tab=2#old", TOKEN, "http://127.0.0.1:4100")
        parts = urlsplit(link)
        assert (parts.scheme, parts.netloc, parts.path, parts.query) == (
            "https",
            "feat-x.preview.example",
            "/menu",
            "tab=2",
        )
        assert parts.fragment == f"maple-solo={TOKEN}&maple-bridge=http%3A%2F%2F127.0.0.1%3A4100"
        assert pairing_of(link) == (TOKEN, "http://127.0.0.1:4100")

    @pytest.mark.parametrize(
        ("url", "origin"),
        [
            ("https://Feat-X.Preview.Example/menu", ORIGIN),
            ("https://feat-x.preview.example:443/", ORIGIN),
            ("http://localhost:3000/a", "http://localhost:3000"),
        ],
    )
    def test_origins_are_what_a_browser_sends(self, url: str, origin: str) -> None:
        assert origin_of(url) == origin

    @pytest.mark.parametrize("url", ["ftp://files.example/", "preview.example", "", "https://"])
    def test_an_address_that_is_not_http_is_refused(self, url: str) -> None:
        with pytest.raises(InvalidInputError, match="not an http or https address"):
            origin_of(url)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", "feat/solo-test")


@pytest.fixture
def bridge(repo: Path) -> Iterator[SoloBridge]:
    running = start_bridge(ORIGIN + "/dashboard", cwd=repo)
    yield running
    running.stop()


def paired(bridge: SoloBridge, **extra: str) -> dict[str, str]:
    return {"origin": ORIGIN, "x-maple-solo": bridge.token, **extra}


def draft(body: str = "The header wraps.", **kw: Any) -> dict[str, Any]:
    return {"branch": "feat/solo-test", "body": body, "anchor": {"kind": "page"}, **kw}


class TestBridgeOverHttp:
    def test_it_listens_on_loopback_with_a_43_character_token(self, bridge: SoloBridge) -> None:
        assert bridge.url.startswith("http://127.0.0.1:")
        assert len(bridge.token) == 43
        assert bridge.origin == ORIGIN

    @pytest.mark.parametrize(
        ("headers", "status"),
        [
            ({"origin": ORIGIN}, 401),
            ({"origin": ORIGIN, "x-maple-solo": "w" * 43}, 401),
            ({"origin": "https://evil.example", "x-maple-solo": "{token}"}, 403),
            ({"x-maple-solo": "{token}"}, 403),
            ({"origin": ORIGIN, "x-maple-solo": "{token}", "host": "evil.example"}, 403),
        ],
    )
    def test_refusals_carry_no_cors_and_write_nothing(
        self, bridge: SoloBridge, repo: Path, headers: dict[str, str], status: int
    ) -> None:
        sent = {k: v.replace("{token}", bridge.token) for k, v in headers.items()}
        answer = httpx.post(bridge.url + "/api/maple/comments", json=draft(), headers=sent)
        assert answer.status_code == status
        assert answer.headers["content-type"] == "application/json"
        assert answer.headers["cache-control"] == "no-store"
        assert not any(k.startswith("access-control-") for k in answer.headers)
        assert not (repo / ".maple").exists()

    def test_a_preflight_is_answered_for_the_paired_origin_only(self, bridge: SoloBridge) -> None:
        answer = httpx.options(
            bridge.url + "/api/maple/comments",
            headers={
                "origin": ORIGIN,
                "access-control-request-method": "POST",
                "access-control-request-private-network": "true",
            },
        )
        assert answer.status_code == 204
        assert answer.headers["access-control-allow-origin"] == ORIGIN
        assert "x-maple-solo" in answer.headers["access-control-allow-headers"]
        assert answer.headers["access-control-allow-methods"] == "GET, POST, PATCH, DELETE"
        assert answer.headers["access-control-max-age"] == "600"
        assert answer.headers["access-control-allow-private-network"] == "true"
        foreign = httpx.options(
            bridge.url + "/api/maple/comments", headers={"origin": "https://evil.example"}
        )
        assert foreign.status_code == 403
        assert not any(k.startswith("access-control-") for k in foreign.headers)

    def test_a_paired_page_writes_a_screenshot_and_a_comment(
        self, bridge: SoloBridge, repo: Path
    ) -> None:
        shot = httpx.post(
            bridge.url + "/api/maple/media",
            content=PNG,
            headers=paired(bridge, **{"content-type": "image/png"}),
        )
        assert shot.status_code == 201
        assert shot.headers["access-control-allow-origin"] == ORIGIN
        assert shot.headers["vary"] == "Origin"
        ref = shot.json()
        posted = httpx.post(
            bridge.url + "/api/maple/comments",
            json=draft(attachments=[ref]),
            headers=paired(bridge),
        )
        assert posted.status_code == 201
        assert posted.headers["access-control-allow-origin"] == ORIGIN
        folder = repo / ".maple" / "feat-solo-test"
        [kept] = json.loads((folder / "comments.json").read_text())["comments"]
        assert (kept["body"], kept["status"], kept["branch"]) == (
            "The header wraps.",
            "open",
            "feat/solo-test",
        )
        assert kept["author"]["provenance"] == "guest"
        assert (folder / "media" / f"{ref['key']}.png").read_bytes() == PNG
        listed = httpx.get(
            bridge.url + "/api/maple/comments",
            params={"branch": "feat/solo-test"},
            headers=paired(bridge),
        )
        assert len(listed.json()["comments"]) == 1
        image = httpx.get(
            bridge.url + f"/api/maple/media/{ref['key']}",
            params={"type": "image/png", "maple-solo": bridge.token},
            headers={"referer": ORIGIN + "/dashboard"},
        )
        assert image.status_code == 200
        assert image.content == PNG

    @pytest.mark.parametrize(
        ("headers", "status"),
        [
            ({"origin": "", "referer": ORIGIN + "/dashboard"}, 200),
            ({"origin": "", "x-maple-solo": "", "referer": ORIGIN + "/dashboard"}, 200),
            ({"origin": "", "referer": "https://evil.example/"}, 403),
            ({"origin": "", "referer": ""}, 403),
        ],
    )
    def test_empty_origin_and_token_headers_count_as_absent(
        self, bridge: SoloBridge, headers: dict[str, str], status: int
    ) -> None:
        shot = httpx.post(
            bridge.url + "/api/maple/media",
            content=PNG,
            headers=paired(bridge, **{"content-type": "image/png"}),
        )
        image = httpx.get(
            bridge.url + f"/api/maple/media/{shot.json()['key']}",
            params={"maple-solo": bridge.token},
            headers=headers,
        )
        assert image.status_code == status, image.text
        if status == 200:
            assert image.content == PNG
        else:
            assert image.json() == {"error": "This origin is not paired."}

    def test_a_path_outside_the_route_is_refused(self, bridge: SoloBridge) -> None:
        answer = httpx.get(bridge.url + "/", headers=paired(bridge))
        assert (answer.status_code, answer.json()) == (403, {"error": "Not a Maple route."})

    def test_a_worktrees_bridge_writes_to_the_main_checkouts_folder(
        self, repo: Path, tmp_path: Path
    ) -> None:
        worktree = tmp_path / "wt"
        git(repo, "worktree", "add", "-q", "-b", "feat/wt", str(worktree))
        running = start_bridge(ORIGIN, cwd=worktree)
        try:
            answer = httpx.post(
                running.url + "/api/maple/comments",
                json={"branch": "feat/wt", "body": "x", "anchor": {}},
                headers={"origin": ORIGIN, "x-maple-solo": running.token},
            )
        finally:
            running.stop()
        assert answer.status_code == 201
        assert (repo / ".maple" / "feat-wt" / "comments.json").exists()
        assert not (worktree / ".maple").exists()

    def test_a_taken_port_is_a_clear_error(self, bridge: SoloBridge) -> None:
        port = int(bridge.url.rsplit(":", 1)[1])
        with pytest.raises(BridgeStartError, match=f"cannot listen on 127.0.0.1:{port}"):
            start_bridge(ORIGIN, port=port)

    def test_an_ftp_origin_is_refused(self) -> None:
        with pytest.raises(InvalidInputError, match=r"ftp://x\.example/ is not an http"):
            start_bridge("ftp://x.example/")


# -- start_solo (behaviour §6.7, §10.10) --------------------------------------------------------


@pytest.fixture
def bridges(tmp_path: Path) -> Iterator[SoloBridges]:
    folder = tmp_path / "not-a-repo"
    folder.mkdir()
    made = SoloBridges(lambda url: start_bridge(url, cwd=folder))
    yield made
    made.stop_all()


@pytest.mark.anyio
async def test_a_paired_comment_lands_in_default_and_is_resolved(
    tmp_path: Path, bridges: SoloBridges
) -> None:
    folder = tmp_path / "not-a-repo"
    server = build_server(FileCommentStore(FakeClock(), folder), solo=bridges)
    async with Client(server) as client:
        started = structured(await client.call_tool("start_solo", {"previewUrl": ORIGIN + "/menu"}))
        token, bridge = pairing_of(started["link"]) or ("", "")
        assert bridge == started["bridge"]
        posted = httpx.post(
            bridge + "/api/maple/comments",
            json={"branch": "feat/x", "body": "The header wraps.", "anchor": {"kind": "page"}},
            headers={"origin": ORIGIN, "x-maple-solo": token},
        )
        assert posted.status_code == 201
        ledger = folder / ".maple" / "default" / "comments.json"
        assert ledger.exists()
        listed = structured(
            await client.call_tool("list_comments", {"branch": "feat/x", "statuses": ["open"]})
        )
        assert [(c["body"], c["status"]) for c in listed] == [("The header wraps.", "open")]
        await client.call_tool("resolve_comment", {"id": listed[0]["id"], "sha": "abc1234"})
    assert '"resolved"' in ledger.read_text()


@pytest.mark.anyio
async def test_one_bridge_per_origin_and_a_link_per_path(
    tmp_path: Path, bridges: SoloBridges
) -> None:
    server = build_server(FileCommentStore(FakeClock(), tmp_path), solo=bridges)
    async with Client(server) as client:
        a = structured(await client.call_tool("start_solo", {"previewUrl": ORIGIN + "/a"}))
        b = structured(await client.call_tool("start_solo", {"previewUrl": ORIGIN + "/b"}))
        other = structured(
            await client.call_tool("start_solo", {"previewUrl": "https://feat-y.preview.example/"})
        )
    assert urlsplit(b["link"]).path == "/b"
    assert parse_qs(urlsplit(a["link"]).fragment) == parse_qs(urlsplit(b["link"]).fragment)
    assert a["bridge"] == b["bridge"]
    assert other["bridge"] != a["bridge"]


@pytest.mark.anyio
async def test_a_failed_start_is_forgotten_and_tried_again(tmp_path: Path) -> None:
    attempts: list[str] = []

    def refuse(url: str) -> SoloBridge:
        attempts.append(url)
        raise BridgeStartError("port taken")

    server = build_server(FileCommentStore(FakeClock(), tmp_path), solo=SoloBridges(refuse))
    async with Client(server) as client:
        for _ in range(2):
            assert "port taken" in error_text(
                await client.call_tool("start_solo", {"previewUrl": ORIGIN})
            )
    assert len(attempts) == 2


@pytest.mark.anyio
async def test_a_forge_store_is_refused_and_no_starter_is_not_available(
    tmp_path: Path, bridges: SoloBridges
) -> None:
    github = GitHubLedgerStore(object(), "acme", "web", FakeClock())  # type: ignore[arg-type]
    async with Client(build_server(github, solo=bridges)) as client:
        message = error_text(await client.call_tool("start_solo", {"previewUrl": ORIGIN}))
    assert message.endswith(
        "This server reads the github store, but solo comments are written under .maple/. "
        "Set MAPLE_STORE=file to read them."
    )
    async with Client(build_server(FileCommentStore(FakeClock(), tmp_path))) as client:
        message = error_text(await client.call_tool("start_solo", {"previewUrl": ORIGIN}))
    assert message.endswith("Solo mode is not available in this server.")
    async with Client(build_server(FileCommentStore(FakeClock(), tmp_path), solo=bridges)) as c:
        bad = error_text(await c.call_tool("start_solo", {"previewUrl": "ftp://x.example/"}))
    assert "not an http or https address" in bad


def test_maple_solo_prints_the_link_and_serves_until_interrupted(repo: Path) -> None:
    process = start_maple(repo, "solo", ORIGIN + "/dashboard?tab=1")
    assert process.stdout is not None
    lines = OutputLines(process.stdout)
    try:
        link = lines.next().strip()  # printed once the bridge listens
        token, bridge = pairing_of(link) or ("", "")
        assert link.startswith(ORIGIN + "/dashboard?tab=1#maple-solo=")
        answer = httpx.post(
            bridge + "/api/maple/comments",
            json=draft("From the CLI's bridge."),
            headers={"origin": ORIGIN, "x-maple-solo": token},
            timeout=EVENT_S,
        )
        assert answer.status_code == 201
        assert (repo / ".maple" / "feat-solo-test" / "comments.json").exists()
    finally:
        err = interrupt(process, lines)
    assert process.returncode == 0, err
    assert "Ctrl-C stops it" in err


@pytest.mark.parametrize("address", ["ftp://x.example/", "not-a-url"])
def test_an_address_that_cannot_be_paired_is_an_input_error_in_one_line(
    repo: Path, address: str
) -> None:
    done = maple(repo, "solo", address, timeout=30)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"maple: Could not start the solo bridge: {address} is not an http or https address; "
        "give the preview's URL, such as https://feat-login.preview.example."
    ]
