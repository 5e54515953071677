"""Drive ``maple-mcp`` line by line, the MCP SDK's import held or not (``held_maple_mcp.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.mcp_support import EVENT_S, MAPLE_MCP, OutputLines, clean_env

HELD = Path(__file__).with_name("held_maple_mcp.py")
ENVELOPE = "io.modelcontextprotocol/protocolVersion"
MODERN = "2026-07-28"


def line(message: dict[str, Any]) -> str:
    """``message`` as one JSON-RPC line, as compact as clients write it."""
    return json.dumps(message, separators=(",", ":"))


def request(request_id: int | str, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return line(message)


def notification(method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return line(message)


def envelope(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    """The 2026-07-28 ``_meta`` a modern client puts on every request."""
    return {
        "_meta": {
            ENVELOPE: MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1.0"},
            "io.modelcontextprotocol/clientCapabilities": capabilities or {},
        }
    }


def initialize(version: str, request_id: int = 0) -> str:
    """A handshake ``initialize`` as Codex sends it, offering ``version``."""
    return request(
        request_id,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {"experimental": {"codex/auth-change": {}}, "elicitation": {}},
            "clientInfo": {"name": "test-client", "title": "Test", "version": "1.0"},
        },
    )


def answer_id(text: str) -> Any:
    """The id of the request a line is or answers (a listen's acknowledgement answers one)."""
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if message.get("method") == "notifications/subscriptions/acknowledged":
        return message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
    return message.get("id")


class Gate:
    """A FIFO the held ``maple-mcp`` waits on before importing the SDK (see ``held_maple_mcp``)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / f"gate-{os.getpid()}-{id(self)}"
        os.mkfifo(self.path)
        self._fd: int | None = os.open(self.path, os.O_RDWR)  # so the child's open never blocks

    def command(self, transcript: Path | None = None) -> list[str]:
        """The held ``maple-mcp``'s command line."""
        extra = [str(transcript)] if transcript is not None else []
        return [sys.executable, str(HELD), str(self.path), *extra]

    def open(self) -> None:
        """Let the SDK load (again and again: a byte is only read once)."""
        if self._fd is not None:
            os.write(self._fd, b"!")

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            self.path.unlink()


class Wire:
    """A ``maple-mcp`` process, its stdin and stdout as lines of JSON.

    With ``held``, the SDK's import waits for :meth:`open_gate`; with ``transcript``, the lines
    the SDK's transport read are written there.
    """

    def __init__(
        self,
        cwd: Path,
        cache: Path,
        *,
        held: bool = False,
        transcript: Path | None = None,
        **env: str,
    ) -> None:
        self._gate = Gate(cwd.parent) if held else None
        command = self._gate.command(transcript) if self._gate else [str(MAPLE_MCP)]
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=clean_env(XDG_CACHE_HOME=str(cache), **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        assert self.process.stdout is not None
        self.lines = OutputLines(self.process.stdout)

    def send(self, *lines: str) -> None:
        """Write ``lines`` at once, as one burst."""
        assert self.process.stdin is not None
        self.process.stdin.write("".join(f"{text}\n" for text in lines))
        self.process.stdin.flush()

    def send_raw(self, data: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self) -> str:
        """The next line maple-mcp writes."""
        return self.lines.next()

    def answers(self, count: int) -> list[str]:
        return [self.answer() for _ in range(count)]

    def open_gate(self) -> None:
        """Let the SDK load."""
        assert self._gate is not None
        self._gate.open()

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    def finish(self) -> tuple[int, list[str], str]:
        """Close stdin, wait for the exit; the exit code, the lines not yet read and stderr."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        if self._gate is not None:
            self._gate.open()  # a held import must not keep the process alive
        try:
            self.process.wait(timeout=EVENT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        rest: list[str] = []
        while True:
            try:
                rest.append(self.lines.next(timeout=EVENT_S))
            except AssertionError:
                break
        self.lines.close()
        assert self.process.stderr is not None
        err = self.process.stderr.read()
        self.process.stderr.close()
        if self._gate is not None:
            self._gate.close()
        return self.process.returncode, rest, err


def recorded_methods(cache: Path) -> list[str]:
    """The methods of the answers recorded in ``cache`` (every run key)."""
    methods = []
    for path in sorted((cache / "maple" / "mcp-answers").glob("*.json")):
        for key in json.loads(path.read_text())["answers"]:
            methods.append(json.loads(key)[1])
    return methods


def record(cwd: Path, cache: Path, conversation: list[str], **env: str) -> dict[Any, str]:
    """Run ``conversation`` once, so its answers are recorded; the SDK's answers by id."""
    wire = Wire(cwd, cache, **env)
    wire.send(*conversation)
    count = sum(1 for text in conversation if answer_id(text) is not None)
    answers = {answer_id(text): text for text in wire.answers(count)}
    code, _, err = wire.finish()  # what follows answers what was still open (a listen)
    assert (code, err) == (0, "")
    return answers
