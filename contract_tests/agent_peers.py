"""The peers the agent-provider contract runs against: a scripted turn, played by each.

A scenario is a list of turns; a turn is a list of steps: ``{"say": text}``, ``{"run": shell}``,
``{"write": relative path, "text": ...}``, ``{"ask": question, "options": [...]}``,
``{"sleep": seconds}`` (a long command, for cancelling) and ``{"fail": message}``. The fake
executables read the scenario directly; the real binaries get it from a scripted model server.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from maple_adapters.agents.claude_provider import ClaudeProvider
from maple_adapters.agents.codex_provider import CodexProvider
from maple_core.agent_ports import AgentProvider
from maple_entrypoints.configuration import SECRETS

FAKES = Path(__file__).resolve().parents[1] / "tests" / "agents"
Scenario = list[list[dict[str, Any]]]


@dataclass
class Peer:
    """A provider wired to a peer, a project folder, and a way to script its next turns."""

    name: str
    provider: AgentProvider
    workspace: Path
    pids: Path
    install: Callable[[Scenario], None]
    extra: dict[str, Any] = field(default_factory=dict)

    def sleepers(self) -> list[int]:
        """The pids of the long commands the agent started."""
        model = self.extra.get("model")
        if model is not None:  # found by their unique argument: a sandbox hides the real pid
            marks = set(model.sleep_marks)
            found = []
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    argv = (entry / "cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if len(argv) >= 2 and argv[0].endswith(b"timeout") and argv[1].decode() in marks:
                    found.append(int(entry.name))
            # timeout's child shows timeout's arguments until it execs its command: not a sleeper
            return [pid for pid in found if _parent(pid) not in found]
        if not self.pids.exists():
            return []
        return [int(line) for line in self.pids.read_text().split()]


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def _wrapper(folder: Path, name: str, module: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {name!r}\n"
        f"runpy.run_path({str(FAKES / module)!r}, run_name='__main__')\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_agents_env(tmp: Path) -> dict[str, str]:
    """The environment that puts the fake ``codex`` and ``claude`` first on ``PATH``, with a home,
    a scenario file (``script.json``) and a pid list of their own under ``tmp``."""
    for name in ("codex", "claude"):
        _wrapper(tmp / "bin", name, f"fake_{name}.py")
    (tmp / "home").mkdir(exist_ok=True)
    return {
        "PATH": f"{tmp / 'bin'}:{os.environ['PATH']}",
        "HOME": str(tmp / "home"),
        "CODEX_HOME": str(tmp / "codex-home"),
        "MAPLE_FAKE_SCRIPT": str(tmp / "script.json"),
        "MAPLE_FAKE_PIDS": str(tmp / "pids.txt"),
        "MAPLE_STORE": "file",
    }


def fake_peer(provider_name: str, tmp: Path) -> Peer:
    """The deterministic fake ``codex`` or ``claude`` on a private folder."""
    workspace = tmp / "project"
    workspace.mkdir(parents=True, exist_ok=True)
    script = tmp / "script.json"
    pids = tmp / "pids.txt"
    binary = _wrapper(tmp / "bin", provider_name, f"fake_{provider_name}.py")
    env = {
        "HOME": str(tmp / "home"),
        "CODEX_HOME": str(tmp / "codex-home"),
        "MAPLE_FAKE_SCRIPT": str(script),
        "MAPLE_FAKE_PIDS": str(pids),
        "MAPLE_FAKE_ARGV_LOG": str(tmp / "argv.jsonl"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    (tmp / "home").mkdir(exist_ok=True)
    provider: AgentProvider = (
        CodexProvider(str(binary), env, hidden=SECRETS)
        if provider_name == "codex"
        else ClaudeProvider(str(binary), env, hidden=SECRETS)
    )

    def install(scenario: Scenario) -> None:
        script.write_text(json.dumps(scenario))

    return Peer(
        f"{provider_name}-fake", provider, workspace, pids, install, {"argv": tmp / "argv.jsonl"}
    )


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, their children…), found through /proc.

    A process that started its own session (an agent's process group) still counts: it is found
    by its parent, not its group.
    """
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            parent = _parent(int(entry.name))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if process_alive(child):
                found.append(child)
            todo.append(child)
    return found


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
    except OSError:
        return os.path.exists(f"/proc/{pid}")


CODEX_CONFIG = """model = "mock-model"
model_provider = "mock_provider"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
suppress_unstable_features_warning = true

[model_providers.mock_provider]
name = "Scripted model"
base_url = "{url}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[sandbox_workspace_write]
exclude_slash_tmp = true      # keep the sandbox's writable roots (and its .git mount points)
exclude_tmpdir_env_var = true # to the workspace: never an empty /tmp/.git on the host

[analytics]
enabled = false

[features]  # nothing that reaches the network: only the scripted model on loopback
plugins = false
apps = false
remote_plugin = false
tool_suggest = false
"""


def real_peer(provider_name: str, tmp: Path, request: pytest.FixtureRequest) -> Peer:
    """The real ``codex`` (PyPI openai-codex-cli-bin) or ``claude`` (bundled in
    claude-agent-sdk), against a scripted model on loopback."""
    from tests.agents.model_server import ScriptedModel
    from tests.loopback import serve_asgi

    binary = _bundled(provider_name)
    workspace = tmp / "project"
    workspace.mkdir(parents=True, exist_ok=True)
    pids = workspace / ".pids"  # inside the workspace: the agent's sandbox may write only there
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    model = ScriptedModel(pids, workspace)
    running = serve_asgi(model.app)
    request.addfinalizer(running.stop)
    env = {"HOME": str(home), "RUST_LOG": "warn", "NO_COLOR": "1"}
    provider: AgentProvider
    if provider_name == "codex":
        codex_home = tmp / "codex-home"
        codex_home.mkdir(exist_ok=True)
        (codex_home / "config.toml").write_text(CODEX_CONFIG.format(url=running.url))
        codex_env = {**env, "CODEX_HOME": str(codex_home)}
        provider = CodexProvider(str(binary), codex_env, hidden=SECRETS)
    else:
        provider = ClaudeProvider(
            str(binary),
            {
                **env,
                "ANTHROPIC_BASE_URL": running.url,
                "ANTHROPIC_API_KEY": "sk-ant-scripted-model",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
            },
            hidden=SECRETS,
        )

    def install(scenario: Scenario) -> None:
        model.scenario = scenario

    return Peer(f"{provider_name}-real", provider, workspace, pids, install, {"model": model})


def _bundled(provider_name: str) -> Path:
    try:
        if provider_name == "codex":
            import codex_cli_bin

            return Path(codex_cli_bin.bundled_codex_path())
        import claude_agent_sdk

        path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
        if not path.exists():
            raise FileNotFoundError(path)
        return path
    except (ImportError, FileNotFoundError):
        pytest.skip(
            f"the real {provider_name} binary is not installed: pip install "
            + ("openai-codex-cli-bin" if provider_name == "codex" else "claude-agent-sdk")
            + " (make test installs it)"
        )
