"""The real Codex and Claude Code see the same ``maple-mcp`` when its handshake is replayed.

Each client runs twice against a scripted model on loopback: first with nothing recorded (the
SDK answers, and records), then with the SDK's import held (``held_maple_mcp.py``), so the
client connects, lists maple's tools and sends its first model request on replayed answers
alone. The tools the model is offered must be the same both times; Claude Code then calls one,
which the SDK answers once the gate opens.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from contract_tests.agent_peers import CODEX_CONFIG, _bundled
from contract_tests.support import make_repo
from tests.agents.model_server import ScriptedModel
from tests.loopback import serve_asgi
from tests.mcp_start_support import Gate
from tests.mcp_support import EVENT_S, MAPLE_MCP, clean_env

BRANCH = "feat/clients"


def maple_tools(body: dict[str, Any]) -> list[Any]:
    """The tools of maple's server in a model request, as the model is offered them."""
    return [tool for tool in body.get("tools", []) if "mcp__maple" in json.dumps(tool)]


def tool_results(body: dict[str, Any]) -> list[Any]:
    """What the tools answered, in the last message of a Messages-API request."""
    blocks = body["messages"][-1]["content"]
    return [b["content"] for b in blocks if isinstance(b, dict) and b["type"] == "tool_result"]


def wait_for_requests(model: ScriptedModel, count: int) -> None:
    deadline = time.monotonic() + EVENT_S
    while len(model.requests) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"the model saw {len(model.requests)} requests, not {count}")
        time.sleep(0.05)


class Client:
    """One client binary, configured to start ``maple-mcp`` with ``command``."""

    def __init__(self, name: str, tmp: Path, model_url: str) -> None:
        self.name = name
        self.binary = _bundled(name)
        self.tmp = tmp
        self.repo = make_repo(tmp / "repo", BRANCH)
        self.model_url = model_url
        self.server_env = {"MAPLE_STORE": "file", "XDG_CACHE_HOME": str(tmp / "cache")}

    def run(self, command: list[str]) -> subprocess.Popen[str]:
        home = self.tmp / "home"
        home.mkdir(exist_ok=True)
        env = clean_env(HOME=str(home), NO_COLOR="1")
        if self.name == "codex":
            codex_home = self.tmp / "codex-home"
            codex_home.mkdir(exist_ok=True)
            server = {"command": command[0], "args": command[1:], "env": self.server_env}
            # required: Codex waits for the server before its first turn (else a server that is
            # slow to list its tools misses that turn, the very trouble replaying prevents)
            table = "\n[mcp_servers.maple]\nrequired = true\n" + "".join(
                f"{key} = {json.dumps(value)}\n" for key, value in server.items() if key != "env"
            )
            table += "[mcp_servers.maple.env]\n" + "".join(
                f"{key} = {json.dumps(value)}\n" for key, value in self.server_env.items()
            )
            (codex_home / "config.toml").write_text(CODEX_CONFIG.format(url=self.model_url) + table)
            argv = [str(self.binary), "exec", "--skip-git-repo-check", "Look at the comments."]
            env |= {"CODEX_HOME": str(codex_home), "RUST_LOG": "warn"}
        else:
            config = self.tmp / "mcp.json"
            server = {"command": command[0], "args": command[1:], "env": self.server_env}
            config.write_text(json.dumps({"mcpServers": {"maple": server}}))
            argv = [str(self.binary), "-p", "Look at the comments.", "--mcp-config", str(config)]
            argv += ["--output-format", "json", "--allowedTools", "mcp__maple__list_comments"]
            env |= {
                "ANTHROPIC_BASE_URL": self.model_url,
                "ANTHROPIC_API_KEY": "sk-ant-scripted-model",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "ENABLE_TOOL_SEARCH": "false",
            }
        return subprocess.Popen(
            argv,
            cwd=self.repo,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=EVENT_S * 2)
    assert process.returncode == 0, err[-2000:]
    return out


@pytest.mark.parametrize("name", ["codex", "claude"])
def test_the_real_client_is_offered_the_same_tools_before_the_sdk_has_loaded(
    tmp_path: Path, name: str
) -> None:
    model = ScriptedModel(tmp_path / "pids", tmp_path)
    if name == "claude":
        model.scenario = [
            [{"use": "mcp__maple__list_comments", "input": {"branch": BRANCH}}, {"say": "Done."}]
        ]
    running = serve_asgi(model.app)
    client = Client(name, tmp_path, running.url)
    gate = Gate(tmp_path)
    try:
        finished(client.run([str(MAPLE_MCP)]))  # nothing recorded: the SDK answers, and records
        first = list(model.requests)
        model.requests.clear()
        process = client.run(gate.command())
        wait_for_requests(model, 1)  # the SDK's import is still held
        offered = maple_tools(model.requests[0])
        gate.open()
        finished(process)
    finally:
        gate.close()
        running.stop()
    assert offered == maple_tools(first[0])
    assert "wait_for_comments" in json.dumps(offered)
    if name == "claude":  # and the call made on the replayed handshake was the SDK's to answer
        answered = tool_results(model.requests[1])
        assert answered == tool_results(first[1])
        assert json.loads(answered[0])["result"] == []  # the branch has no comments yet
