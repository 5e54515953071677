"""Codex runs maple's Stop hook only once the project and the hook are trusted.

``maple install codex --write`` writes both into ``$CODEX_HOME/config.toml`` (keeping every other
key), ``maple doctor`` names what is missing with a one-line fix, and the real ``codex`` (the
``openai-codex-cli-bin`` dev dependency, against a scripted model on loopback, offline) runs the
hook afterwards. Everything goes through the ``maple`` console script in a scratch git repository
with a private ``HOME`` and ``CODEX_HOME``.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from contract_tests.agent_peers import CODEX_CONFIG
from contract_tests.support import make_repo
from tests.support import clean_env

BIN = Path(sys.executable).parent
BRANCH = "feat/pay"
WORKLIST = "Maple review comment(s) are still open"
GIVE_UP = "Letting the session end"


def system_path() -> str:
    """``PATH`` without any folder holding a maple console script."""
    entries = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(e for e in entries if e and not (Path(e) / "maple-mcp").exists())


def codex_hash(handler: dict[str, Any]) -> str:
    """What Codex 0.163 trusts for a Stop command hook (read back from its ``hooks/list``).

    SHA-256 of the sorted, compact JSON of ``{"event_name": "stop", "hooks": [handler]}`` with
    the handler normalized to type, command, timeout (600 unless given), async and statusMessage.
    """
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(handler.get("timeout", 600), 1),
        "async": handler.get("async", False),
    }
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    identity = {"event_name": "stop", "hooks": [normal]}
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Project:
    """A scratch repository with a private home and Codex home."""

    repo: Path
    codex_home: Path
    env: dict[str, str]

    @property
    def config(self) -> Path:
        return self.codex_home / "config.toml"

    @property
    def hooks(self) -> Path:
        return self.repo / ".codex" / "hooks.json"

    @property
    def key(self) -> str:
        return f"{self.hooks}:stop:0:0"

    def maple(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "maple"), *args],
            cwd=cwd or self.repo,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def toml(self) -> dict[str, Any]:
        return tomllib.loads(self.config.read_text())

    def maple_handler(self) -> dict[str, Any]:
        handler: dict[str, Any] = json.loads(self.hooks.read_text())["hooks"]["Stop"][0]["hooks"][0]
        return handler


@pytest.fixture
def project(tmp_path: Path) -> Project:
    repo = make_repo(tmp_path / "repo", BRANCH).resolve()
    home, codex_home, temp = tmp_path / "home", tmp_path / "codex-home", tmp_path / "temp"
    for folder in (home, codex_home, temp):
        folder.mkdir()
    env = clean_env(
        HOME=str(home), CODEX_HOME=str(codex_home), PATH=system_path(), TMPDIR=str(temp)
    )
    env.pop("VIRTUAL_ENV", None)
    return Project(repo, codex_home.resolve(), env)


def findings(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in json.loads(done.stdout)}


# -- maple install codex --write ----------------------------------------------------------------


def test_install_codex_write_trusts_the_project_and_the_hook_keeping_every_other_key(
    project: Project,
) -> None:
    project.config.write_text(
        'model = "gpt-5"\n\n[projects."/elsewhere"]\ntrust_level = "untrusted"\n\n'
        '[hooks.state."/elsewhere/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:0"\n\n'
        '[mcp_servers.other]\ncommand = "x"\n'
    )
    done = project.maple("install", "codex", "--write")
    assert done.returncode == 0, done.stderr
    data = project.toml()
    assert data["model"] == "gpt-5"
    assert data["mcp_servers"]["other"] == {"command": "x"}
    assert data["projects"]["/elsewhere"] == {"trust_level": "untrusted"}
    assert data["projects"][str(project.repo)] == {"trust_level": "trusted"}
    state = data["hooks"]["state"]
    assert state["/elsewhere/.codex/hooks.json:stop:0:0"] == {"trusted_hash": "sha256:0"}
    assert state[project.key] == {"trusted_hash": codex_hash(project.maple_handler())}
    text = project.config.read_text()
    again = project.maple("install", "codex", "--write")
    assert again.stdout.count("unchanged") == 2, again.stdout
    assert project.config.read_text() == text


def test_install_codex_dry_run_shows_the_trust_it_would_write_and_writes_nothing(
    project: Project,
) -> None:
    project.config.write_text('model = "gpt-5"\n')
    done = project.maple("install", "codex", "--write", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert f'+[projects."{project.repo}"]' in done.stdout
    assert '+trust_level = "trusted"' in done.stdout
    assert f'+[hooks.state."{project.key}"]' in done.stdout
    assert '+trusted_hash = "sha256:' in done.stdout
    assert project.config.read_text() == 'model = "gpt-5"\n'
    assert not project.hooks.exists()


def test_install_codex_without_write_prints_exactly_what_write_would_merge(
    project: Project,
) -> None:
    done = project.maple("install", "codex")
    assert done.returncode == 0, done.stderr
    block = done.stdout.split("(or run again with --write):\n\n", 1)[1]
    project.config.write_text(block)
    data = project.toml()
    assert data["projects"][str(project.repo)] == {"trust_level": "trusted"}
    assert data["hooks"]["state"][project.key] == {
        "trusted_hash": codex_hash(project.maple_handler())
    }
    assert project.maple("install", "codex", "--write").stdout.count("unchanged") == 2


def test_a_project_marked_untrusted_is_left_so_and_named_with_its_fix(project: Project) -> None:
    text = f'[projects."{project.repo}"]\ntrust_level = "untrusted"\n'
    project.config.write_text(text)
    done = project.maple("install", "codex", "--write")
    assert done.returncode == 0, done.stderr
    assert project.toml()["projects"][str(project.repo)] == {"trust_level": "untrusted"}
    [line] = [line for line in done.stderr.splitlines() if "untrusted" in line]
    assert 'trust_level = "trusted"' in line


def test_a_hook_state_maple_cannot_edit_safely_is_refused_in_one_line(project: Project) -> None:
    text = '[hooks]\nstate = "somewhere else"\n'
    project.config.write_text(text)
    done = project.maple("install", "codex", "--write")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert project.config.read_text() == text


# -- maple doctor -----------------------------------------------------------------------------


def test_doctor_is_clear_about_codex_after_install_codex_write(project: Project) -> None:
    assert project.maple("install", "codex", "--write").returncode == 0
    done = project.maple("doctor", "--json")
    seen = findings(done)
    assert seen["codex registration"]["ok"] is True, seen
    assert seen["codex project trust"]["ok"] is True, seen
    assert seen["codex hook trust"]["ok"] is True, seen
    assert done.returncode == 0, done.stdout


def doctor_failure(project: Project, check: str) -> tuple[str, str]:
    """``maple doctor`` fails (exit 1) on ``check``: its FAIL line and the fix line under it."""
    done = project.maple("doctor")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"FAIL {check}:"))
    return lines[at], lines[at + 1]


def test_doctor_names_an_untrusted_project_with_its_fix_in_one_line(project: Project) -> None:
    assert project.maple("install", "codex", "--write").returncode == 0
    config = project.toml()
    del config["projects"]
    project.config.write_text(
        f'[mcp_servers.maple]\ncommand = "{config["mcp_servers"]["maple"]["command"]}"\n\n'
        f'[hooks.state."{project.key}"]\n'
        f'trusted_hash = "{config["hooks"]["state"][project.key]["trusted_hash"]}"\n'
    )
    failed, fix = doctor_failure(project, "codex project trust")
    assert "until the project is trusted" in failed
    assert fix == "     fix: maple install codex --write"


def test_doctor_names_an_untrusted_hook_with_its_fix_in_one_line(project: Project) -> None:
    assert project.maple("install", "codex").returncode == 0
    project.config.write_text(
        f'[mcp_servers.maple]\ncommand = "{BIN / "maple-mcp"}"\n\n'
        f'[projects."{project.repo}"]\ntrust_level = "trusted"\n'
    )
    failed, fix = doctor_failure(project, "codex hook trust")
    assert "not trusted" in failed
    assert "skips it" in failed
    assert fix == "     fix: maple install codex --write"


def test_doctor_names_a_hook_changed_since_it_was_trusted(project: Project) -> None:
    assert project.maple("install", "codex", "--write").returncode == 0
    hooks = json.loads(project.hooks.read_text())
    hooks["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 30
    project.hooks.write_text(json.dumps(hooks))
    failed, fix = doctor_failure(project, "codex hook trust")
    assert "changed since it was trusted" in failed
    assert fix == "     fix: maple install codex --write"
    assert project.maple("install", "codex", "--write").returncode == 0
    assert project.maple("doctor").returncode == 0


def test_a_codex_wide_server_without_this_projects_hook_is_reported_not_failed(
    project: Project,
) -> None:
    project.config.write_text(f'[mcp_servers.maple]\ncommand = "{BIN / "maple-mcp"}"\n')
    done = project.maple("doctor")
    assert done.returncode == 0, done.stdout
    assert (
        "--   codex registration: server registered; the Stop hook is not registered in "
        ".codex/hooks.json\n     fix: maple install codex --write\n"
    ) in done.stdout


# -- the real codex -----------------------------------------------------------------------------


def codex_binary() -> Path:
    try:
        import codex_cli_bin

        return Path(codex_cli_bin.bundled_codex_path())
    except (ImportError, FileNotFoundError):
        pytest.skip("the real codex is not installed: pip install -e '.[dev]' (make test does)")


@pytest.fixture
def model(project: Project) -> Iterator[Any]:
    """The scripted model on loopback, answering "Done." to every request; Codex pointed at it."""
    from tests.agents.model_server import ScriptedModel
    from tests.loopback import serve_asgi

    scripted = ScriptedModel(project.repo / ".pids", project.repo)
    scripted.scenario = [[{"say": "Done."}]]
    running = serve_asgi(scripted.app)
    # CODEX_CONFIG turns off every feature that reaches the network: only the scripted model.
    project.config.write_text(CODEX_CONFIG.format(url=running.url))
    yield scripted
    running.stop()


def open_comment(project: Project) -> None:
    done = project.maple("comments", "add", "--body", "The Pay button overlaps the total.")
    assert done.returncode == 0, done.stderr


def codex_exec(project: Project) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(codex_binary()), "exec", "--json", "Address the review comments."],
        cwd=project.repo,
        env={**project.env, "RUST_LOG": "warn", "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def hook_prompts(model: Any) -> list[str]:
    """The hook prompts the model was shown, in the last request (it carries the whole thread)."""
    last = model.requests[-1].get("input") or []
    texts = [
        c.get("text", "")
        for item in last
        if item.get("type") == "message" and item.get("role") == "user"
        for c in item.get("content") or []
    ]
    return [t for t in texts if t.startswith("<hook_prompt")]


def test_the_real_codex_runs_the_hook_once_install_codex_write_trusts_it(
    project: Project, model: Any
) -> None:
    codex_binary()
    open_comment(project)
    assert project.maple("install", "codex").returncode == 0
    untrusted = codex_exec(project)
    assert model.requests
    assert not hook_prompts(model)
    assert WORKLIST not in untrusted.stdout + untrusted.stderr

    model.requests.clear()
    done = project.maple("install", "codex", "--write")
    assert done.returncode == 0, done.stderr
    codex_exec(project)
    prompts = hook_prompts(model)
    assert prompts, "the hook did not run"
    assert WORKLIST in prompts[0]
    assert "The Pay button overlaps the total." in prompts[0]


def test_the_real_codex_ends_after_eight_blocks_and_shows_nobody_the_give_up_reason(
    project: Project, model: Any
) -> None:
    """The documented limit: after the eighth block Codex lets the stop through and drops the
    hook's ``reason``; neither the model nor ``codex exec --json`` sees it."""
    codex_binary()
    open_comment(project)
    assert project.maple("install", "codex", "--write").returncode == 0
    done = codex_exec(project)
    assert len(hook_prompts(model)) == 8
    assert len(model.requests) == 9
    assert not any(GIVE_UP in json.dumps(r) for r in model.requests)
    assert GIVE_UP not in done.stdout + done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["type"] == "turn.completed"


