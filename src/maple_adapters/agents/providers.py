"""The external agents maple can start: a provider by name, a server's pool, the end of them all."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from maple_adapters.agents.claude_provider import ClaudeProvider
from maple_adapters.agents.codex_provider import CodexProvider
from maple_adapters.agents.pool import AgentPool
from maple_adapters.agents.process import kill_all
from maple_core.agent_ports import AgentProvider
from maple_core.agents import PROVIDERS
from maple_core.errors import InvalidInputError

__all__ = ["Agents"]


class Agents:
    """Codex and Claude Code, each child started without the ``hidden`` variables (secrets).

    Args:
        hidden: the variables of this process no agent gets.
        unattended_mark: the variable that marks a turn nobody watches, and all it starts.
        unattended: this process itself runs in a turn nobody watches.
        session_mark: the variable naming the session an agent's ``maple-mcp`` claims as.
    """

    def __init__(
        self,
        hidden: Collection[str],
        unattended_mark: str,
        *,
        session_mark: str,
        unattended: bool = False,
    ) -> None:
        self._hidden = frozenset(hidden)
        self._mark = unattended_mark
        self._inherited = unattended
        self._session_mark = session_mark

    @property
    def unattended(self) -> bool:
        """Whether this process runs in a turn nobody watches, so it approves nothing for agents."""
        return self._inherited

    def provider(
        self,
        name: str,
        *,
        approve: bool = True,
        unattended: bool = False,
        session: str | None = None,
    ) -> AgentProvider:
        """The provider called ``name`` (``codex`` or ``claude``).

        ``approve`` answers the agent's permission requests yes; ``False`` answers them no, so
        only what the client's own settings allow runs. ``unattended`` says nobody watches the
        agent (``maple watch``): it, its commands and its MCP servers carry the mark, so a
        ``maple-mcp`` there offers no external-agent tools and any agent started there approves
        nothing. A process that itself runs unattended only starts agents that are unattended
        and approve nothing: an agent cannot be given more than the turn that started it.
        ``session`` (``maple watch``'s) is the agent's session mark, and its MCP servers': the
        claims the agent's ``maple-mcp`` makes are that session's.

        Raises:
            InvalidInputError: no provider has that name.
        """
        if name not in PROVIDERS:
            raise InvalidInputError(f'unknown provider {name}; "codex" and "claude" exist.')
        marks = {self._mark: "1"} if unattended or self._inherited else {}
        if session is not None:
            marks[self._session_mark] = session
        approve = approve and not self._inherited
        kind = CodexProvider if name == "codex" else ClaudeProvider
        return kind(approve=approve, hidden=self._hidden, marks=marks or None)

    def pool(self, names: Sequence[str], root: Path) -> AgentPool | None:
        """The agents a server offers (``names``) in ``root``; ``None`` when it names none."""
        if not names:
            return None
        return AgentPool({name: self.provider(name) for name in names}, root)

    def kill_all(self) -> None:
        """End every agent process (and its process group) this process started."""
        kill_all()
