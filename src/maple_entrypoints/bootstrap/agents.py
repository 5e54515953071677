"""External agents: the providers, the pool a server offers, and the CLI's record folder."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.agents import AgentPool, ClaudeProvider, CodexProvider, kill_all
from maple_core.agents import PROVIDERS
from maple_core.errors import InvalidInputError
from maple_core.ports import AgentProvider
from maple_entrypoints.bootstrap.local import find_checkout
from maple_entrypoints.settings import AgentSettings, ServerConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.files.folders import Folder

__all__ = [
    "AgentPool",
    "SESSION",
    "UNATTENDED",
    "agent_provider",
    "build_agents",
    "kill_all_agents",
    "make_agents_folder",
    "open_agents_folder",
    "running_unattended",
]


UNATTENDED = "MAPLE_UNATTENDED"
"""The variable that marks a turn nobody watches, and everything started from it."""
SESSION = "MAPLE_SESSION"
"""The variable naming the session an agent's ``maple-mcp`` claims comments as."""


def running_unattended() -> bool:
    """True when this process itself runs in a turn nobody watches (``MAPLE_UNATTENDED``)."""
    return AgentSettings.load().unattended


def agent_provider(
    name: str, *, approve: bool = True, unattended: bool = False, session: str | None = None
) -> AgentProvider:
    """The provider called ``name`` (``codex`` or ``claude``).

    ``approve`` answers the agent's permission requests yes; ``False`` answers them no, so only
    what the client's own settings allow runs. ``unattended`` says nobody watches the agent
    (``maple watch``): it, its commands and its MCP servers carry ``MAPLE_UNATTENDED``, so a
    ``maple-mcp`` there offers no external-agent tools and any agent started there approves
    nothing. A process that itself runs unattended only starts agents that are unattended and
    approve nothing: an agent cannot be given more than the turn that started it. ``session``
    (``maple watch``'s) is the agent's ``MAPLE_SESSION``, and its MCP servers': the claims the
    agent's ``maple-mcp`` makes are that session's.

    Raises:
        InvalidInputError: no provider has that name.
    """
    if name not in PROVIDERS:
        raise InvalidInputError(f'unknown provider {name}; "codex" and "claude" exist.')
    inherited = running_unattended()
    marks = {UNATTENDED: "1"} if unattended or inherited else {}
    if session is not None:
        marks[SESSION] = session
    approve = approve and not inherited
    if name == "codex":
        return CodexProvider(approve=approve, marks=marks or None)
    return ClaudeProvider(approve=approve, marks=marks or None)


def build_agents(config: ServerConfig, root: Path) -> AgentPool | None:
    """The external agents ``MAPLE_AGENTS`` offers, in ``root``; ``None`` when it names none."""
    if not config.agents:
        return None
    return AgentPool({name: agent_provider(name) for name in config.agents}, root)


def kill_all_agents() -> None:
    """End every agent process (and its process group) this process started."""
    kill_all()


def make_agents_folder(cwd: Path) -> Folder:
    """``.maple/agents/`` at ``cwd``'s main checkout, made if missing, following no link.

    Raises:
        UnsafePathError: a part of the path is a link or not a folder.
    """
    from maple_adapters.files.folders import MAPLE, make_folder

    root = find_checkout(cwd).root
    return make_folder(root, (MAPLE, "agents"), store="agents", operation="record")


def open_agents_folder(cwd: Path) -> Folder | None:
    """``.maple/agents/`` at ``cwd``'s main checkout, or ``None`` when nothing was recorded.

    Raises:
        UnsafePathError: a part of the path is a link or not a folder.
    """
    from maple_adapters.files.folders import MAPLE, open_folder

    root = find_checkout(cwd).root
    return open_folder(root, (MAPLE, "agents"), store="agents", operation="read")
