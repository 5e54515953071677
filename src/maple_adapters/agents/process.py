"""A child CLI in its own process group, read line by line, killed with everything it started.

Also when this process dies without a word (SIGKILL, a crash): every child is started through a
small keeper (:mod:`~maple_adapters.agents.keeper`) that ends it with this process.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import IO, Any

from maple_adapters.agents.keeper import spawn

__all__ = [
    "Child",
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


def scoped_environment(
    extra: Mapping[str, str] | None = None, hidden: Collection[str] = ()
) -> dict[str, str]:
    """The environment of this process without the ``hidden`` variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in hidden}
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
        self.process = spawn(argv, cwd, env)
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
