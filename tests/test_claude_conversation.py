"""Issue 18 end to end with the real Claude Code: ask the reviewer, stop, get the answer, resolve.

The real ``claude`` (bundled in the ``claude-agent-sdk`` dev dependency) runs headless
(``claude -p``) in a scratch git repository set up by ``maple install claude-code``: ``maple-mcp``
over stdio from ``.mcp.json`` and ``maple-stop-hook`` from ``.claude/settings.json``, on the file
store (``.maple/``, no ``MAPLE_*`` variable). Its model is the scripted loopback model of
``tests/agents/model_server.py``, offline. Every step after the first reads what the previous
tools actually answered (the comment's id, the cursor, the reviewer's answer, the commit's sha),
so a tool that answers wrongly makes the script go astray and the assertions fail.

1. The model drains ``wait_for_comments``, asks the reviewer a question with
   ``reply_to_comment`` and ends its turn: the Stop hook lets it stop, because the only open
   comment waits for the reviewer.
2. The reviewer answers (see :func:`reviewer_answers`).
3. The session is resumed: the model waits from its first cursor and gets the comment back with
   the answer marked new, writes a file and commits it through Claude Code's Bash tool, is
   refused a resolve with an invented sha, resolves with the real one, and may stop.
"""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from contract_tests.agent_peers import _bundled
from contract_tests.support import GIT_ENV, git, make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.conversation import ReplyKind, Role, thread_of
from maple_core.listing import list_all
from maple_core.statuses import CommentStatus
from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.agents.model_server import ScriptedModel, exchanges
from tests.loopback import serve_asgi
from tests.mcp_support import text_json
from tests.support import clean_env, maple

BRANCH = "feat/button"
COMMENT = "Make the button pop."
QUESTION = "Bigger or a brighter colour?"
ANSWER = "Brighter: use the brand red."
INVENTED = "acknowledged"
TURN_S = 90.0
"""One headless turn's ceiling (a turn takes a few seconds; a busy machine is slow, not wrong)."""

WAIT = "mcp__maple__wait_for_comments"
REPLY = "mcp__maple__reply_to_comment"
RESOLVE = "mcp__maple__resolve_comment"
ALLOWED = [  # what a user would allow (docs/cli.md): maple's comment tools, writing, committing
    "mcp__maple__list_comments",
    "mcp__maple__wait_for_comments",
    "mcp__maple__get_comment_context",
    "mcp__maple__reply_to_comment",
    "mcp__maple__resolve_comment",
    "Write",
    "Bash(git add:*)",
    "Bash(git commit:*)",
    "Bash(git rev-parse:*)",
]


def reviewer_answers(repo: Path, comment_id: str, body: str) -> None:
    """The reviewer answers the agent's question through the route, as the overlay does.

    The route (uvicorn on loopback) keeps its comments in ``repo``'s ``.maple/`` folder, where
    the agent's ``maple-mcp`` reads them.
    """
    options = RouteOptions(store=FileCommentStore(SystemClock(), repo))
    running = serve_asgi(served_app(options))
    try:
        answer = httpx.post(
            f"{running.url}/api/maple/comments/{comment_id}/thread",
            json={"kind": "reply", "body": body},
            timeout=30,
        )
    finally:
        running.stop()
    assert answer.status_code == 200, answer.text
    [entry] = [r for r in answer.json()["replies"] if r["body"] == body]
    assert entry["role"] == "reviewer"


def payload(result: str | None) -> Any:
    """The JSON a maple tool answered: Claude Code passes the structured content (compact JSON)
    or, failing that, the text (possibly framed as reviewers' data)."""
    assert result is not None, "the tool has not answered"
    try:
        return json.loads(result)
    except ValueError:
        return text_json(result)