def hooks_list(project: Project) -> list[dict[str, Any]]:
    """Codex's own view of the project's hooks (``codex app-server``'s ``hooks/list``)."""
    server = subprocess.Popen(
        [str(codex_binary()), "app-server"],
        cwd=project.repo,
        env={**project.env, "RUST_LOG": "error"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    stdout = server.stdout
    threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
    try:
        for message in (
            {
                "id": 1,
                "method": "initialize",
                "params": {"clientInfo": {"name": "t", "version": "0"}},
            },
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [str(project.repo)]}},
        ):
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        deadline = time.monotonic() + 60
        while True:
            answer = json.loads(lines.get(timeout=max(deadline - time.monotonic(), 0.1)))
            if answer.get("id") == 2:
                hooks: list[dict[str, Any]] = answer["result"]["data"][0]["hooks"]
                return hooks
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        stdout.close()


def test_doctor_and_codex_agree_on_the_hooks_trust(project: Project) -> None:
    codex_binary()
    assert project.maple("install", "codex").returncode == 0
    project.config.write_text(f'[projects."{project.repo}"]\ntrust_level = "trusted"\n')
    [hook] = hooks_list(project)
    assert (hook["key"], hook["trustStatus"]) == (project.key, "untrusted")
    untrusted = findings(project.maple("doctor", "--json"))["codex hook trust"]
    assert "not trusted" in untrusted["detail"]

    assert project.maple("install", "codex", "--write").returncode == 0
    [hook] = hooks_list(project)
    assert hook["trustStatus"] == "trusted"
    assert hook["currentHash"] == codex_hash(project.maple_handler())
    assert findings(project.maple("doctor", "--json"))["codex hook trust"]["ok"] is True

    hooks = json.loads(project.hooks.read_text())
    hooks["hooks"]["Stop"][0]["hooks"][0]["statusMessage"] = "Checking review comments"
    project.hooks.write_text(json.dumps(hooks))
    [hook] = hooks_list(project)
    assert hook["trustStatus"] == "modified"
    changed = findings(project.maple("doctor", "--json"))["codex hook trust"]
    assert changed["ok"] is False
    assert "changed since it was trusted" in changed["detail"]
