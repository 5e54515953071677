"""What Codex and Claude Code share as providers: the executable, its environment, a bounded run."""

from __future__ import annotations

import os
import subprocess
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from typing import ClassVar, Generic, Protocol, TypeVar

from maple_adapters.agents.process import scoped_environment
from maple_adapters.agents.session import AgentStartError
from maple_core.agents import AgentRun

__all__ = ["CliProvider"]


class _Session(Protocol):
    def begin(self, text: str) -> None: ...


_SessionT = TypeVar("_SessionT", bound=_Session)


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
        hidden: the variables of this process no child gets (maple's secrets).
    """

    default_binary: ClassVar[str]

    def __init__(
        self,
        binary: str | None = None,
        env: Mapping[str, str] | None = None,
        *,
        approve: bool = True,
        hidden: Collection[str] = (),
    ) -> None:
        self.binary = binary or self.default_binary
        self.env = dict(env or {})
        self.approve = approve
        self.hidden = frozenset(hidden)

    def child_environment(self) -> dict[str, str]:
        """What a child starts with: this process's environment, less ``hidden``, plus ``env``."""
        return scoped_environment(self.env, self.hidden)

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

    def run_quietly(self, *args: str) -> subprocess.CompletedProcess[str] | None:
        """``binary args…`` with a 10 s bound; ``None`` when it could not run or hung."""
        try:
            return subprocess.run(
                [self.binary, *args],
                capture_output=True,
                text=True,
                timeout=10,
                env=self.child_environment(),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
