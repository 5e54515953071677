"""The wake, end to end: the real interactive Claude Code, ``maple-mcp``, the route, and a reviewer.

The agent (a scripted model, ``tests/claude_interactive.py``) starts ``wait_for_comments`` and
ends its turn. A reviewer's comment is then POSTed to the route (served on loopback over the
checkout's file store); nobody types anything, yet Claude Code starts a new turn with the
comment (seen at the model), the agent resolves it with the checkout's HEAD, and the gate clears.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from contract_tests.support import git, make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.branch_gate import decide_branch_gate
from maple_core.gate import GateConclusion
from maple_core.listing import list_all
from maple_core.statuses import CommentStatus
from maple_entrypoints.route.app import DEFAULT_BASE_PATH, RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.claude_interactive import (
    MARK,
    RESOLVE_TOOL,
    InteractiveClaude,
    WakeModel,
    needed_peers,
)
from tests.loopback import serve_asgi
from tests.support import MAPLE_MCP

BRANCH = "feat/wake"
TURN_S = 90.0
"""Generous for a loaded machine: Claude Code's start and a turn take seconds."""
WAKE_S = 20.0
"""The wake itself: Claude Code polls every 2 s, then starts a turn (the bench holds 3 s)."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Path, WakeModel, str, InteractiveClaude]]:
    tmux, claude = needed_peers()
    repo = make_repo(tmp_path / "repo", BRANCH)
    head = git(repo, "rev-parse", "HEAD")
    model = WakeModel(BRANCH, head)
    model_server = serve_asgi(model.app)
    route = serve_asgi(served_app(RouteOptions(store=FileCommentStore(SystemClock(), repo))))
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    server_env = {"PATH": path, "HOME": str(tmp_path / "home")}  # and no MAPLE_ or GITHUB_
    agent = InteractiveClaude(
        tmux, claude, repo, tmp_path / "home", model_server.url, [str(MAPLE_MCP)], server_env, path
    )
    try:
        yield repo, model, route.url + DEFAULT_BASE_PATH, agent
    finally:
        for seen in model.seen:  # shown when a test fails
            print(f"model request at {seen.at:.2f}: {seen.reply} <- {seen.text[-600:]!r}")
        agent.stop()
        route.stop()
        model_server.stop()


def wait_for(
    check: Callable[[], object], limit_s: float, what: str, agent: InteractiveClaude
) -> float:
    """Wait until ``check`` holds (the moment it did), or fail showing Claude Code's screen."""
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {limit_s:.0f} s; the screen:\n{agent.screen()}")
        time.sleep(0.1)
    return time.monotonic()


def start_waiting(agent: InteractiveClaude, model: WakeModel, branch: str) -> float:
    """Ask the agent to wait for comments on ``branch``, and wait until it started the wait, got
    a task back and ended its turn; the moment it was asked."""
    began = time.monotonic()
    agent.start(f"Wait for review comments on {branch} with wait_for_comments.")
    wait_for(
        lambda: model.requests_after(began, lambda s: "background" in s.reply.get("text", "")),
        TURN_S,
        "the agent did not end its turn after starting the wait",
        agent,
    )
    return began


def test_a_reviewer_comment_wakes_the_idle_agent_which_resolves_it_and_the_gate_clears(
    world: tuple[Path, WakeModel, str, InteractiveClaude],
) -> None:
    repo, model, route, agent = world
    began = start_waiting(agent, model, BRANCH)
    [started] = model.requests_after(began, lambda s: "background" in s.reply.get("text", ""))
    time.sleep(3.0)  # idle: nothing is typed from here on
    idle = time.monotonic()
    assert not model.requests_after(idle, lambda s: MARK in s.text)

    posted = httpx.post(
        route + "/comments",
        json={
            "branch": BRANCH,
            "body": f"{MARK}: please rename foo to bar",
            "anchor": {"selector": "main"},
        },
        timeout=10,
    )
    assert posted.status_code in (200, 201), posted.text
    comment = posted.json()["id"]
    at_post = time.monotonic()

    woke = wait_for(
        lambda: model.requests_after(at_post, lambda s: MARK in s.text),
        WAKE_S,
        "Claude Code did not start a turn with the comment",
        agent,
    )
    [wake] = model.requests_after(at_post, lambda s: MARK in s.text)[:1]
    assert wake.reply == {
        "tool": RESOLVE_TOOL,
        "input": {"id": comment, "sha": model.sha, "note": "Renamed as asked."},
    }, wake.text[:2000]
    assert woke - at_post < WAKE_S

    wait_for(
        lambda: model.requests_after(at_post, lambda s: s.reply.get("text", "").startswith("Res")),
        TURN_S,
        "the agent did not finish resolving",
        agent,
    )
    store = FileCommentStore(SystemClock(), repo)
    [resolved] = [c for c in list_all(store, BRANCH) if c.id == comment]
    assert resolved.status == CommentStatus.RESOLVED
    verdict = decide_branch_gate(store, BRANCH, model.sha)
    assert verdict.conclusion == GateConclusion.CLEAR, verdict
    assert (verdict.open, verdict.total) == (0, 1)
    # the wait came back to the model as a background task, and the comment as its notification
    assert MARK not in started.text
    assert "moved to the background" in started.text
    assert "<task-notification>" in wake.text


def test_stopping_the_background_wait_cancels_the_task_and_a_later_comment_wakes_nobody(
    world: tuple[Path, WakeModel, str, InteractiveClaude],
) -> None:
    _repo, model, route, agent = world
    model.stop = True
    began = time.monotonic()
    agent.start(f"Wait for review comments on {BRANCH} with wait_for_comments, then stop it.")
    wait_for(
        lambda: model.requests_after(began, lambda s: s.reply.get("text") == "Stopped the wait."),
        TURN_S,
        "the agent did not stop the wait",
        agent,
    )
    [stop] = model.requests_after(began, lambda s: s.reply.get("tool") == "TaskStop")
    assert stop.reply["input"]["task_id"] in stop.text  # the id Claude Code named in the result
    wait_for(
        lambda: ": cancel sent" in (agent.home / "debug.log").read_text(errors="replace"),
        10.0,
        "Claude Code sent no tasks/cancel",
        agent,
    )
    posted = httpx.post(
        route + "/comments",
        json={"branch": BRANCH, "body": f"{MARK}: too late", "anchor": {"selector": "main"}},
        timeout=10,
    )
    assert posted.status_code in (200, 201), posted.text
    at_post = time.monotonic()
    time.sleep(8.0)  # four of Claude Code's polls: a live task would have woken the agent
    assert not model.requests_after(at_post, lambda s: MARK in s.text), agent.screen()
    [stopped] = model.requests_after(began, lambda s: s.reply.get("text") == "Stopped the wait.")
    assert "is stopped" in stopped.text
