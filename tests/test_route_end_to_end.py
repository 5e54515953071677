"""``maple route serve`` as a process, and ``maple-mcp`` with ``MAPLE_STORE=route`` using it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2 as httpx
import pytest

from contract_tests.support import make_repo
from tests.loopback import free_port
from tests.mcp_support import clean_env, stdio_server, structured

MAPLE = Path(sys.executable).with_name("maple")
BRANCH = "feat/e2e"
SECRET = "ghp_route_e2e_secret_0000000000"


def draft(body: str) -> dict[str, object]:
    return {"branch": BRANCH, "body": body, "anchor": {"selector": "main"}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


@pytest.fixture
def served(repo: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [str(MAPLE), "route", "serve", "--store", "file", "--port", str(port)],
        cwd=repo,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/api/maple"
    deadline = time.monotonic() + 20
    while True:
        try:
            if httpx.get(url + "/me", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"maple route serve did not start: {process.stderr.read()}")
        time.sleep(0.05)
    try:
        yield url
    finally:
        process.terminate()
        process.communicate(timeout=10)


@pytest.mark.anyio
async def test_the_mcp_server_reads_waits_and_resolves_through_the_route(
    served: str, repo: Path, tmp_path: Path
) -> None:
    first = httpx.post(served + "/comments", json=draft("Tighten the hero's spacing.")).json()
    elsewhere = tmp_path / "agent"  # the agent's cwd need not be the route's checkout
    elsewhere.mkdir()
    env = {"MAPLE_STORE": "route", "MAPLE_URL": served + "/", "GITHUB_TOKEN": SECRET}
    async with stdio_server(elsewhere, **env) as client:
        listed = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert [c["id"] for c in listed] == [first["id"]]
        drained = structured(await client.call_tool("wait_for_comments", {"branch": BRANCH}))
        assert [c["body"] for c in drained["comments"]] == ["Tighten the hero's spacing."]

        async def post_later() -> None:
            await anyio.sleep(0.5)
            httpx.post(served + "/comments", json=draft("And the footer."))

        async with anyio.create_task_group() as group:
            group.start_soon(post_later)
            started = time.monotonic()
            woke = structured(
                await client.call_tool(
                    "wait_for_comments",
                    {"branch": BRANCH, "cursor": drained["cursor"], "timeoutMs": 20_000},
                )
            )
        assert [c["body"] for c in woke["comments"]] == ["And the footer."]
        assert time.monotonic() - started < 5
        resolved = structured(
            await client.call_tool(
                "resolve_comment", {"id": first["id"], "sha": "9ab1c2d", "note": "Done."}
            )
        )
        assert resolved["status"] == "resolved"
        assert resolved["author"]["provenance"] == "guest"
    on_disk = json.loads((repo / ".maple" / "feat-e2e" / "comments.json").read_text())
    [kept] = [c for c in on_disk["comments"] if c["id"] == first["id"]]
    assert kept["status"] == "resolved"
    assert kept["resolution"]["note"] == "Done."


def test_the_cli_lists_through_the_route(served: str, tmp_path: Path) -> None:
    httpx.post(served + "/comments", json=draft("Through the route."))
    done = subprocess.run(
        [str(MAPLE), "comments", "list", "--branch", BRANCH],
        cwd=tmp_path,
        env=clean_env(MAPLE_STORE="route", MAPLE_URL=served),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Through the route." in done.stdout


def test_an_unreachable_route_is_a_clear_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/api/maple"
    done = subprocess.run(
        [str(MAPLE), "comments", "list", "--branch", BRANCH],
        cwd=tmp_path,
        env=clean_env(MAPLE_STORE="route", MAPLE_URL=url, GITHUB_TOKEN=SECRET),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"{url}/comments could not be reached" in done.stderr
    assert "MAPLE_URL" in done.stderr
    assert SECRET not in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["--store", "sqlite"], {}, 'unknown --store sqlite; "file", "github" and "sql" exist'),
        (["--store", "github"], {}, "MAPLE_GITHUB_OWNER is not set"),
        (
            ["--store", "github"],
            {"MAPLE_GITHUB_OWNER": "a", "MAPLE_GITHUB_REPO": "w", "MAPLE_GATE_APP_ID": "1"},
            "MAPLE_GATE_INSTALLATION_ID is not set",
        ),
        (["--prefix", "api"], {}, "--prefix must start with /"),
    ],
)
def test_route_serve_refuses_a_bad_configuration_in_one_line(
    repo: Path, args: list[str], env: dict[str, str], says: str
) -> None:
    done = subprocess.run(
        [str(MAPLE), "route", "serve", *args, "--port", str(free_port())],
        cwd=repo,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
