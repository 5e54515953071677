"""The real Claude Code, interactive inside tmux, against a scripted Messages API and ``maple-mcp``.

Only an interactive session declares the MCP tasks extension (headless ``-p`` does not), so the
wake needs a terminal: tmux gives one, on a socket of the test's own. ``~/.claude.json`` is
pre-seeded (onboarding done, the API key approved, the folder trusted) so no dialog waits for a
key; the prompt is typed once and nothing is typed after it.

:class:`WakeModel` plays the agent: it starts ``wait_for_comments`` and ends its turn; when a
request carries a reviewer's comment (Claude Code's ``<task-notification>`` with the task's
result) it resolves that comment with the checkout's HEAD, then ends its turn. Every request is
recorded with the moment it arrived, for the test's assertions and the bench.
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

SERVER = "maple"
WAIT_TOOL = f"mcp__{SERVER}__wait_for_comments"
RESOLVE_TOOL = f"mcp__{SERVER}__resolve_comment"
MARK = "MAPLE-WAKE"
"""Every reviewer comment of these tests starts with it, so the model can tell it is one."""
KEY = "sk-ant-api03-maple-wake-test-0000000000000000"


def needed_peers() -> tuple[str, Path]:
    """``tmux`` and the bundled ``claude``, or a skip (a failure under MAPLE_TEST_STRICT=1)."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed: apt-get install -y tmux (.ci/run does)")
    from contract_tests.agent_peers import _bundled

    return tmux, _bundled("claude")


@dataclass
class Seen:
    """One request to the scripted model."""

    at: float  # time.monotonic()
    text: str  # the last user message's text, tool results included
    reply: dict[str, Any]
    tools: list[str] = field(default_factory=list)  # the tools offered


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    out: list[str] = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            out.append(inner if isinstance(inner, str) else json.dumps(inner))
    return "\n".join(out)


def _tool_uses(messages: list[dict[str, Any]]) -> list[str]:
    return [
        str(block.get("name"))
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for block in m["content"]
        if block.get("type") == "tool_use"
    ]


_STOP = re.compile(r'TaskStop with task_id \\*"([A-Za-z0-9_-]+)')
_CURSOR = re.compile(r'\\*"cursor\\*":\s*\\*"([^"\\]+)')
_ID = re.compile(r'\\*"id\\*":\s*\\*"([A-Za-z0-9_.:-]+)')
_SHA = re.compile(r"\b[0-9a-f]{40}\b")


@dataclass
class WakeModel:
    """A scripted Anthropic Messages API playing the agent of the wake (see the module)."""

    branch: str
    sha: str
    stop: bool = False  # stop the wait (TaskStop) right after starting it, instead of idling
    again: bool = False  # after resolving, start the next wait (from the comment's cursor)
    cursor: str | None = None
    fix: str | None = None  # a Bash command that fixes and pushes, printing the commit's sha last
    fixing: str | None = None  # the comment being fixed while the command runs
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def app(self) -> Starlette:
        """The ASGI app (``/v1/messages`` and ``/v1/messages/count_tokens``)."""
        return Starlette(
            routes=[
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/messages/count_tokens", self._count, methods=["POST"]),
            ]
        )

    def decide(self, body: dict[str, Any]) -> dict[str, Any]:
        """The next step of the script, read from the request."""
        tools = {str(t.get("name")) for t in body.get("tools") or []}
        if WAIT_TOOL not in tools:
            return {"text": "ok"}  # Claude Code's side requests (titles and such)
        messages = body.get("messages") or []
        last = _text(messages[-1]) if messages else ""
        used = _tool_uses(messages)
        if used and used[-1] == RESOLVE_TOOL and "tool_result" in json.dumps(messages[-1]):
            if self.again:
                return {"tool": WAIT_TOOL, "input": {"branch": self.branch, "cursor": self.cursor}}
            return {"text": "Resolved the reviewer's comment."}
        if used and used[-1] == "TaskStop" and "tool_result" in json.dumps(messages[-1]):
            return {"text": "Stopped the wait."}
        if self.stop and used and used[-1] == WAIT_TOOL and (found := _STOP.search(last)):
            return {"tool": "TaskStop", "input": {"task_id": found.group(1)}}
        note = "Renamed as asked."
        if (
            self.fixing
            and used
            and used[-1] == "Bash"
            and "tool_result" in json.dumps(messages[-1])
        ):
            shas = _SHA.findall(last)
            comment, self.fixing = self.fixing, None
            sha = shas[-1] if shas else self.sha
            return {"tool": RESOLVE_TOOL, "input": {"id": comment, "sha": sha, "note": note}}
        if MARK in last:
            # the comment's id is the last "id" before its body (its author's comes after)
            before = [m.group(1) for m in _ID.finditer(last[: last.index(MARK)])]
            comment = before[-1] if before else "?"
            if found := _CURSOR.search(last):
                self.cursor = found.group(1)
            if self.fix is not None:
                self.fixing = comment
                return {"tool": "Bash", "input": {"command": self.fix, "description": "Fix, push"}}
            return {"tool": RESOLVE_TOOL, "input": {"id": comment, "sha": self.sha, "note": note}}
        if WAIT_TOOL not in used:
            return {"tool": WAIT_TOOL, "input": {"branch": self.branch}}
        return {"text": "Waiting for the reviewer; the wait runs in the background."}

    def requests_after(self, moment: float, check: Callable[[Seen], bool]) -> list[Seen]:
        """The requests since ``moment`` that ``check`` accepts."""
        with self.lock:
            return [s for s in self.seen if s.at >= moment and check(s)]

    async def _count(self, request: Request) -> Response:
        return JSONResponse({"input_tokens": 10})

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        reply = self.decide(body)
        messages = body.get("messages") or []
        with self.lock:
            text = _text(messages[-1]) if messages else ""
            tools = [str(t.get("name")) for t in body.get("tools") or []]
            self.seen.append(Seen(time.monotonic(), text, reply, tools))
            n = len(self.seen)
        return StreamingResponse(_stream(body, reply, n), media_type="text/event-stream")


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


