"""External coding agents: Codex (``codex app-server``) and Claude Code (``claude`` stream-json)."""

from __future__ import annotations

from maple_adapters.agents.claude import ClaudeProvider, ClaudeSession, resume_claude
from maple_adapters.agents.codex import (
    AgentStartError,
    CodexProvider,
    CodexSession,
    resume_codex,
)
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
    "resume_claude",
    "resume_codex",
]
