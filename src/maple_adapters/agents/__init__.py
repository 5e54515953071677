"""External coding agents: Codex (``codex app-server``) and Claude Code (``claude`` stream-json)."""

from __future__ import annotations

from maple_adapters.agents.claude import ClaudeProvider, ClaudeSession
from maple_adapters.agents.codex import CodexProvider, CodexSession
from maple_adapters.agents.pool import AgentPool
from maple_adapters.agents.process import kill_all
from maple_adapters.agents.session import AgentStartError

__all__ = [
    "AgentPool",
    "AgentStartError",
    "ClaudeProvider",
    "ClaudeSession",
    "CodexProvider",
    "CodexSession",
    "kill_all",
]
