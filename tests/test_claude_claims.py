"""Issue 28 end to end: two real sessions on one branch never fix the same comment twice.

Two ``maple-mcp`` processes over stdio share a repository's ``.maple/``: one driven by the
official MCP client from this test (the other agent, "X"), one started by the real Claude Code
(``claude -p``, set up by ``maple install claude-code``) whose model is the scripted loopback
model of ``tests/agents/model_server.py`` (see ``tests/test_claude_conversation.py``). Every
model step reads what the tools answered, so a tool that answers wrongly sends it astray.

1. X looks at comment A (``get_comment_context``): the look claims it.
2. Claude Code lists the comments: B first, A marked ``claimedBy`` X and last. It looks at B
   (claiming it).
3. Meanwhile X resolves A; X's Stop hook then lets X stop, naming B as the other session's;
   a reviewer adds C, and X claims it.
4. Claude Code commits and resolves B, is refused C (claimed by X, named), and stops: its Stop
   hook lets it, naming C as X's.
5. X resolves C. Every comment is resolved once, by the session that claimed it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from contract_tests.support import git
from maple_core.comments import NewComment
from maple_core.conversation import ReplyKind, thread_of
from maple_core.listing import list_all
from maple_core.statuses import CommentStatus
from tests.agents.model_server import exchanges
from tests.mcp_support import MAPLE_MCP, clean_env, structured
from tests.test_claude_conversation import (
    BRANCH,
    Project,
    assert_let_stop,
    calls_of,
    payload,
    project,
    stop_hook_runs,
)

__all__ = ["project"]  # the fixture this module shares

HOOK = Path(sys.executable).with_name("maple-stop-hook")
LIST = "mcp__maple__list_comments"
CONTEXT = "mcp__maple__get_comment_context"
RESOLVE = "mcp__maple__resolve_comment"
X_CONVERSATION = "conversation-x"


class OtherAgent:
    """Agent X: a ``maple-mcp`` over stdio, driven through the official client on a portal, so
    the scripted model's steps (run in the model server's thread) can make X act mid-turn."""

    def __init__(self, portal: BlockingPortal, project: Project, client: Client) -> None:
        self.portal = portal
        self.project = project
        self.client = client

    def call(self, tool: str, **arguments: Any) -> Any:
        return structured(self.portal.call(self.client.call_tool, tool, arguments))

    def stop_hook(self) -> dict[str, Any]:
        """X's Stop hook, as its client would run it for X's conversation."""
        stop = {
            "session_id": X_CONVERSATION,
            "cwd": str(self.project.repo),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
        }
        done = subprocess.run(
            [str(HOOK)],
            input=json.dumps(stop),
            cwd=self.project.repo,
            env=clean_env(TMPDIR=self.project.env["TMPDIR"]),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        answer: dict[str, Any] = json.loads(done.stdout)
        return answer


@pytest.fixture
def other_agent(project: Project) -> Iterator[OtherAgent]:
    """X's ``maple-mcp``, closed (its stdin, so it ends cleanly) when the test ends."""
    params = StdioServerParameters(
        command=str(MAPLE_MCP),
        cwd=project.repo,
        env=clean_env(TMPDIR=project.env["TMPDIR"], CLAUDE_CODE_SESSION_ID=X_CONVERSATION),
    )
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(params)) as client,
    ):
        yield OtherAgent(portal, project, client)


def project_head(project: Project) -> str:
    return git(project.repo, "rev-parse", "HEAD")


def commit_sha(done: list[dict[str, Any]]) -> str:
    committed = calls_of(done, "Bash")[-1]["result"] or ""
    shas = re.findall(r"\b[0-9a-f]{40}\b", committed)
    assert shas, committed
    return shas[-1]


