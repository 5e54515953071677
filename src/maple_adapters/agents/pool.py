"""The agents one server started: at most four, each found by provider and id."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Unpack

from maple_core.agent_ports import AgentProvider, AgentSession
from maple_core.agents import MAX_AGENTS, AgentState, StartOptions, check_provider
from maple_core.errors import InvalidInputError

__all__ = ["AgentPool"]


class AgentPool:
    """Starts agents with the providers a server offers, inside one project root.

    Args:
        providers: the providers ``MAPLE_AGENTS`` names, by name.
        root: the project; an agent's ``cwd`` must be inside it.
    """

    def __init__(self, providers: Mapping[str, AgentProvider], root: Path) -> None:
        self.providers = dict(providers)
        self.root = root.resolve()
        self._agents: dict[str, AgentSession] = {}
        self._counter = 0
        self._starting = 0
        self._lock = threading.Lock()

    @property
    def offered(self) -> tuple[str, ...]:
        """The provider names, in the order given."""
        return tuple(self.providers)

    def _cwd(self, cwd: str | None) -> str:
        if not cwd:
            return str(self.root)
        chosen = (self.root / cwd).resolve() if not Path(cwd).is_absolute() else Path(cwd).resolve()
        if chosen != self.root and self.root not in chosen.parents:
            raise InvalidInputError(
                f"cwd {cwd} is outside the project ({self.root}); give a folder inside it."
            )
        if not chosen.is_dir():
            raise InvalidInputError(f"cwd {cwd} is not a folder in the project.")
        return str(chosen)

    def start(
        self,
        provider: str,
        briefing: str,
        *,
        cwd: str | None = None,
        **options: Unpack[StartOptions],
    ) -> AgentSession:
        """Start an agent; refused past four, or for a provider the server does not offer.

        Raises:
            InvalidInputError: the provider is not offered, the cwd is outside the project, or
                four agents already run.
        """
        check_provider(provider, self.offered)
        folder = self._cwd(cwd)
        with self._lock:
            if len(self._agents) + self._starting >= MAX_AGENTS:
                raise InvalidInputError(
                    f"This server already started {MAX_AGENTS} agents, the most it starts; "
                    "give more work to one of them with agent_send."
                )
            self._counter += 1
            self._starting += 1  # a slot held while the process starts
            agent_id = f"{provider}-{self._counter}"
        try:
            session = self.providers[provider].start(agent_id, briefing, folder, **options)
            run = session.snapshot()
            started = not (run.state is AgentState.FAILED and run.thread_id is None)
            if started:
                with self._lock:
                    self._agents[agent_id] = session
            else:
                session.close()  # its process never started: it does not count
            return session
        finally:
            with self._lock:
                self._starting -= 1

    def get(self, provider: str, agent_id: str) -> AgentSession:
        """The agent ``agent_id`` of ``provider``.

        Raises:
            InvalidInputError: no such agent.
        """
        check_provider(provider, self.offered)
        with self._lock:
            session = self._agents.get(agent_id)
        if session is None or not agent_id.startswith(provider + "-"):
            known = ", ".join(sorted(self._agents)) or "none"
            raise InvalidInputError(
                f"No {provider} agent {agent_id} in this server (agents: {known}); "
                "agent_start starts one."
            )
        return session

    def close_all(self) -> None:
        """End every agent's processes."""
        with self._lock:
            sessions = list(self._agents.values())
        for session in sessions:
            session.close()
