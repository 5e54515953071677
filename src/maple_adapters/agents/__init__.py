"""External coding agents: Codex (``codex app-server``) and Claude Code (``claude`` stream-json)."""

from __future__ import annotations

from maple_adapters.agents.claude import ClaudeProvider, ClaudeSession
from maple_adapters.agents.codex import AgentStartError, CodexProvider, CodexSession
from maple_adapters.agents.pool import AgentPool
from maple_adapters.agents.process import kill_all

__all__ = [
    "AgentPool",
    "AgentStartError",
    "ClaudeProvider",
    "ClaudeSession",
    "CodexProvider",
    "CodexSession",
    "kill_all",
]
