"""The external agents maple can start: a provider by name, a server's pool, the end of them all."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from maple_adapters.agents.claude import ClaudeProvider
from maple_adapters.agents.codex import CodexProvider
from maple_adapters.agents.pool import AgentPool
from maple_adapters.agents.process import kill_all
from maple_core.agents import PROVIDERS
from maple_core.errors import InvalidInputError
from maple_core.ports import AgentProvider

__all__ = ["Agents"]


class Agents:
    """Codex and Claude Code, each child started without the ``hidden`` variables (secrets)."""

    def __init__(self, hidden: Collection[str]) -> None:
        self._hidden = frozenset(hidden)

    def provider(self, name: str, *, approve: bool = True) -> AgentProvider:
        """The provider called ``name`` (``codex`` or ``claude``).

        ``approve`` answers the agent's permission requests yes; ``False`` (an agent nobody
        watches) answers them no, so only what the client's own settings allow runs.

        Raises:
            InvalidInputError: no provider has that name.
        """
        if name not in PROVIDERS:
            raise InvalidInputError(f'unknown provider {name}; "codex" and "claude" exist.')
        kind = CodexProvider if name == "codex" else ClaudeProvider
        return kind(approve=approve, hidden=self._hidden)

    def pool(self, names: Sequence[str], root: Path) -> AgentPool | None:
        """The agents a server offers (``names``) in ``root``; ``None`` when it names none."""
        if not names:
            return None
        return AgentPool({name: self.provider(name) for name in names}, root)

    def kill_all(self) -> None:
        """End every agent process (and its process group) this process started."""
        kill_all()