def test_two_sessions_resolve_different_comments_none_twice_and_both_may_stop(
    project: Project, other_agent: OtherAgent
) -> None:
    store = project.store()
    a = store.append(NewComment(branch=BRANCH, body="A: tighten the header.")).id
    b = store.append(NewComment(branch=BRANCH, body="B: make the button pop.")).id
    x = other_agent
    looked = x.call("get_comment_context", id=a, branch=BRANCH)
    assert looked["comment"]["claim"]["session"].startswith("ms-")
    x_session = looked["comment"]["claim"]["session"]
    seen: dict[str, Any] = {}

    def look_at_the_first_unclaimed(done: list[dict[str, Any]]) -> dict[str, Any]:
        listed = payload(calls_of(done, LIST)[-1]["result"])
        comments = listed["result"] if isinstance(listed, dict) else listed
        free = [c for c in comments if "claimedBy" not in c]
        seen["listed"] = comments
        return {"use": CONTEXT, "input": {"id": free[0]["id"], "branch": BRANCH}}

    def meanwhile_x_finishes_a_and_claims_c(done: list[dict[str, Any]]) -> dict[str, Any]:
        if "x_hook" not in seen:  # once, however often the client asks for this step
            x.call("resolve_comment", id=a, sha=project_head(project), note="A done.")
            seen["x_hook"] = x.stop_hook()
            c = project.store().append(NewComment(branch=BRANCH, body="C: fix the footer.")).id
            seen["c"] = c
            seen["x_claim"] = x.call("claim_comment", id=c)
        return {"write": "button.css", "text": "button { color: #d0021b; }\n"}

    def resolve_what_it_looked_at(done: list[dict[str, Any]]) -> dict[str, Any]:
        mine = calls_of(done, CONTEXT)[-1]["input"]["id"]
        return {"use": RESOLVE, "input": {"id": mine, "sha": commit_sha(done), "note": "B done."}}

    def try_the_other_sessions_comment(done: list[dict[str, Any]]) -> dict[str, Any]:
        return {"use": RESOLVE, "input": {"id": seen["c"], "sha": commit_sha(done)}}

    project.model.scenario = [
        [
            {"use": LIST, "input": {"branch": BRANCH}},
            look_at_the_first_unclaimed,
            meanwhile_x_finishes_a_and_claims_c,
            {"run": "git add button.css && git commit -q -m 'Make B pop' && git rev-parse HEAD"},
            resolve_what_it_looked_at,
            try_the_other_sessions_comment,
            {"say": "I resolved B; C is another agent's."},
        ]
    ]
    session_id = str(uuid.uuid4())
    project.turn("Address the review comments.", "--session-id", session_id)

    # 2. Claude Code saw B first and A as X's, and looked at B.
    assert [c["id"] for c in seen["listed"]] == [b, a]
    assert seen["listed"][1]["claimedBy"]["session"] == x_session
    calls = exchanges(project.model.requests[-1]["messages"])
    looked_at = calls_of(calls, CONTEXT)
    assert [c["input"]["id"] for c in looked_at] == [b]
    assert not looked_at[0]["is_error"]
    # 3. X's hook let X stop while only Claude Code's claim (B) was open, and named it.
    assert "decision" not in seen["x_hook"], seen["x_hook"]
    assert f"[{b}] claimed by claude-code" in seen["x_hook"]["reason"]
    assert seen["x_claim"]["outcome"] == "claimed"
    # 4. Claude Code resolved B, was refused C, and its hook let it stop, naming C as X's.
    resolved, refused = calls_of(calls, RESOLVE)
    assert (resolved["input"]["id"], resolved["is_error"]) == (b, False)
    assert (refused["input"]["id"], refused["is_error"]) == (seen["c"], True)
    assert f"Comment {seen['c']} is claimed by" in (refused["result"] or "")
    assert f"session {x_session}" in (refused["result"] or "")
    runs = stop_hook_runs(project.transcript(session_id))
    assert_let_stop(runs, "claimed by other agent sessions")
    assert f"[{seen['c']}] claimed by" in json.loads(runs[0]["stdout"])["reason"]
    # 5. X resolves C: every comment resolved once, by the session that claimed it.
    x.call("resolve_comment", id=seen["c"], sha=project_head(project), note="C done.")
    final = {c.id: c for c in list_all(project.store(), BRANCH)}
    assert all(c.status is CommentStatus.RESOLVED for c in final.values())
    for comment in final.values():  # a second resolve would be recorded in the thread
        assert not [r for r in thread_of(comment) if r.kind is ReplyKind.RESOLVE]
    by = {cid: c.resolution.extra["by"] for cid, c in final.items() if c.resolution}
    assert by[a]["session"] == by[seen["c"]]["session"] == x_session
    assert by[b]["agent"] == "claude-code"
    assert by[b]["session"] != x_session
