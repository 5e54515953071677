"""A reading runs unattended with nothing it can run (issue 26): the real ``claude`` and
``codex``, configured as a user might be (hooks, an MCP server, global instructions), start
none of it when maple has them read a reply, though the same harness run by hand does; and the
harness gets none of maple's secrets, and ``MAPLE_UNATTENDED``."""

from __future__ import annotations

import inspect
import json
import os
import stat
import subprocess
import time
from pathlib import Path

import pytest

from maple_adapters.agents.classifiers import ClaudeClassifier, CodexClassifier
from maple_adapters.agents.claude_provider import ClaudeProvider
from maple_adapters.agents.codex_provider import CodexProvider
from maple_core.feedback import OUTCOME_SCHEMA, read_answer
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from tests.harness_support import HARNESSES, Harness, start_harness

SECRET = "ghp_classifier_secret_do_not_pass_123"
SPY = "SPY-INSTRUCTIONS-7f3a"


def configure_like_a_user(harness: Harness, marks: Path) -> None:
    """Hooks and an MCP server that leave a mark when they run; instructions with a mark."""
    home = Path(harness.env["HOME"])
    spy = ["sh", "-c", f"touch {marks}/mcp; sleep 20"]
    if harness.name == "claude":
        (home / ".claude").mkdir(exist_ok=True)
        hooks = {
            event: [{"hooks": [{"type": "command", "command": f"touch {marks}/{event}"}]}]
            for event in ("SessionStart", "UserPromptSubmit", "Stop")
        }
        (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
        (home / ".claude" / "CLAUDE.md").write_text(SPY)
        config = home / ".claude.json"
        data = json.loads(config.read_text()) if config.exists() else {}
        data["mcpServers"] = {"spy": {"type": "stdio", "command": spy[0], "args": spy[1:]}}
        config.write_text(json.dumps(data))
    else:
        codex_home = Path(harness.env["CODEX_HOME"])
        config = codex_home / "config.toml"
        config.write_text(
            config.read_text()
            + f'\n[mcp_servers.spy]\ncommand = "sh"\nargs = {json.dumps(spy[1:])}\n'
        )


@pytest.fixture(params=HARNESSES)
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    return start_harness(request.param, tmp_path, request)


def marks_after(marks: Path) -> list[str]:
    time.sleep(1.0)  # a server or hook started in the run's last moment has touched its mark
    return sorted(p.name for p in marks.iterdir())


def test_a_reading_starts_none_of_the_users_hooks_servers_or_instructions(
    harness: Harness, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    configure_like_a_user(harness, marks)
    harness.answer(lambda words: {"text": "Hello."})
    by_hand = (
        [harness.name, "-p", "hi"]
        if harness.name == "claude"
        else [harness.name, "exec", "--skip-git-repo-check", "hi"]
    )
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(
        by_hand,
        env={**os.environ, **harness.env},
        cwd=work,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert "mcp" in marks_after(marks)  # the control: run by hand, the user's setup starts
    for mark in marks.iterdir():
        mark.unlink()
    requests = len(harness.model.requests)
    harness.answer(lambda words: {"outcome": "approved", "remarks": []})
    answer = harness.classifier().classify("LGTM now", OUTCOME_SCHEMA)
    assert read_answer(answer.structured) is not None, answer
    assert marks_after(marks) == []
    assert SPY not in json.dumps(harness.model.requests[requests:])


def test_the_harness_gets_no_secret_of_maples_and_knows_nobody_watches(
    harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "env.jsonl"
    real = Path(harness.env["PATH"].split(os.pathsep)[0]) / harness.name
    wrapper = tmp_path / "wrapped" / harness.name
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        "python3 -c 'import json, os, sys; "
        f'print(json.dumps(dict(os.environ)), file=open("{seen}", "a"))\'\n'
        f'exec {real.resolve()} "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    for name, value in harness.env.items():  # the harness's home and PATH, as a user's shell has
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{harness.env['PATH']}")
    monkeypatch.setenv("MAPLE_CLASSIFIER", harness.name)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    monkeypatch.setenv("MAPLE_GATE_TOKEN", SECRET)
    harness.answer(lambda words: {"outcome": "wait", "remarks": []})
    classifier = classifier_from_environment()  # as every program builds it: checked, then read
    assert classifier is not None
    answer = classifier.classify("What about dark mode?", OUTCOME_SCHEMA)
    assert read_answer(answer.structured) is not None, answer
    runs = [json.loads(line) for line in seen.read_text().splitlines()]
    assert len(runs) >= 2  # the start-up check and the reading itself
    for env in runs:
        assert SECRET not in json.dumps(env)
        assert env["MAPLE_UNATTENDED"] == "1"


def test_no_harness_or_agent_can_be_built_without_naming_what_it_hides() -> None:
    """Hiding maple's secrets is not a default a caller can forget: ``hidden`` is required."""
    for kind in (ClaudeClassifier, CodexClassifier, ClaudeProvider, CodexProvider):
        parameter = inspect.signature(kind).parameters["hidden"]
        assert parameter.default is inspect.Parameter.empty, kind
        with pytest.raises(TypeError, match="hidden"):
            kind("claude")  # type: ignore[call-arg]
