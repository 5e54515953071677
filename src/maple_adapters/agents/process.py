"""A child CLI in its own process group, read line by line, killed with everything it started."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from maple_adapters.agents.session import AgentStartError
from maple_core.agents import AgentRun
from maple_core.environment import SECRET_VARIABLES

__all__ = [
    "Child",
    "CliProvider",
    "MAX_LINE",
    "scoped_environment",
]

MAX_LINE = 8 * 1024 * 1024
"""The longest protocol line read; a longer one is dropped, not buffered without bound."""

_STDERR_KEEP = 16 * 1024

_LIVE: set[Child] = set()
_LIVE_LOCK = threading.Lock()


def scoped_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of this process without maple's own secrets, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    env.update(extra or {})
    return env


class Child:
    """A running CLI: JSON lines in on stdin, JSON lines out through ``on_message``.

    It runs in a new session (its own process group), so :meth:`kill` reaches every descendant,
    including commands the agent started. Stderr is kept (the last 16 KiB) for diagnosis only and
    never shown to a caller: it can hold anything the CLI printed.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str,
        env: Mapping[str, str],
        on_message: Callable[[dict[str, Any]], None],
        on_exit: Callable[[int | None], None],
    ) -> None:
        self._on_message = on_message
        self._on_exit = on_exit
        self._write_lock = threading.Lock()
        self.stderr_tail = b""
        self.process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        with _LIVE_LOCK:
            _LIVE.add(self)
        self._reader = threading.Thread(target=self._read, name=f"agent-{self.pid}", daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_reader.start()

    @property
    def pid(self) -> int:
        """The child's process id (also its process group's id)."""
        return self.process.pid

    def _read(self) -> None:
        stdout: IO[bytes] | None = self.process.stdout
        assert stdout is not None
        while True:
            line = stdout.readline(MAX_LINE + 1)
            if not line:
                break
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # drop the rest of the long line
                    line = stdout.readline(MAX_LINE)
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                self._on_message(message)
        stdout.close()
        code = self.process.wait()
        with _LIVE_LOCK:
            _LIVE.discard(self)
        self._on_exit(code)

    def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        for chunk in iter(lambda: stderr.read(4096), b""):
            self.stderr_tail = (self.stderr_tail + chunk)[-_STDERR_KEEP:]
        stderr.close()

    def send(self, message: Mapping[str, Any]) -> bool:
        """Write one JSON line; False when the child is gone."""
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        stdin = self.process.stdin
        with self._write_lock:
            if stdin is None or stdin.closed:
                return False
            try:
                stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return False
        return True

    def close_stdin(self) -> None:
        """End the conversation; a CLI exits when its stdin closes."""
        with self._write_lock, contextlib.suppress(OSError, ValueError):
            if self.process.stdin is not None:
                self.process.stdin.close()

    def alive(self) -> bool:
        """True while the child runs."""
        return self.process.poll() is None

    def kill(self, grace: float = 1.0) -> None:
        """SIGTERM the whole process group, wait ``grace`` seconds, then SIGKILL it."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
            try:
                self.process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)  # descendants that outlived the leader
        self.close_stdin()
        if threading.current_thread() is not self._reader:
            self._reader.join(timeout=2)
        self._stderr_reader.join(timeout=2)


def kill_all() -> None:
    """Kill every child still running (at shutdown)."""
    with _LIVE_LOCK:
        children = list(_LIVE)
    for child in children:
        child.kill(grace=0.5)


class CliProvider:
    """What both providers share: the executable, its extra environment, and a bounded run.

    Args:
        binary: the executable to run (found on ``PATH`` when it is a bare name).
        env: extra environment for every child (tests point ``HOME`` or ``CODEX_HOME`` at a
            private folder).
    """

    def __init__(self, binary: str, env: Mapping[str, str] | None = None) -> None:
        self.binary = binary
        self.env = dict(env or {})

    def _session(
        self,
        agent_id: str,
        cwd: str,
        model: str | None,
        effort: str | None,
        on_turn_end: Callable[[AgentRun], None] | None,
        thread_id: str | None,
    ) -> Any:
        """A new session object for this provider (not started)."""
        raise NotImplementedError

    def start(
        self,
        agent_id: str,
        briefing: str,
        cwd: str,
        *,
        model: str | None = None,
        effort: str | None = None,
        on_turn_end: Callable[[AgentRun], None] | None = None,
    ) -> Any:
        """Start an agent on a new thread, its first turn on ``briefing``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(agent_id, cwd, model, effort, on_turn_end, None)
        session.begin(briefing)
        return session

    def resume(self, agent_id: str, thread_id: str, text: str, cwd: str) -> Any:
        """Resume a saved thread in a fresh process, with a new turn on ``text``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(agent_id, cwd, None, None, None, thread_id)
        session.begin(text)
        return session

    def run_quietly(self, *args: str) -> subprocess.CompletedProcess[str] | None:
        """``binary args…`` with a 10 s bound; ``None`` when it could not run or hung."""
        try:
            return subprocess.run(
                [self.binary, *args],
                capture_output=True,
                text=True,
                timeout=10,
                env=scoped_environment(self.env),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
