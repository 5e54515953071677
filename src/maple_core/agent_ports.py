"""The agents' ports: external coding agents (Codex, Claude Code) that ``maple-mcp`` drives.

A provider starts and resumes sessions of one harness; the pool holds the sessions ``maple-mcp``
started. The harness run headless to read a reviewer's words is ``classifier_ports.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, Unpack

from maple_core.agents import AgentRun, ProviderInfo, StartOptions

__all__ = [
    "AgentPool",
    "AgentProvider",
    "AgentSession",
]


class AgentSession(Protocol):
    """One external agent: a thread of work in Codex or Claude Code, and its current turn."""

    @property
    def agent_id(self) -> str:
        """Maple's id for the agent (``codex-1``, ``claude-2``…)."""
        ...

    def snapshot(self) -> AgentRun:
        """The agent as it stands now."""
        ...

    def send(self, text: str) -> None:
        """Answer the pending question with ``text``, or start a new turn with it."""
        ...

    def wait(self, timeout: float | None = None) -> AgentRun:
        """Block until the turn is no longer running (or ``timeout`` seconds pass)."""
        ...

    def cancel(self) -> AgentRun:
        """Interrupt the turn, wait briefly, then end the agent's processes."""
        ...

    def close(self) -> None:
        """End every process the agent started; the thread stays on disk."""
        ...


class AgentProvider(Protocol):
    """A coding CLI maple can hand work to (``codex``, ``claude``)."""

    @property
    def name(self) -> str:
        """``codex`` or ``claude``."""
        ...

    def detect(self) -> ProviderInfo:
        """Whether it is installed, its version and sign-in status, and what to do if not."""
        ...

    def start(
        self, agent_id: str, briefing: str, cwd: str, **options: Unpack[StartOptions]
    ) -> AgentSession:
        """Start an agent on ``briefing`` in ``cwd``; its first turn begins at once."""
        ...

    def resume(self, agent_id: str, thread_id: str, text: str, cwd: str) -> AgentSession:
        """Resume the saved thread ``thread_id`` in a fresh process, a new turn on ``text``."""
        ...


class AgentPool(Protocol):
    """The agents one server started, with the providers it offers (``MAPLE_AGENTS``)."""

    @property
    def providers(self) -> Mapping[str, AgentProvider]:
        """The providers offered, by name."""
        ...

    def start(
        self,
        provider: str,
        briefing: str,
        *,
        cwd: str | None = None,
        **options: Unpack[StartOptions],
    ) -> AgentSession:
        """Start an agent; refused past the most a server starts, or for a provider not offered."""
        ...

    def get(self, provider: str, agent_id: str) -> AgentSession:
        """The agent ``agent_id`` of ``provider``; refused when there is none."""
        ...

    def close_all(self) -> None:
        """End every agent's processes."""
        ...
