"""``maple comments wait|show|resolve``, ``maple gate decide``, ``maple doctor``, ``--help``,
``maple demo``: CliRunner for the logic, and the installed ``maple`` as a process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from contract_tests.support import git, make_repo
from maple_entrypoints.cli import app
from tests.mcp_support import OutputLines, interrupt, stdio_server, structured
from tests.support import maple, start_maple

BRANCH = "feat/cli"
runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    made = make_repo(tmp_path / "repo", BRANCH)
    for name in list(os.environ):
        if name.startswith(("MAPLE_", "GITHUB_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))  # doctor reads Codex's config
    monkeypatch.chdir(made)
    return made


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args), catch_exceptions=False)


def add(body: str) -> str:
    result = invoke("comments", "add", "--body", body, "--selector", "main > h1")
    assert result.exit_code == 0, result.output
    return str(result.stdout.strip())


class TestComments:
    def test_wait_drains_then_times_out_with_the_same_cursor(self, repo: Path) -> None:
        add("one")
        first = json.loads(invoke("comments", "wait", "--json").stdout)
        assert (first["status"], [c["body"] for c in first["comments"]]) == ("comments", ["one"])
        again = invoke("comments", "wait", "--cursor", first["cursor"], "--timeout-ms", "50")
        assert again.exit_code == 0
        assert "no new comments" in again.stderr
        timed = json.loads(
            invoke(
                "comments", "wait", "--cursor", first["cursor"], "--timeout-ms", "50", "--json"
            ).stdout
        )
        assert timed == {"status": "timeout", "cursor": first["cursor"], "comments": []}

    def test_a_cursor_that_is_not_a_timestamp_is_one_line(self, repo: Path) -> None:
        result = invoke("comments", "wait", "--cursor", "yesterday")
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1
        assert "yesterday" in result.stderr

    def test_follow_prints_each_batch_until_interrupted(self, repo: Path) -> None:
        process = start_maple(repo, "comments", "wait", "--follow", "--json", "--timeout-ms", "200")
        assert process.stdout is not None
        lines = OutputLines(process.stdout)

        def next_batch() -> list[str]:
            line = json.loads(lines.next())
            while line["status"] == "timeout":
                line = json.loads(lines.next())
            return [c["body"] for c in line["comments"]]

        try:
            # Its first timeout says it follows (and has drained what was there: nothing).
            assert json.loads(lines.next())["status"] == "timeout"
            add("first")
            assert next_batch() == ["first"]
            add("second")
            assert next_batch() == ["second"]
        finally:
            err = interrupt(process, lines)
        assert process.returncode == 0, err

    def test_show_and_resolve(self, repo: Path) -> None:
        comment_id = add("The header wraps.")
        shown = json.loads(invoke("comments", "show", comment_id, "--json").stdout)
        assert shown["comment"]["id"] == comment_id
        assert shown["anchors"] == ["selector main > h1"]
        text = invoke("comments", "show", comment_id).stdout
        assert "The header wraps." in text
        assert "main > h1" in text
        resolved = invoke("comments", "resolve", comment_id, "--note", "Done.", "--json")
        assert resolved.exit_code == 0, resolved.output
        data = json.loads(resolved.stdout)
        assert data["status"] == "resolved"
        assert data["resolution"]["sha"] == git(repo, "rev-parse", "HEAD")
        assert data["resolution"]["note"] == "Done."
        missing = invoke("comments", "resolve", "loc_nope")
        assert missing.exit_code == 1
        assert "loc_nope" in missing.stderr

    @pytest.mark.anyio
    async def test_json_is_exactly_what_the_mcp_tools_return(self, repo: Path) -> None:
        comment_id = add("Tighten the spacing.")
        listed = json.loads(maple(repo, "comments", "list", "--json").stdout)
        shown = json.loads(maple(repo, "comments", "show", comment_id, "--json").stdout)
        waited = json.loads(maple(repo, "comments", "wait", "--json").stdout)
        async with stdio_server(repo) as client:
            assert listed == structured(await client.call_tool("list_comments", {"branch": BRANCH}))
            context = structured(
                await client.call_tool("get_comment_context", {"id": comment_id, "branch": BRANCH})
            )
            # the agent's look claims the comment for its session; a person's look claims nothing
            assert context["comment"].pop("claim")["session"].startswith("ms-")
            assert shown == context
            drained = structured(await client.call_tool("wait_for_comments", {"branch": BRANCH}))
            for each in drained["comments"]:
                each.pop("claim", None)  # its own claim, from the look above
            assert waited == drained


class TestConversation:
    """Issue 18 from the command line: reply, ask, reopen, confirm, and checked resolutions."""

    def test_a_question_an_answer_a_refused_sha_and_a_confirmation(
        self, repo: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        git(repo, "config", "user.name", "Rev Iewer")
        comment_id = add("Make it pop.")
        asked = invoke("comments", "reply", comment_id, "Bigger or brighter?", "--question")
        assert (asked.exit_code, asked.stdout.strip()) == (0, f"{comment_id} asked")
        listed = json.loads(invoke("comments", "list", "--json").stdout)
        assert listed[0]["waitingForReviewer"] is True
        text = invoke("comments", "show", comment_id).stdout
        assert "waiting for the reviewer to answer the agent's question" in text
        assert "Coding agent asked: Bigger or brighter?" in text
        answered = json.loads(
            invoke(
                "comments", "reply", comment_id, "Brighter.", "--as", "reviewer", "--json"
            ).stdout
        )
        assert [r["role"] for r in answered["replies"]] == ["agent", "reviewer"]  # stored order
        assert answered["replies"][1]["author"]["name"] == "Rev Iewer"  # the git identity
        shown = invoke("comments", "show", comment_id).stdout  # the answer below its question
        assert shown.index("Bigger or brighter?") < shown.index("Rev Iewer said: Brighter.")
        refused = invoke("comments", "resolve", comment_id, "--sha", "acknowledged")
        assert refused.exit_code == 1
        assert "names no commit in this checkout" in refused.stderr
        assert invoke("comments", "resolve", comment_id).exit_code == 0
        monkeypatch.setenv("MAPLE_REQUIRE_CONFIRMATION", "true")
        waiting = invoke("gate", "decide", "--json")
        assert waiting.exit_code == 3
        assert json.loads(waiting.stdout)["verdict"]["reason"] == "awaiting-confirmation"
        assert invoke("comments", "confirm", comment_id).exit_code == 0
        cleared = invoke("gate", "decide", "--json")
        assert cleared.exit_code == 0
        assert "`Rev Iewer` confirmed 1" in json.loads(cleared.stdout)["verdict"]["summary"]
        reopened = invoke("comments", "reopen", comment_id, "Not on a phone.")
        assert reopened.exit_code == 0
        assert invoke("gate", "decide").exit_code == 3

    def test_only_the_agent_asks_and_only_a_resolved_comment_reopens(self, repo: Path) -> None:
        comment_id = add("Make it pop.")
        asked = runner.invoke(
            app, ["comments", "reply", comment_id, "Why?", "--question", "--as", "reviewer"]
        )
        assert asked.exit_code == 1
        assert "Only the agent's reply can be a question." in asked.stderr
        early = runner.invoke(app, ["comments", "reopen", comment_id, "Because."])
        assert early.exit_code == 1
        assert "only a resolved comment can be reopened" in early.stderr


class TestGateDecide:
    def test_blocked_is_exit_3_and_clear_is_0(self, repo: Path) -> None:
        empty = invoke("gate", "decide", "--json")
        assert empty.exit_code == 0
        assert json.loads(empty.stdout)["verdict"]["reason"] == "no-comments"
        comment_id = add("Still wrong.")
        blocked = invoke("gate", "decide", "--json")
        assert blocked.exit_code == 3
        verdict = json.loads(blocked.stdout)["verdict"]
        assert (verdict["conclusion"], verdict["reason"], verdict["open"]) == (
            "blocked",
            "comments-open",
            1,
        )
        text = invoke("gate", "decide")
        assert text.exit_code == 3
        assert "1 of 1 comment still open" in text.stdout
        invoke("comments", "resolve", comment_id)
        cleared = invoke("gate", "decide")
        assert cleared.exit_code == 0
        assert cleared.stdout.startswith("clear: Every comment is resolved (all-resolved)")


class TestDoctor:
    def test_a_healthy_file_setup_exits_0(self, repo: Path) -> None:
        add("one")
        result = invoke("doctor")
        assert result.exit_code == 0, result.output
        assert "ok   configuration: store file" in result.stdout
        assert f"ok   store: file: 1 comment(s) on {BRANCH}" in result.stdout
        assert "claude-code registration: not registered" in result.stdout
        assert "fix: maple install claude-code" in result.stdout

    def test_a_broken_configuration_is_a_failure_with_its_fix(
        self, repo: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("MAPLE_STORE", "sqlite")
        result = invoke("doctor", "--json")
        assert result.exit_code == 1
        [config] = [f for f in json.loads(result.stdout) if f["check"] == "configuration"]
        assert config["ok"] is False
        assert "Unknown MAPLE_STORE sqlite" in config["detail"]

    def test_a_corrupt_ledger_fails_the_store_check(self, repo: Path) -> None:
        ledger = repo / ".maple" / "feat-cli" / "comments.json"
        ledger.parent.mkdir(parents=True)
        ledger.write_text("{oops")
        result = invoke("doctor")
        assert result.exit_code == 1
        assert "FAIL store:" in result.stdout
        assert "not a Maple comments file" in result.stdout
        assert ledger.read_text() == "{oops"

    def test_registrations_are_seen(self, repo: Path) -> None:
        assert invoke("install", "claude-code").exit_code == 0
        result = invoke("doctor")
        assert "ok   claude-code registration: server and Stop hook" in result.stdout

    def test_each_registered_client_says_whether_it_wakes(
        self, repo: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("HOME", str(repo.parent / "home"))
        monkeypatch.delenv("CLAUDE_CODE_DISABLE_MCP_TASKS", raising=False)
        assert "wake:" not in invoke("doctor").stdout  # nothing registered, nothing to say
        assert invoke("install", "claude-code").exit_code == 0
        assert invoke("install", "codex", "--write").exit_code == 0
        result = invoke("doctor")
        assert "ok   claude-code wake: interactive sessions wake through MCP tasks" in result.stdout
        assert "--   codex wake: Codex does not wake by itself" in result.stdout
        assert "fix: run `maple watch --agent codex`" in result.stdout
        assert "cursor wake" not in result.stdout

    def test_claude_code_with_tasks_turned_off_cannot_wake(
        self, repo: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("HOME", str(repo.parent / "home"))
        assert invoke("install", "claude-code").exit_code == 0
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_MCP_TASKS", "1")
        result = invoke("doctor")
        assert result.exit_code == 0, result.output  # worth knowing, not broken
        assert (
            "--   claude-code wake: interactive sessions cannot wake when a reviewer comments: "
            "CLAUDE_CODE_DISABLE_MCP_TASKS is set in the environment"
        ) in result.stdout
        assert "or run `maple watch --agent claude`" in result.stdout


COMMANDS = [
    ["comments", "list"],
    ["comments", "wait"],
    ["comments", "show"],
    ["comments", "add"],
    ["comments", "resolve"],
    ["gate", "decide"],
    ["gate", "publish"],
    ["route", "serve"],
    ["hook", "stop"],
    ["mcp"],
    ["solo"],
    ["doctor"],
    ["install"],
    ["demo"],
    ["review"],
    ["agents", "providers"],
    ["agents", "start"],
    ["agents", "send"],
    ["agents", "status"],
    ["agents", "cancel"],
    ["watch"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help_with_an_example(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Example" in result.stdout


def test_an_error_is_one_line_without_a_traceback(repo: Path) -> None:
    done = maple(repo, "comments", "list", MAPLE_STORE="github", GITHUB_TOKEN="ghp_secret_12345")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert "ghp_secret_12345" not in done.stderr + done.stdout


def test_the_demo_runs_the_whole_loop(tmp_path: Path) -> None:
    done = maple(tmp_path, "demo")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    steps = [
        "start_solo",
        "is refused: 403",
        "wait_for_comments",
        "blocked (comments-open): 2 of 2 comments still open",
        "the Stop hook holds it",
        "resolved at",
        "clear (all-resolved): Every comment is resolved",
        "the Stop hook lets it",
        "Done in",
    ]
    positions = [out.index(step) for step in steps]
    assert positions == sorted(positions)
    seconds = float(out.rsplit("Done in ", 1)[1].split(" s", 1)[0])
    assert seconds < 20


def test_a_port_out_of_range_is_a_usage_error(repo: Path) -> None:
    done = maple(repo, "solo", "https://x.example/", "--port", "70000")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_half_an_emoji_from_a_browser_prints_without_a_traceback(repo: Path) -> None:
    ledger = repo / ".maple" / "feat-cli" / "comments.json"
    ledger.parent.mkdir(parents=True)
    ledger.write_text(
        '{"version": 1, "comments": [{"id": "loc_1", "branch": "feat/cli", '
        '"body": "half \\ud83d here", "status": "open", "anchor": {}, '
        '"createdAt": "2026-01-01T12:00:00.000Z"}]}\n'
    )
    done = maple(repo, "comments", "list")
    assert done.returncode == 0, done.stderr
    assert "half \ufffd here" in done.stdout  # a terminal shows the replacement character
    for args in (
        ["comments", "list", "--json"],
        ["comments", "wait", "--json", "--timeout-ms", "100"],
    ):
        done = maple(repo, *args)
        assert done.returncode == 0, done.stderr
        # JSON says it exactly, escaped, as JavaScript's JSON.stringify does (issue 22, point 6)
        assert '"half \\ud83d here"' in done.stdout
        found = json.loads(done.stdout)
        listed = found if isinstance(found, list) else found["comments"]
        assert listed[0]["body"] == "half \ud83d here"


def test_doctor_contacts_a_route_even_without_a_branch(tmp_path: Path) -> None:
    from tests.loopback import free_port

    url = f"http://127.0.0.1:{free_port()}/api/maple"
    done = maple(tmp_path, "doctor", MAPLE_STORE="route", MAPLE_URL=url)
    assert done.returncode == 1
    assert "FAIL store:" in done.stdout
    assert "could not be reached" in done.stdout
