"""``maple-mcp`` over stdio, driven by the official MCP client: tools, waits, errors, start-up."""

from __future__ import annotations

import json
import os
import subprocess
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest

from contract_tests.support import git
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from tests.mcp_support import error_text, stdio_server, structured
from tests.support import MAPLE_MCP, clean_env

pytestmark = pytest.mark.anyio
SNAPSHOT = Path(__file__).with_name("snapshots") / "tools_list.json"
BRANCH = "feat/x"


def add(repo: Path, body: str, branch: str = BRANCH, **kw: Any) -> str:
    store = FileCommentStore(SystemClock(), repo)
    return store.append(NewComment(branch=branch, body=body, **kw)).id


def tools_snapshot(tools: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "title": t.title,
            "description": t.description,
            "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True)
            if t.annotations
            else None,
            "input_schema": t.input_schema,
            "output_schema": t.output_schema,
        }
        for t in tools.tools
    ]


async def test_tools_list_matches_the_snapshot(repo: Path) -> None:
    async with stdio_server(repo) as client:
        assert client.server_info.name == "maple"
        assert client.server_info.version == version("maple-review")
        listed = tools_snapshot(await client.list_tools())
    if os.environ.get("MAPLE_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(listed, indent=2) + "\n")
    assert listed == json.loads(SNAPSHOT.read_text())
    assert [t["name"] for t in listed] == [
        "list_comments",
        "wait_for_comments",
        "resolve_comment",
        "reply_to_comment",
        "get_comment_context",
        "start_solo",
        "claim_comment",
    ]
    assert [t["name"] for t in listed if not t["annotations"]["readOnlyHint"]] == [
        "resolve_comment",
        "reply_to_comment",
        "start_solo",
        "claim_comment",
    ]
    solo = next(t for t in listed if t["name"] == "start_solo")
    assert solo["title"] == "Keep a preview's comments on this machine"
    assert "never count toward the merge gate" in solo["description"]
    resolve = next(t for t in listed if t["name"] == "resolve_comment")
    assert resolve["annotations"]["idempotentHint"] is True
    for tool in listed:
        assert tool["title"]
        assert tool["description"]
        assert tool["output_schema"]["type"] == "object"
    wait = next(t for t in listed if t["name"] == "wait_for_comments")
    assert "timeout" in wait["description"]
    assert "rather than failing" in wait["description"]


async def test_list_comments_newest_first_and_per_branch(repo: Path) -> None:
    first = add(repo, "one", created_at="2026-01-01T12:01:00.000Z")
    third = add(repo, "three", created_at="2026-01-01T12:03:00.000Z")
    second = add(repo, "two", created_at="2026-01-01T12:02:00.000Z")
    add(repo, "elsewhere", branch="feat/other")
    async with stdio_server(repo) as client:
        listed = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert [c["id"] for c in listed] == [third, second, first]
        assert structured(await client.call_tool("list_comments", {"branch": "other"})) == []
        resolved = structured(
            await client.call_tool("list_comments", {"branch": BRANCH, "statuses": ["resolved"]})
        )
        assert resolved == []


async def test_every_call_rereads_the_store(repo: Path) -> None:
    async with stdio_server(repo) as client:
        assert structured(await client.call_tool("list_comments", {"branch": BRANCH})) == []
        add(repo, "written by another process")
        assert len(structured(await client.call_tool("list_comments", {"branch": BRANCH}))) == 1


async def test_wait_drains_then_times_out_with_the_same_cursor(repo: Path) -> None:
    add(repo, "a")
    add(repo, "b")
    async with stdio_server(repo) as client:
        drained = structured(await client.call_tool("wait_for_comments", {"branch": BRANCH}))
        assert drained["status"] == "comments"
        assert len(drained["comments"]) == 2
        started = time.monotonic()
        timeout = structured(
            await client.call_tool(
                "wait_for_comments", {"branch": BRANCH, "cursor": drained["cursor"], "timeoutMs": 5}
            )
        )
        assert timeout == {"status": "timeout", "cursor": drained["cursor"], "comments": []}
        assert 0.9 <= time.monotonic() - started < 5  # clamped up to one second


async def test_wait_with_a_future_cursor_times_out_exactly(repo: Path) -> None:
    add(repo, "old", created_at="2026-01-01T12:01:00.000Z")
    async with stdio_server(repo) as client:
        cursor = "2999-01-01T12:09:00.000Z"
        result = structured(
            await client.call_tool(
                "wait_for_comments", {"branch": BRANCH, "cursor": cursor, "timeoutMs": 1000}
            )
        )
        assert result == {"status": "timeout", "cursor": cursor, "comments": []}


async def test_wait_wakes_within_milliseconds_of_an_append_by_another_process(repo: Path) -> None:
    add(repo, "before")
    async with stdio_server(repo) as client:
        cursor = structured(await client.call_tool("wait_for_comments", {"branch": BRANCH}))[
            "cursor"
        ]
        appended_at: list[float] = []

        async def append_later() -> None:
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(
                lambda: subprocess.run(
                    [str(MAPLE_MCP.with_name("maple")), "comments", "add", "--body", "after"],
                    cwd=repo,
                    env=clean_env(),
                    check=True,
                    capture_output=True,
                )
            )
            appended_at.append(time.monotonic())

        async with anyio.create_task_group() as tg:
            tg.start_soon(append_later)
            found = structured(
                await client.call_tool(
                    "wait_for_comments", {"branch": BRANCH, "cursor": cursor, "timeoutMs": 20000}
                )
            )
            woke_at = time.monotonic()
        assert [c["body"] for c in found["comments"]] == ["after"]
        assert woke_at - appended_at[0] < 1.0


async def test_a_cancelled_wait_stops_and_the_server_keeps_serving(repo: Path) -> None:
    async with stdio_server(repo) as client:
        started = time.monotonic()
        with anyio.move_on_after(0.5):
            await client.call_tool(
                "wait_for_comments",
                {"branch": BRANCH, "cursor": "2999-01-01T00:00:00Z", "timeoutMs": 55000},
            )
        assert time.monotonic() - started < 2
        again = time.monotonic()
        assert structured(await client.call_tool("list_comments", {"branch": BRANCH})) == []
        assert time.monotonic() - again < 2


async def test_progress_is_reported_during_a_long_wait(repo: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with stdio_server(repo) as client:
        result = await client.call_tool(
            "wait_for_comments",
            {"branch": BRANCH, "cursor": "2999-01-01T00:00:00Z", "timeoutMs": 16500},
            progress_callback=on_progress,
        )
    assert structured(result)["status"] == "timeout"
    assert len(seen) == 1
    progress, total, message = seen[0]
    assert 15 <= progress < 16.5
    assert total == 16.5
    assert message == f"Waiting for comments on {BRANCH}"


async def test_resolve_records_the_resolution(repo: Path) -> None:
    first = add(repo, "a")
    second = add(repo, "b")
    head = git(repo, "rev-parse", "HEAD")
    async with stdio_server(repo) as client:
        resolved = structured(
            await client.call_tool(
                "resolve_comment",
                {"id": first, "sha": head[:7], "note": "Matched the card's padding."},
            )
        )
        assert resolved["status"] == "resolved"
        assert resolved["resolution"]["sha"] == head  # checked in the checkout: the full sha
        assert resolved["resolution"]["note"] == "Matched the card's padding."
        assert resolved["resolution"]["at"][:4].isdigit()
        bare = structured(await client.call_tool("resolve_comment", {"id": second, "sha": head}))
        assert "note" not in bare["resolution"]
        opened = structured(
            await client.call_tool("list_comments", {"branch": BRANCH, "statuses": ["open"]})
        )
        assert opened == []
    assert '"resolved"' in (repo / ".maple" / "feat-x" / "comments.json").read_text()


async def test_an_unknown_id_is_a_clear_error_at_once(repo: Path) -> None:
    async with stdio_server(repo) as client:
        await client.call_tool("list_comments", {"branch": BRANCH})  # the server is serving
        started = time.monotonic()
        message = error_text(
            await client.call_tool(
                "resolve_comment", {"id": "nope", "sha": git(repo, "rev-parse", "HEAD")}
            )
        )
        assert time.monotonic() - started < 1
        assert "No comment with id nope" in message
        context = error_text(
            await client.call_tool("get_comment_context", {"id": "nope", "branch": BRANCH})
        )
        assert "No comment nope on feat/x." in context


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("list_comments", {}, "branch"),
        ("list_comments", {"branch": 7}, "valid string"),
        ("list_comments", {"branch": "x" * 5000}, "at most 1024"),
        ("list_comments", {"branch": BRANCH, "statuses": ["done"]}, "statuses"),
        ("wait_for_comments", {"branch": BRANCH, "cursor": "yesterday"}, "not a timestamp"),
        ("wait_for_comments", {"branch": BRANCH, "timeoutMs": "soon"}, "timeoutMs"),
        ("resolve_comment", {"id": "x"}, "sha"),
        ("resolve_comment", {"id": "x", "sha": "abc", "note": "n" * 70000}, "note"),
        ("get_comment_context", {"id": ["x"], "branch": BRANCH}, "id"),
    ],
)
async def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(
    repo: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    async with stdio_server(repo) as client:
        assert expected in error_text(await client.call_tool(tool, arguments))
        assert structured(await client.call_tool("list_comments", {"branch": BRANCH})) == []


def start(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MAPLE_MCP)],
        cwd=cwd,
        env=clean_env(**env),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


