"""Claude Code as a provider: found, and probed for its version and sign-in."""

from __future__ import annotations

import json

from maple_adapters.agents.claude import ClaudeSession
from maple_adapters.agents.cli import CliProvider, SessionStart
from maple_core.agents import ProviderInfo

__all__ = ["ClaudeProvider"]


class ClaudeProvider(CliProvider[ClaudeSession]):
    """Claude Code, found as ``binary`` on the ``PATH`` (``claude`` by default)."""

    default_binary = "claude"

    def detect(self) -> ProviderInfo:
        """``claude --version`` and ``claude auth status --json`` (only the signed-in flag)."""
        words = self.version_words()
        if words is None:
            install = "npm install -g @anthropic-ai/claude-code"
            guidance = f"Install Claude Code ({install}), then run `claude auth login`."
            return ProviderInfo("claude", installed=False, guidance=guidance)
        status = self.run_quietly("auth", "status", "--json")
        signed_in: bool | None = None
        if status is not None:
            try:
                data = json.loads(status.stdout or "null")
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("loggedIn"), bool):
                signed_in = data["loggedIn"]
        guidance = {
            True: "Ready.",
            False: "Run `claude auth login` in a terminal.",
            None: "Could not tell whether Claude Code is signed in; run `claude auth status`.",
        }[signed_in]
        return ProviderInfo("claude", True, words[0] if words else None, signed_in, guidance)

    def _session(self, start: SessionStart) -> ClaudeSession:
        return ClaudeSession(self, start)