async def _stream(body: dict[str, Any], reply: dict[str, Any], n: int) -> AsyncIterator[bytes]:
    usage = {"input_tokens": 10, "output_tokens": 5}
    message = {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield _event("message_start", {"type": "message_start", "message": message})
    if "tool" in reply:
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": reply["tool"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(reply["input"])}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply["text"]}
        stop = "end_turn"
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    yield _event("content_block_start", start)
    yield _event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
    yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
    end = {"stop_reason": stop, "stop_sequence": None}
    yield _event("message_delta", {"type": "message_delta", "delta": end, "usage": usage})
    yield _event("message_stop", {"type": "message_stop"})


class InteractiveClaude:
    """Claude Code in a tmux session on a private socket, in ``workdir``, with ``maple-mcp``."""

    def __init__(
        self,
        tmux: str,
        claude: Path,
        workdir: Path,
        home: Path,
        model_url: str,
        server: list[str],
        server_env: dict[str, str],
        path: str,
        allowed: tuple[str, ...] = (),
    ) -> None:
        self.tmux, self.workdir, self.home = tmux, workdir, home
        self.socket = f"maple-wake-{secrets.token_hex(4)}"
        home.mkdir(parents=True, exist_ok=True)
        config = home / "mcp.json"
        entry = {"type": "stdio", "command": server[0], "args": server[1:], "env": server_env}
        config.write_text(json.dumps({"mcpServers": {SERVER: entry}}))
        (home / ".claude.json").write_text(
            json.dumps(
                {
                    "hasCompletedOnboarding": True,
                    "theme": "dark",
                    "numStartups": 5,
                    "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                    "projects": {
                        str(workdir): {
                            "hasTrustDialogAccepted": True,
                            "hasCompletedProjectOnboarding": True,
                            "allowedTools": [],
                        }
                    },
                }
            )
        )
        env = {
            "HOME": str(home),
            "PATH": path,
            "TERM": "xterm-256color",
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "ENABLE_TOOL_SEARCH": "false",
        }
        tools = " ".join([f"mcp__{SERVER}", *allowed])
        argv = [str(claude), "--mcp-config", str(config), "--allowedTools", tools]
        if allowed:  # auto mode sets allow rules aside for its server-side check, unreachable here
            argv += ["--permission-mode", "acceptEdits"]
        argv += ["--debug-file", str(home / "debug.log")]
        self.shell = (
            f"cd {shlex.quote(str(workdir))} && exec env -i "
            + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            + " "
            + " ".join(shlex.quote(a) for a in argv)
        )

    def _tmux(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.tmux, "-L", self.socket, *args], capture_output=True, text=True, check=check
        )

    def screen(self) -> str:
        """What the terminal shows now."""
        return self._tmux("capture-pane", "-p", "-t", "wake").stdout

    def connected(self) -> bool:
        """Whether Claude Code says the MCP server is connected (its debug log)."""
        log = self.home / "debug.log"
        return log.exists() and f'MCP server "{SERVER}": Successfully connected' in log.read_text(
            errors="replace"
        )

    def start(self, prompt: str, ready_s: float = 60.0) -> None:
        """Start Claude Code, wait for its input box and ``maple-mcp``, type ``prompt``, Enter."""
        self._tmux(
            "new-session", "-d", "-s", "wake", "-x", "200", "-y", "50", self.shell, check=True
        )
        deadline = time.monotonic() + ready_s
        while "❯" not in self.screen() or not self.connected():
            if time.monotonic() > deadline:
                raise AssertionError(f"Claude Code showed no prompt:\n{self.screen()}")
            time.sleep(0.2)
        time.sleep(2.0)  # the input box takes keys a moment after it shows
        self._tmux("send-keys", "-t", "wake", "-l", prompt)
        time.sleep(0.5)
        self._tmux("send-keys", "-t", "wake", "Enter")

    def stop(self) -> None:
        """End Claude Code and this socket's tmux server (nothing else's)."""
        self._tmux("send-keys", "-t", "wake", "C-c")
        time.sleep(0.5)
        self._tmux("send-keys", "-t", "wake", "C-c")
        time.sleep(1.0)
        self._tmux("kill-server")
