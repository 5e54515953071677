"""A pull request's line comment wakes the real Claude Code, which fixes, pushes and resolves it.

The agent (a scripted model, ``tests/claude_interactive.py``) starts ``wait_for_comments`` on
``maple-mcp`` with the github store over the fake GitHub, and ends its turn. A stranger's line
comment asking for the fix never reaches the model; a collaborator's does, as a background
task's notification: the agent runs a Bash command that commits and pushes (to a bare repository
whose ref a watcher hands to the fake GitHub as the pull request's head), then resolves the
thread with the commit it printed, and the thread on the fake GitHub is resolved with a reply
naming that commit.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from contract_tests.github_peers import TOKEN
from contract_tests.support import git, make_repo
from tests.claude_interactive import MARK, InteractiveClaude, WakeModel, needed_peers
from tests.github.fake_github import FakeGitHub, serve
from tests.github.test_end_to_end import env_for
from tests.loopback import serve_asgi
from tests.mcp_support import MAPLE_MCP
from tests.test_mcp_tasks_claude import TURN_S, WAKE_S, start_waiting, wait_for

BRANCH = "feat/wake"
FIX = (
    "git commit -q --allow-empty -m 'Rename foo to bar' && git push -q origin HEAD && sleep 1"
    " && git rev-parse HEAD"
)
"""The agent's fix: a commit, pushed (the watcher needs a moment to hand it on), its sha last."""


def _pushes(bare: Path, fake: FakeGitHub, stop: threading.Event) -> None:
    """What reaches the bare repository reaches the fake GitHub: the pull request's new head."""
    seen = git(bare, "rev-parse", BRANCH)
    while not stop.wait(0.2):
        now = git(bare, "rev-parse", BRANCH)
        if now != seen:
            fake.push(1, now)
            seen = now


def test_a_collaborators_line_comment_wakes_claude_which_fixes_pushes_and_resolves(
    tmp_path: Path,
) -> None:
    tmux, claude = needed_peers()
    (tmp_path / "github").mkdir()
    served = serve(FakeGitHub(tokens={TOKEN: 1}), tmp_path / "github")
    fake = served.fake
    repo = make_repo(tmp_path / "repo", BRANCH)
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "config", "user.name", "Agent")  # Claude Code's shell has a HOME of its own
    git(repo, "config", "user.email", "agent@example.invalid")
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "origin", BRANCH)
    head = git(repo, "rev-parse", "HEAD")
    fake.open_pull(BRANCH, head_sha=head)
    fake.repo().associations["rev"] = "COLLABORATOR"
    stop = threading.Event()
    watcher = threading.Thread(target=_pushes, args=(bare, fake, stop), daemon=True)
    watcher.start()

    model = WakeModel(BRANCH, "f" * 40, fix=FIX)  # the sha it resolves with is the one it pushed
    model_server = serve_asgi(model.app)
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    server_env = {**env_for(served, "api", tmp_path), "PATH": path, "HOME": str(tmp_path / "h")}
    agent = InteractiveClaude(
        tmux,
        claude,
        repo,
        tmp_path / "home",
        model_server.url,
        [str(MAPLE_MCP)],
        server_env,
        path,
        allowed=("Bash",),
    )
    try:
        start_waiting(agent, model, BRANCH)
        time.sleep(3.0)  # idle: nothing is typed from here on
        stranger = fake.add_review_comment(1, "drive-by", f"{MARK}: please rename foo to bar")
        time.sleep(8.0)  # several polls: the stranger's words must not reach the model
        at_stranger = time.monotonic() - 8.0
        assert not model.requests_after(at_stranger, lambda s: MARK in s.text)

        root = fake.add_review_comment(1, "rev", f"{MARK}: please rename foo to bar", line=12)
        at_post = time.monotonic()
        wait_for(
            lambda: model.requests_after(at_post, lambda s: MARK in s.text),
            WAKE_S,
            "Claude Code did not start a turn with the collaborator's comment",
            agent,
        )

        def replies() -> list[dict[str, object]]:
            return [c for c in fake.review_comments(1) if c.get("in_reply_to_id") == root["id"]]

        wait_for(  # maple resolves the thread first, then replies in it: wait for both
            lambda: fake.thread(root["id"]).resolved and replies(),
            TURN_S,
            "the thread was not resolved on GitHub with a reply",
            agent,
        )
        [woke] = model.requests_after(at_post, lambda s: MARK in s.text)[:1]
        assert "<task-notification>" in woke.text
        assert f"ghrt_1_{stranger['id']}" not in "".join(s.text for s in model.seen)
        pushed = git(bare, "rev-parse", BRANCH)
        assert pushed != head
        [reply] = replies()
        assert str(reply["body"]).startswith(f"Addressed in `{pushed}`")
        assert fake.thread(stranger["id"]).resolved is False
    finally:
        for seen in model.seen:  # shown when the test fails
            print(f"model request at {seen.at:.2f}: {seen.reply} <- {seen.text[-600:]!r}")
        stop.set()
        agent.stop()
        model_server.stop()
        served.stop()
