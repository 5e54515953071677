"""A child CLI in its own process group, read line by line, killed with everything it started.

Also when this process dies without a word (SIGKILL, a crash): every child is started through a
small keeper that forks a watchdog into the child's process group and then becomes the CLI
(``exec``). The watchdog holds the read end of a pipe whose only write end this process holds,
so the kernel closes it when this process ends however it ends; the watchdog then terminates the
whole group, and kills it a moment later.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any, Generic, Protocol, TypeVar

from maple_adapters.agents.session import AgentStartError
from maple_core.agents import AgentRun
from maple_core.environment import SECRET_VARIABLES

__all__ = [
    "Child",
    "CliProvider",
    "MAX_LINE",
    "kill_all",
    "scoped_environment",
    "spawn",
]

MAX_LINE = 8 * 1024 * 1024
"""The longest protocol line read; a longer one is dropped, not buffered without bound."""

_STDERR_KEEP = 16 * 1024

_LIVE: set[Child] = set()
_LIVE_LOCK = threading.Lock()
_LIFELINE: list[int] = []  # the pipe's read and write ends, opened with the first child

_KEEPER = """
import os, select, signal, sys, time
lifeline, status, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
agent = os.getpid()
if os.fork() == 0:
    os.close(status)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    signal.signal(signal.SIGTERM, lambda *_: None)
    while os.getppid() == agent:
        if select.select([lifeline], [], [], 1.0)[0]:
            os.killpg(0, signal.SIGTERM)
            time.sleep(2.0)
            os.killpg(0, signal.SIGKILL)
    os._exit(0)
os.set_inheritable(lifeline, False)
os.set_inheritable(status, False)
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    os.write(status, str(exc.errno or 0).encode())
os._exit(127)
"""
"""Run as ``python -I -S -c _KEEPER <lifeline fd> <status fd> argv…``.

The forked watchdog leaves the CLI's pipes (so its stdout still ends when the CLI exits),
outlives a SIGTERM to the group so it can escalate, and goes away once the CLI has (its parent
changes). The status pipe closes on a successful ``exec``; a failed one writes its errno there.
"""


def _lifeline() -> int:
    """The read end of the pipe that reaches end-of-file when this process ends."""
    with _LIVE_LOCK:
        if not _LIFELINE:
            _LIFELINE.extend(os.pipe())  # neither end is inherited unless passed
        return _LIFELINE[0]


def _spawn(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session through the keeper; raises ``OSError`` as Popen does."""
    lifeline = _lifeline()
    status_read, status_write = os.pipe()
    keeper = [sys.executable or "python3", "-I", "-S", "-c", _KEEPER]
    try:
        process = subprocess.Popen(
            [*keeper, str(lifeline), str(status_write), *argv],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=(lifeline, status_write),
        )
    except BaseException:
        os.close(status_read)
        raise
    finally:
        os.close(status_write)
    try:
        with os.fdopen(status_read, "rb") as status:
            failure = status.read()  # end-of-file once the keeper has become the CLI
    except BaseException:
        process.kill()
        raise
    if failure:
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        code = int(failure)
        raise OSError(code, os.strerror(code), argv[0])
    return process