SECRET = "ghp_secret_value_never_printed_0001"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {
                "MAPLE_URL": "https://x.example/api/maple",
                "MAPLE_GATE_TOKEN": SECRET,
                "GITHUB_TOKEN": SECRET,
            },
            "MAPLE_URL and MAPLE_GATE_TOKEN are both set",
        ),
        (
            {"MAPLE_GITHUB_REPO": "r"},
            "MAPLE_GITHUB_OWNER is not set; Maple's MCP server cannot start without it. It is: ",
        ),
        ({"GITHUB_TOKEN": SECRET, "MAPLE_GITHUB_REPO": "r"}, "MAPLE_GITHUB_OWNER is not set"),
        (
            {"MAPLE_STORE": "sqlite"},
            'Unknown MAPLE_STORE sqlite; "github" and "file" exist',
        ),
        ({"MAPLE_STORE": ""}, "Unknown MAPLE_STORE ;"),
        ({"MAPLE_URL": "https://x.example/api/maple"}, "GITHUB_TOKEN is not set"),
        ({"MAPLE_GATE_TOKEN": SECRET}, "MAPLE_GITHUB_OWNER is not set"),
        (
            {
                "MAPLE_STORE": "file",
                "MAPLE_GATE_TOKEN": SECRET,
                "MAPLE_GITHUB_OWNER": "a",
                "MAPLE_GITHUB_REPO": "w",
            },
            "the file store cannot name it",
        ),
        ({"MAPLE_GITHUB_TRANSPORT": "ssh"}, "Unknown MAPLE_GITHUB_TRANSPORT ssh"),
        ({"MAPLE_STORE": "route"}, "MAPLE_URL is not set"),
        (
            {
                "MAPLE_GITHUB_OWNER": "acme",
                "MAPLE_GITHUB_REPO": "web",
                "MAPLE_GITHUB_TRANSPORT": "cli",
                "PATH": "/nonexistent",
            },
            "MAPLE_GITHUB_TRANSPORT=cli needs gh signed in",
        ),
    ],
)
def test_a_bad_configuration_exits_before_serving_with_one_line(
    repo: Path, env: dict[str, str], message: str
) -> None:
    done = start(repo, **env)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("maple-mcp: ")
    assert message in lines[0]
    assert SECRET not in done.stderr


