"""Start ``maple-mcp`` as a subprocess and talk to it with the official MCP client."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from maple_core.inert_text import REVIEW_DATA_NOTE, REVIEW_DATA_NOTICE
from tests.support import MAPLE_MCP, clean_env

EVENT_S = 60.0
"""How long a test waits for an event (a line printed, a server answering, a process exiting):
generous, so that a busy machine is slow but never a failure."""


@asynccontextmanager
async def stdio_server(cwd: Path, **env: str) -> AsyncIterator[Client]:
    """A connected client of a ``maple-mcp`` process started in ``cwd``."""
    params = StdioServerParameters(command=str(MAPLE_MCP), cwd=cwd, env=clean_env(**env))
    async with Client(params) as connected:
        yield connected


def text_json(text: str) -> Any:
    """The JSON a tool's text carries: framed as reviewers' data, or bare."""
    if text.startswith(REVIEW_DATA_NOTE):
        head, _, rest = text.partition("\n<maple-review-data>\n")
        assert head == REVIEW_DATA_NOTE
        inner, _, tail = rest.rpartition("\n</maple-review-data>")
        assert tail == ""
        assert not {"<", ">"} & set(inner)  # nothing can close the frame early
        return json.loads(inner)
    return json.loads(text)


def structured(result: Any) -> Any:
    """The structured content of a successful tool result, checked against its text."""
    assert not result.is_error, result.content
    text = text_json(result.content[0].text)
    data = result.structured_content
    if "notice" in data:  # results that carry reviewers' words say so first, for every client
        assert data["notice"] == REVIEW_DATA_NOTICE
        assert next(iter(data)) == "notice"
        data = {k: v for k, v in data.items() if k != "notice"}
    assert (data["result"] if set(data) == {"result"} else data) == text
    return data["result"] if set(data) == {"result"} else data


def error_text(result: Any) -> str:
    """The message of a tool error."""
    assert result.is_error, result.structured_content
    return str(result.content[0].text)


class OutputLines:
    """A child process's output, read line by line on a thread, so a test can wait for the next
    line with a deadline instead of blocking forever (or sleeping and hoping)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def next(self, timeout: float = EVENT_S) -> str:
        """The next line, without its line ending; fails when none comes within ``timeout``."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the process printed no line within {timeout:.0f} s") from None
        if line is None:
            self._lines.put(None)
            raise AssertionError("the process closed its output")
        return line.rstrip("\n")

    def close(self, timeout: float = EVENT_S) -> None:
        """Wait for the output to end (the process exited), then close the stream."""
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._stream.close()


def interrupt(process: subprocess.Popen[str], lines: OutputLines | None = None) -> str:
    """Ctrl-C ``process``, wait for it to exit (killing it after ``EVENT_S``) and return its
    stderr, with every pipe closed; the caller checks ``process.returncode``."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=EVENT_S)
    except subprocess.TimeoutExpired:
        process.kill()  # returncode -9: the caller's check fails, naming stderr
        process.wait()
    if lines is not None:
        lines.close()
    err = ""
    if process.stderr is not None:
        err = process.stderr.read()
        process.stderr.close()
    if lines is None and process.stdout is not None:
        process.stdout.close()
    return err
