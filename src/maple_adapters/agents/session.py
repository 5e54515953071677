"""What both providers' sessions share: the agent's state, guarded, and waiting on it."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from maple_core.agents import AgentQuestion, AgentRun, AgentState, CommandRun
from maple_core.errors import MapleError

__all__ = ["AgentStartError", "GENERIC_FAILURE", "SessionState", "UNATTENDED"]


UNATTENDED = (
    "Nobody approves tool use here: maple runs this agent unattended, on reviewers' comments. "
    "Use what the project's settings already allow, or ask the reviewer with reply_to_comment."
)
"""What an agent is told when a permission request is refused (``approve=False``)."""


class AgentStartError(MapleError):
    """Raised when an agent's process could not start or answer its handshake."""


GENERIC_FAILURE = "The agent's process failed; its output is not shown."
"""What a failed turn reports: never the child's own output, which may hold anything."""


class SessionState:
    """An agent's :class:`AgentRun`, changed under a lock; waiters wake on every change."""

    def __init__(
        self,
        provider: str,
        agent_id: str,
        on_turn_end: Callable[[AgentRun], None] | None = None,
    ) -> None:
        self._run = AgentRun(provider, agent_id, None, AgentState.RUNNING)
        self._changed = threading.Condition()
        self._on_turn_end = on_turn_end

    def snapshot(self) -> AgentRun:
        """The run as it stands."""
        with self._changed:
            return self._run

    def update(self, **changes: object) -> AgentRun:
        """Replace some fields and wake waiters."""
        with self._changed:
            self._run = replace(self._run, **changes)  # type: ignore[arg-type]
            self._changed.notify_all()
            return self._run

    def begin_turn(self) -> None:
        """A new turn: clear what the last one did."""
        with self._changed:
            self._run = replace(
                self._run,
                state=AgentState.RUNNING,
                files_changed=(),
                commands=(),
                questions=(),
                error=None,
                turns=self._run.turns + 1,
            )
            self._changed.notify_all()

    def add_command(self, command: str, exit_code: int | None) -> None:
        """Record a command the agent ran."""
        with self._changed:
            commands = (*self._run.commands, CommandRun(command, exit_code))
            self._run = replace(self._run, commands=commands)

    def add_files(self, paths: list[str]) -> None:
        """Record files the agent changed (each once, in order)."""
        with self._changed:
            known = list(self._run.files_changed)
            known += [p for p in paths if p and p not in known]
            self._run = replace(self._run, files_changed=tuple(known))

    def ask(self, questions: tuple[AgentQuestion, ...]) -> None:
        """The agent is waiting for answers."""
        self.update(state=AgentState.WAITING, questions=questions)

    def end_turn(self, state: AgentState, error: str | None = None) -> None:
        """The turn ended; tell the listener once."""
        with self._changed:
            if self._run.state in (AgentState.IDLE, AgentState.FAILED, AgentState.CANCELLED):
                return
            self._run = replace(self._run, state=state, error=error, questions=())
            self._changed.notify_all()
            finished = self._run
        if self._on_turn_end is not None:
            with contextlib.suppress(Exception):
                self._on_turn_end(finished)

    def wait(self, timeout: float | None = None) -> AgentRun:
        """Block until the run is not ``running`` (or ``timeout`` seconds pass)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self._run.state is AgentState.RUNNING:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    break
                self._changed.wait(remaining)
            return self._run