def calls_of(done: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [c for c in done if c["name"] == name]


# -- the scripted model's decisions, each made from what its tools answered ----------------------


def ask_about_the_comment(done: list[dict[str, Any]]) -> dict[str, Any]:
    drained = payload(calls_of(done, WAIT)[-1]["result"])
    found = [c for c in drained["comments"] if c["body"] == COMMENT]
    if not found:
        return {"say": "There is no comment to address."}
    return {"use": REPLY, "input": {"id": found[0]["id"], "body": QUESTION, "question": True}}


def wait_from_the_first_cursor(done: list[dict[str, Any]]) -> dict[str, Any]:
    first = payload(calls_of(done, WAIT)[0]["result"])
    return {
        "use": WAIT,
        "input": {"branch": BRANCH, "cursor": first["cursor"], "timeoutMs": 20_000},
    }


def act_on_the_answer(done: list[dict[str, Any]]) -> dict[str, Any]:
    woke = payload(calls_of(done, WAIT)[-1]["result"])
    new = [
        r
        for c in woke["comments"]
        for r in c.get("replies", [])
        if r.get("new") and r["role"] == "reviewer"
    ]
    if not new:
        return {"say": "The reviewer has not answered yet."}
    colour = "#d0021b" if "brighter" in new[0]["body"].lower() else "inherit"
    size = "1em" if colour != "inherit" else "1.5em"
    return {"write": "button.css", "text": f"button {{ color: {colour}; font-size: {size}; }}\n"}


def resolve_with_an_invented_sha(done: list[dict[str, Any]]) -> dict[str, Any]:
    comment_id = calls_of(done, REPLY)[-1]["input"]["id"]
    return {"use": RESOLVE, "input": {"id": comment_id, "sha": INVENTED, "note": "Done."}}


def resolve_with_the_commit(done: list[dict[str, Any]]) -> dict[str, Any]:
    refused = calls_of(done, RESOLVE)[-1]
    committed = calls_of(done, "Bash")[-1]["result"] or ""
    shas = re.findall(r"\b[0-9a-f]{40}\b", committed)
    if not refused["is_error"] or not shas:
        return {"say": "I could not find the commit to resolve with."}
    return {
        "use": RESOLVE,
        "input": {
            "id": refused["input"]["id"],
            "sha": shas[-1],
            "note": "The button is brand red now.",
        },
    }


SCENARIO: list[list[Any]] = [
    [
        {"use": WAIT, "input": {"branch": BRANCH, "timeoutMs": 1_000}},
        ask_about_the_comment,
        {"say": "I asked the reviewer whether they want it bigger or brighter."},
    ],
    [
        wait_from_the_first_cursor,
        act_on_the_answer,
        {
            "run": "git add button.css && git commit -q -m 'Make the button brand red' "
            "&& git rev-parse HEAD"
        },
        resolve_with_an_invented_sha,
        resolve_with_the_commit,
        {"say": "The button is brand red, committed and resolved."},
    ],
]


# -- the project and the real claude ------------------------------------------------------------


@dataclass
class Project:
    repo: Path
    home: Path
    env: dict[str, str]
    model: ScriptedModel
    claude: Path

    def turn(self, prompt: str, *session: str) -> list[dict[str, Any]]:
        """One headless turn; its stream-json events."""
        done = subprocess.run(
            [
                str(self.claude),
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--allowedTools",
                *ALLOWED,
                *session,
            ],
            cwd=self.repo,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TURN_S,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        assert events[-1]["type"] == "result", events[-1]
        assert events[-1]["is_error"] is False, events[-1]
        return events

    def transcript(self, session_id: str) -> list[dict[str, Any]]:
        """Claude Code's own record of the session (it logs each hook run there)."""
        [path] = (self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def store(self) -> FileCommentStore:
        return FileCommentStore(SystemClock(), self.repo)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    claude = _bundled("claude")  # skips when missing; MAPLE_TEST_STRICT=1 makes that a failure
    repo = make_repo(tmp_path / "repo", BRANCH).resolve()
    home, temp = tmp_path / "home", tmp_path / "temp"
    home.mkdir()
    temp.mkdir()
    model = ScriptedModel(repo / ".pids", repo)
    model.scenario = SCENARIO
    running = serve_asgi(model.app)
    env = clean_env(
        HOME=str(home),
        TMPDIR=str(temp),  # the hook's block counters stay private to the test
        ANTHROPIC_BASE_URL=running.url,
        ANTHROPIC_API_KEY="sk-ant-scripted-model",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        ENABLE_TOOL_SEARCH="false",  # list maple's tools directly, as mcp__maple__<tool>
        NO_COLOR="1",
        **GIT_ENV,  # the identity of the commit the agent makes
    )
    installed = maple(repo, "install", "claude-code", env=env)
    assert installed.returncode == 0, installed.stderr
    assert (repo / ".mcp.json").exists()
    assert (repo / ".claude" / "settings.json").exists()
    yield Project(repo, home, env, model, claude)
    running.stop()


def stop_hook_runs(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The maple Stop hook's runs Claude Code recorded: each one's attachment (stdout, exit)."""
    return [
        entry["attachment"]
        for entry in transcript
        if entry.get("type") == "attachment"
        and entry["attachment"].get("hookEvent") == "Stop"
        and "maple-stop-hook" in json.dumps(entry["attachment"])
    ]


def assert_let_stop(runs: list[dict[str, Any]], reason: str | None) -> None:
    """The hook ran once, did not block, and said ``reason`` (or nothing)."""
    assert [r["type"] for r in runs] == ["hook_success"], runs
    [run] = runs
    assert run["exitCode"] == 0, run
    said = json.loads(run["stdout"])
    assert "decision" not in said, said
    if reason is None:
        assert said == {}, said
    else:
        assert reason in said["reason"], said


def test_the_real_claude_asks_stops_gets_the_answer_and_resolves_with_its_commit(
    project: Project,
) -> None:
    store = project.store()
    comment_id = store.append(NewComment(branch=BRANCH, body=COMMENT)).id
    session_id = str(uuid.uuid4())

    # 1. Drain, ask, stop: the hook lets the agent stop, the comment waits for the reviewer.
    project.turn("Address the review comments.", "--session-id", session_id)
    first = exchanges(project.model.requests[-1]["messages"])
    assert [c["name"] for c in first] == [WAIT, REPLY]
    assert not any(c["is_error"] for c in first), first
    drained = payload(first[0]["result"])
    assert [c["id"] for c in drained["comments"]] == [comment_id]
    asked = payload(first[1]["result"])
    assert asked["waitingForReviewer"] is True
    assert not any(
        "Stop hook blocking" in json.dumps(r["messages"]) for r in project.model.requests
    )
    runs = stop_hook_runs(project.transcript(session_id))
    assert_let_stop(runs, "wait for the reviewer to answer your question")
    [waiting] = list_all(store, BRANCH)
    assert waiting.status is CommentStatus.OPEN
    [question] = thread_of(waiting)
    assert (question.role, question.body, question.question) == (Role.AGENT, QUESTION, True)

    # 2. The reviewer answers.
    reviewer_answers(project.repo, comment_id, ANSWER)

    # 3. Resume: the answer wakes the wait, the agent commits, is refused an invented sha,
    # resolves with the real one and may stop.
    seen = len(project.model.requests)
    project.turn("The reviewer may have answered; carry on.", "--resume", session_id)
    second = exchanges(project.model.requests[-1]["messages"])[len(first) :]
    assert [c["name"] for c in second] == [WAIT, "Write", "Bash", RESOLVE, RESOLVE], second
    woke = payload(second[0]["result"])
    assert second[0]["input"]["cursor"] == drained["cursor"]
    assert woke["status"] == "comments"
    [again] = woke["comments"]
    assert again["id"] == comment_id
    asked_again, answer = again["replies"]  # in the order they happened
    assert (answer["role"], answer["body"], answer.get("new")) == ("reviewer", ANSWER, True)
    assert (asked_again["role"], asked_again["body"], "new" in asked_again) == (
        "agent",
        QUESTION,
        False,
    )
    head = git(project.repo, "rev-parse", "HEAD")
    assert git(project.repo, "log", "-1", "--format=%s") == "Make the button brand red"
    assert "#d0021b" in git(project.repo, "show", "HEAD:button.css")
    refused, resolved = second[3], second[4]
    assert refused["input"]["sha"] == INVENTED
    assert refused["is_error"] is True
    assert "names no commit in this checkout" in (refused["result"] or ""), refused
    assert resolved["is_error"] is False, resolved
    assert resolved["input"]["sha"] == head
    later = project.model.requests[seen:]
    assert not any("Stop hook blocking" in json.dumps(r["messages"]) for r in later)
    runs = stop_hook_runs(project.transcript(session_id))
    assert len(runs) == 2, runs
    assert_let_stop(runs[1:], None)

    # The ledger: resolved with the full sha; the thread holds the question and the answer.
    [final] = list_all(store, BRANCH)
    assert final.status is CommentStatus.RESOLVED
    assert final.resolution is not None
    assert final.resolution.sha == head
    words = [(r.role, r.body, r.question) for r in thread_of(final) if r.kind is ReplyKind.REPLY]
    assert words == [(Role.AGENT, QUESTION, True), (Role.REVIEWER, ANSWER, False)]
