"""Codex as a provider: found, probed (version, sign-in), and given the marks of its MCP servers.

Codex hands an MCP server only the variables its configuration names, so a provider's
``marks`` reach each of the servers ``codex mcp list`` names as a ``-c`` override of that
server's ``env``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from maple_adapters.agents.cli import CliProvider, SessionStart
from maple_adapters.agents.codex import CodexSession
from maple_adapters.agents.session import AgentStartError
from maple_core.agents import ProviderInfo

__all__ = ["CodexProvider"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a bare TOML key: one a -c path can name


class CodexProvider(CliProvider[CodexSession]):
    """Codex, found as ``binary`` on the ``PATH`` (``codex`` by default).

    Args:
        binary: the executable to run.
        env: extra environment for the child (tests point ``CODEX_HOME`` at a private folder).
        approve: see :class:`~maple_adapters.agents.cli.CliProvider`.
        marks: variables for the agent, its commands and every stdio MCP server it starts.
    """

    default_binary = "codex"

    def mcp_servers(self, cwd: str) -> list[Any] | None:
        """The MCP servers Codex would start in ``cwd``, or ``None`` when it did not list them.

        ``codex mcp list --json``: an older Codex, a failure or a hang lists nothing.
        """
        listed = self.run_quietly("mcp", "list", "--json", cwd=cwd)
        try:
            servers = json.loads(listed.stdout) if listed and listed.returncode == 0 else None
        except ValueError:
            return None
        return servers if isinstance(servers, list) else None

    def server_marks(self, cwd: str) -> list[str]:
        """The ``-c`` overrides that set :attr:`marks` in every stdio MCP server's ``env``.

        Raises:
            AgentStartError: the servers cannot be listed, or one has a name no override can
                reach: an agent that must carry the marks is not started without them.
        """
        if not self.marks:
            return []
        servers = self.mcp_servers(cwd)
        if servers is None:
            raise AgentStartError(
                "`codex mcp list --json` did not list Codex's MCP servers, so maple cannot tell "
                "them nobody watches this agent; upgrade Codex (0.163 or later)."
            )
        overrides: list[str] = []
        for server in servers:
            stdio = (
                isinstance(server, dict) and _dict(server.get("transport")).get("type") == "stdio"
            )
            if not stdio:
                continue
            name = str(server.get("name"))
            if not _SERVER_NAME.fullmatch(name):
                raise AgentStartError(
                    f"Codex's MCP server {name[:60]!r} has a name maple cannot configure, so it "
                    "cannot be told nobody watches this agent; rename it with letters, digits, "
                    "'-' and '_' only."
                )
            for variable, value in sorted(self.marks.items()):
                overrides += ["-c", f"mcp_servers.{name}.env.{variable}={json.dumps(value)}"]
        return overrides

    def detect(self) -> ProviderInfo:
        """``codex --version`` and ``codex login status``."""
        words = self.version_words()
        if words is None:
            guidance = "Install Codex (npm install -g @openai/codex), then run `codex login`."
            return ProviderInfo("codex", installed=False, guidance=guidance)
        number = words[-1] if words else None
        status = self.run_quietly("login", "status")
        signed_in = None if status is None else status.returncode == 0
        guidance = (
            "Ready." if signed_in else "Run `codex login` in a terminal; maple cannot sign in."
        )
        if signed_in is None:
            guidance = "Could not tell whether Codex is signed in; run `codex login status`."
        return ProviderInfo("codex", True, number, signed_in, guidance)

    def _session(self, start: SessionStart) -> CodexSession:
        return CodexSession(self, start)