def spawn(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` contained, with pipes on stdin, stdout and stderr.

    It runs in a new session (its own process group, which ``os.killpg(process.pid, …)``
    reaches) through the keeper, so it is also ended when this process dies without a word.

    Raises:
        OSError: it could not be started (as ``subprocess.Popen`` raises).
    """
    return _spawn(argv, cwd, env)


def scoped_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of this process without maple's own secrets, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    env.update(extra or {})
    return env


class Child:
    """A running CLI: JSON lines in on stdin, JSON lines out through ``on_message``.

    It runs in a new session (its own process group), so :meth:`kill` reaches every descendant,
    including commands the agent started, and the group is killed when this process ends, even
    by SIGKILL (see the module's docstring). Stderr is kept (the last 16 KiB) for diagnosis only and
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
        self.process = _spawn(argv, cwd, env)
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
        """SIGTERM the whole process group, wait ``grace`` seconds, then SIGKILL it.

        A descendant that left the group (Claude Code runs each Bash command in a new session,
        and ``timeout`` makes its own group) is found beforehand and killed after.
        """
        stragglers = _descendants(self.pid)
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
        for pid, started in stragglers:
            if _started(pid) == started:  # the same process, not a new one given its pid
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        self.close_stdin()
        if threading.current_thread() is not self._reader:
            self._reader.join(timeout=2)
        self._stderr_reader.join(timeout=2)


def _stat(pid: int | str) -> list[str] | None:
    """``/proc/<pid>/stat``'s fields after the command name (state first), or ``None``."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _started(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot), or ``None`` when it is gone."""
    fields = _stat(pid)
    return fields[19] if fields and len(fields) > 19 and fields[0] != "Z" else None


def _descendants(pid: int) -> list[tuple[int, str]]:
    """Every process below ``pid`` with its start time, from ``/proc`` (none where it is absent)."""
    try:
        names = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    children: dict[int, list[tuple[int, str]]] = {}
    for name in names:
        fields = _stat(name)
        if fields and len(fields) > 19:
            children.setdefault(int(fields[1]), []).append((int(name), fields[19]))
    found: list[tuple[int, str]] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def kill_all(grace: float = 0.5) -> None:
    """Kill every child still running, all at once (at shutdown)."""
    with _LIVE_LOCK:
        children = list(_LIVE)
    killers = [
        threading.Thread(target=child.kill, kwargs={"grace": grace}, daemon=True)
        for child in children
    ]
    for killer in killers:
        killer.start()
    for killer in killers:
        killer.join()


class _Session(Protocol):
    def begin(self, text: str) -> None: ...


_SessionT = TypeVar("_SessionT", bound=_Session)


class CliProvider(ABC, Generic[_SessionT]):
    """What both providers share: the executable, its extra environment, and a bounded run.

    A provider says only how to make its session (:meth:`_session`); starting and resuming one
    are the same for every provider.

    Args:
        binary: the executable to run (found on ``PATH`` when it is a bare name).
        env: extra environment for every child (tests point ``HOME`` or ``CODEX_HOME`` at a
            private folder).
        approve: answer the agent's permission requests yes (someone handed it the task and
            watches it); ``False`` answers every one no, so only what the client's own settings
            allow runs (an agent nobody watches, driven by reviewers' words).
        marks: variables set for the agent and for everything it starts: its commands and its
            MCP servers, even where the client hands a server only the variables its
            configuration names (Codex).
    """

    def __init__(
        self,
        binary: str,
        env: Mapping[str, str] | None = None,
        *,
        approve: bool = True,
        marks: Mapping[str, str] | None = None,
    ) -> None:
        self.binary = binary
        self.marks = dict(marks or {})
        self.env = {**dict(env or {}), **self.marks}
        self.approve = approve

    @abstractmethod
    def _session(
        self,
        agent_id: str,
        cwd: str,
        model: str | None,
        effort: str | None,
        on_turn_end: Callable[[AgentRun], None] | None,
        thread_id: str | None,
    ) -> _SessionT:
        """A new session object for this provider (not started)."""

    def start(
        self,
        agent_id: str,
        briefing: str,
        cwd: str,
        *,
        model: str | None = None,
        effort: str | None = None,
        on_turn_end: Callable[[AgentRun], None] | None = None,
    ) -> _SessionT:
        """Start an agent on a new thread, its first turn on ``briefing``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(agent_id, cwd, model, effort, on_turn_end, None)
        session.begin(briefing)
        return session

    def resume(self, agent_id: str, thread_id: str, text: str, cwd: str) -> _SessionT:
        """Resume a saved thread in a fresh process, with a new turn on ``text``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(agent_id, cwd, None, None, None, thread_id)
        session.begin(text)
        return session

    def run_quietly(
        self, *args: str, cwd: str | None = None
    ) -> subprocess.CompletedProcess[str] | None:
        """``binary args…`` with a 10 s bound; ``None`` when it could not run or hung."""
        try:
            return subprocess.run(
                [self.binary, *args],
                capture_output=True,
                text=True,
                timeout=10,
                env=scoped_environment(self.env),
                cwd=cwd,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