async def test_maple_mcp_is_also_maple_mcp_subcommand(repo: Path) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=str(MAPLE_MCP.with_name("maple")), args=["mcp"], cwd=repo, env=clean_env()
    )
    async with Client(params) as client:
        names = [t.name for t in (await client.list_tools()).tools]
    assert names[0] == "list_comments"


async def test_context_through_the_server(repo: Path) -> None:
    cid = add(
        repo,
        "x",
        anchor=Anchor(
            source="src/App.tsx:4:3",
            component="App",
            quote={"exact": "Overview"},
            selector="main > h1",
        ),
    )
    async with stdio_server(repo) as client:
        context = structured(
            await client.call_tool("get_comment_context", {"id": cid, "branch": BRANCH})
        )
    assert context["anchors"] == [
        "source src/App.tsx:4:3",
        "component App",
        'quote "Overview"',
        "selector main > h1",
    ]
    assert context["comment"]["id"] == cid
    assert "mock" not in context


async def test_half_an_emoji_written_by_javascript_does_not_kill_the_server(repo: Path) -> None:
    ledger = repo / ".maple" / "feat-x" / "comments.json"
    ledger.parent.mkdir(parents=True)
    record = '{"id": "loc_1", "branch": "feat/x", "body": "half \\ud83d", "status": "open"}'
    ledger.write_text('{"version": 1, "comments": [' + record + "]}")
    async with stdio_server(repo) as client:
        [comment] = structured(await client.call_tool("list_comments", {"branch": BRANCH}))
        assert comment["body"] == "half \ufffd"
        waited = structured(await client.call_tool("wait_for_comments", {"branch": BRANCH}))
        assert waited["comments"][0]["body"] == "half \ufffd"


@pytest.mark.parametrize(("unattended", "offered"), [(None, True), ("1", False)])
async def test_a_turn_nobody_watches_is_offered_no_external_agents(
    repo: Path, unattended: str | None, offered: bool
) -> None:
    """``MAPLE_UNATTENDED`` (what ``maple watch`` sets for the agent it wakes) outranks
    ``MAPLE_AGENTS``: such a turn cannot have an agent started (issue 22, point 1)."""
    env = {"MAPLE_AGENTS": "codex,claude"}
    if unattended is not None:
        env["MAPLE_UNATTENDED"] = unattended
    async with stdio_server(repo, **env) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert "list_comments" in names
    assert ({"agent_start", "agent_send"} <= names) is offered
    assert not names & {"agent_start", "agent_send", "agent_status"} or offered
