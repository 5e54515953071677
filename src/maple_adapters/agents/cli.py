"""What Codex and Claude Code share: a session's life (turns, questions, cancel), the provider.

A session drives one agent through its CLI child; a provider starts and resumes sessions and
runs its executable for a quick answer, each child started without maple's secrets.
"""

from __future__ import annotations

import os
import subprocess
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, Unpack

from maple_adapters.agents.process import Child, scoped_environment
from maple_adapters.agents.session import GENERIC_FAILURE, AgentStartError, SessionState
from maple_core.agents import AgentRun, AgentState, StartOptions

__all__ = ["CliProvider", "CliSession", "SessionStart"]

_INTERRUPT_WAIT_S = 2.0


@dataclass(frozen=True, slots=True)
class SessionStart:
    """What a session is started with: its id, folder, model, effort, listener and thread.

    ``thread_id`` is the saved thread (Codex) or session (Claude Code) to resume, or ``None``
    for a new one.
    """

    agent_id: str
    cwd: str
    model: str | None = None
    effort: str | None = None
    on_turn_end: Callable[[AgentRun], None] | None = None
    thread_id: str | None = None


class CliSession(ABC):
    """One agent driven through its CLI child: what both providers' sessions share.

    A session says how a turn begins (:meth:`begin`), how a pending question is answered
    (:meth:`_answer`) and how a running turn is interrupted (:meth:`_interrupt`).
    """

    name: ClassVar[str]

    def __init__(self, provider: CliProvider[Any], start: SessionStart) -> None:
        self._provider = provider
        self.agent_id = start.agent_id
        self._cwd = start.cwd
        self._model = start.model
        self._effort = start.effort
        self._state = SessionState(self.name, start.agent_id, start.on_turn_end)
        self._child: Child | None = None
        self._lock = threading.RLock()
        self._stopping = False
        self._generation = 0

    @abstractmethod
    def begin(self, text: str) -> None:
        """Start a turn on ``text``."""

    @abstractmethod
    def _answer(self, text: str) -> bool:
        """Answer the question the agent is waiting on with ``text``; ``False`` when none."""

    @abstractmethod
    def _interrupt(self, child: Child) -> bool:
        """Ask the running turn to stop; ``True`` when asked, so it is given a moment to."""

    def _on_exit(self, code: int | None) -> None:
        """The child ended: the turn was cancelled when it was stopped, else it failed."""
        if self._stopping:
            self._state.end_turn(AgentState.CANCELLED)
        else:
            self._state.end_turn(AgentState.FAILED, GENERIC_FAILURE)

    def snapshot(self) -> AgentRun:
        """The agent as it stands."""
        return self._state.snapshot()

    def send(self, text: str) -> None:
        """Answer a pending question, or start the next turn in the same thread."""
        if self._state.snapshot().state is AgentState.WAITING and self._answer(text):
            return
        if self._state.snapshot().state is AgentState.RUNNING:
            raise AgentStartError(
                f"{self.agent_id} is still working; wait with agent_status or stop it with "
                "agent_cancel first."
            )
        self.begin(text)

    def wait(self, timeout: float | None = None) -> AgentRun:
        """Block until the turn ends or asks a question."""
        return self._state.wait(timeout)

    def cancel(self) -> AgentRun:
        """Interrupt the turn, wait briefly, then kill the child's process group."""
        with self._lock:
            self._stopping = True
            child = self._child
            if child is not None and child.alive():
                if self._interrupt(child):
                    self._state.wait(_INTERRUPT_WAIT_S)
                child.kill()
            self._child = None
            self._state.end_turn(AgentState.CANCELLED)
            return self._state.snapshot()

    def close(self) -> None:
        """Kill the child and everything it started."""
        self._stopping = True
        if self._child is not None:
            self._child.kill(grace=0.5)
            self._child = None


_SessionT = TypeVar("_SessionT", bound=CliSession)


class CliProvider(ABC, Generic[_SessionT]):
    """What both providers share: the executable, its extra environment, and a bounded run.

    A provider says only how to make its session (:meth:`_session`); starting and resuming one
    are the same for every provider.

    Args:
        binary: the executable to run (found on ``PATH`` when it is a bare name); by default
            the provider's own name.
        env: extra environment for every child (tests point ``HOME`` or ``CODEX_HOME`` at a
            private folder).
        approve: answer the agent's permission requests yes (someone handed it the task and
            watches it); ``False`` answers every one no, so only what the client's own settings
            allow runs (an agent nobody watches, driven by reviewers' words).
        hidden: the variables of this process no child gets (maple's secrets); required, so a
            caller cannot forget it (pass ``()`` to hide nothing).
        marks: variables set for the agent and for everything it starts: its commands and its
            MCP servers, even where the client hands a server only the variables its
            configuration names (Codex).
    """

    default_binary: ClassVar[str]

    def __init__(
        self,
        binary: str | None = None,
        env: Mapping[str, str] | None = None,
        *,
        approve: bool = True,
        hidden: Collection[str],
        marks: Mapping[str, str] | None = None,
    ) -> None:
        self.binary = binary or self.default_binary
        self.marks = dict(marks or {})
        self.env = {**dict(env or {}), **self.marks}
        self.approve = approve
        self.hidden = frozenset(hidden)

    @property
    def name(self) -> str:
        """The provider's name, which is also its executable's (``codex``, ``claude``)."""
        return self.default_binary

    def child_environment(self) -> dict[str, str]:
        """What a child starts with: this process's environment, less ``hidden``, plus ``env``."""
        return scoped_environment(self.env, self.hidden)

    @abstractmethod
    def _session(self, start: SessionStart) -> _SessionT:
        """A new session object for this provider (not started)."""

    def start(
        self, agent_id: str, briefing: str, cwd: str, **options: Unpack[StartOptions]
    ) -> _SessionT:
        """Start an agent on a new thread, its first turn on ``briefing``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(SessionStart(agent_id, cwd, **options))
        session.begin(briefing)
        return session

    def resume(self, agent_id: str, thread_id: str, text: str, cwd: str) -> _SessionT:
        """Resume a saved thread in a fresh process, with a new turn on ``text``."""
        if not os.path.isdir(cwd):
            raise AgentStartError(f"{cwd} is not a directory.")
        session = self._session(SessionStart(agent_id, cwd, thread_id=thread_id))
        session.begin(text)
        return session

    def version_words(self) -> list[str] | None:
        """``binary --version``'s words, or ``None`` when it is not installed (or hung)."""
        version = self.run_quietly("--version")
        if version is None or version.returncode != 0:
            return None
        return version.stdout.strip().split()

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
                env=self.child_environment(),
                cwd=cwd,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
